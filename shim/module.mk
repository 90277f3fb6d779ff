# shim/: libadvshim.so, the LD_PRELOAD library, its unit and integration tests.
# The adaptive decision (adapt/adapt.c, pure, a leaf) comes in through
# libadvpolicy.a, whose parser validates its parameters (policy/module.mk).
SHIM_C_SRCS	:= $(wildcard shim/*.c)
SHIM_S_SRCS	:= $(wildcard shim/*.S)
SHIM_OBJS	:= $(SHIM_C_SRCS:%.c=$(OBJ)/%.o) $(SHIM_S_SRCS:%.S=$(OBJ)/%.o)
SHIM_MAP	:= shim/libadvshim.map
TARGETS		+= $(SHIM_LIB)

# Only the interposers are exported (version script); everything else,
# including the statically linked policy library, stays hidden.
$(SHIM_OBJS): EXTRA_CFLAGS += -fvisibility=hidden
# dlsym is called by the sanitizer runtimes while they initialise (before
# ASan's shadow memory exists): the code on that path is not instrumented.
$(OBJ)/shim/dlsym.o $(OBJ)/shim/real.o: EXTRA_CFLAGS += -fno-sanitize=all

$(OBJ)/%.o: %.S
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -MMD -MP -c -o $@ $<

# The adaptive sampler reads the memory cgroup through common/'s parsers
# (cgroup, cgroup_read, readbuf, memstat, guard) and stamps its log file's
# lines with common/utc: members of $(COMMON_LIB).
$(SHIM_LIB): $(SHIM_OBJS) $(POLICY_LIB) $(COMMON_LIB) $(SHIM_MAP)
	$(CC) $(ALL_LDFLAGS) -shared -Wl,--version-script=$(SHIM_MAP) \
		-Wl,-z,now -Wl,-z,defs -Wl,--exclude-libs,ALL \
		-o $@ $(SHIM_OBJS) $(POLICY_LIB) $(COMMON_LIB) $(CONFIG_LIBS) \
		-ldl -lpthread

# Unit tests, one program per test file, each file named here.
# test_maptable needs only the table and the allocator; the test_shim_*
# programs link the shim's own objects (all but the dlsym interposer), so
# their mmap, madvise, ... are the shim's, plus the helpers they share
# (tests/unit/shim_unit.c).
SHIM_MAPTABLE_TEST := $(BUILD)/tests/test_maptable
SHIM_UNIT_SRCS	:= tests/unit/test_shim_adapt.c \
		   tests/unit/test_shim_advise.c tests/unit/test_shim_dontfork.c \
		   tests/unit/test_shim_files.c tests/unit/test_shim_log.c \
		   tests/unit/test_shim_mapping.c tests/unit/test_shim_stats.c
SHIM_UNIT_PROGS	:= $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(SHIM_UNIT_SRCS))
SHIM_UNIT_TESTS	:= $(SHIM_MAPTABLE_TEST) $(SHIM_UNIT_PROGS)
SHIM_UNIT_OBJS	:= $(filter-out $(OBJ)/shim/dlsym%,$(SHIM_OBJS)) \
		   $(OBJ)/tests/unit/shim_unit.o $(OBJ)/common/smaps.o
TARGETS		+= $(SHIM_UNIT_TESTS)

$(SHIM_MAPTABLE_TEST): $(OBJ)/tests/unit/test_maptable.o $(OBJ)/shim/maptable.o $(OBJ)/shim/slab.o
	$(link_unit)

$(SHIM_UNIT_PROGS): $(BUILD)/tests/%: $(OBJ)/tests/unit/%.o $(SHIM_UNIT_OBJS) $(POLICY_LIB) $(COMMON_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(CONFIG_LIBS) $(CRITERION_LIBS) -ldl -lpthread

# (The integration tests still run the shim under TSan.)
.PHONY: check-shim-unit
CHECK_TARGETS	+= check-shim-unit
CHECK_FAST_TARGETS += check-shim-unit
check-shim-unit: $(SHIM_UNIT_TESTS)
	@$(call criterion,check-shim-unit,$(SHIM_UNIT_TESTS),,2)

# Integration test programs (built with the same flags, sanitizers included).
SHIM_IT_PROGS	:= $(SHIM_ADVPROG) $(SHIM_IT)/errprog $(SHIM_IT)/earlyprog \
		   $(SHIM_IT)/libearly.so $(SHIM_IT)/libwrapnext.so \
		   $(SHIM_IT)/adaptprog $(SHIM_IT)/fdprog $(SHIM_IT)/anonprog
TARGETS		+= $(SHIM_IT_PROGS)

$(SHIM_ADVPROG): $(OBJ)/tests/integration/shim/advprog.o $(OBJ)/common/smaps.o
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ -ldl -lpthread

$(SHIM_IT)/adaptprog: $(OBJ)/tests/integration/shim/adaptprog.o
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ -lpthread

$(SHIM_IT)/anonprog: $(OBJ)/tests/integration/shim/anonprog.o $(OBJ)/common/smaps.o
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $^

$(SHIM_IT)/fdprog: $(OBJ)/tests/integration/shim/fdprog.o
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ -lpthread

$(SHIM_IT)/errprog: $(OBJ)/tests/integration/shim/errprog.o
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ -ldl

$(SHIM_IT)/libearly.so: $(OBJ)/tests/integration/shim/early.o $(OBJ)/common/smaps.o
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -shared -o $@ $^

$(SHIM_IT)/libwrapnext.so: $(OBJ)/tests/integration/shim/wrapnext.o
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -shared -o $@ $^ -ldl

# earlyprog needs libearly.so as a real dependency (DT_NEEDED), found by rpath.
$(SHIM_IT)/earlyprog: $(OBJ)/tests/integration/shim/earlyprog.o $(SHIM_IT)/libearly.so
	$(CC) $(ALL_LDFLAGS) -o $@ $< -L$(SHIM_IT) -Wl,--no-as-needed -learly -Wl,-rpath,'$$ORIGIN'

.PHONY: check-shim
CHECK_TARGETS	+= check-shim
CHECK_FAST_TARGETS += check-shim
check-shim: $(SHIM_LIB) $(SHIM_IT_PROGS) $(CLI_BIN)
	@sh tests/integration/shim/run.sh $(BUILD) "$(SANITIZER)"

# The application's descriptors: closed 0-2, closerange, a reused number,
# a data file on fd 2; level off holds none; the sampler's table.
.PHONY: check-shim-fds
CHECK_TARGETS	+= check-shim-fds
CHECK_FAST_TARGETS += check-shim-fds
check-shim-fds: $(SHIM_LIB) $(SHIM_IT_PROGS)
	@sh tests/integration/shim/fds.sh $(BUILD) "$(SANITIZER)"

# random = "adaptive" in real memory cgroups (root; skipped without a
# memory controller): the sampler's decisions, switches, fork, exec,
# fail-safe, inspect and the log.
.PHONY: check-shim-adaptive
CHECK_TARGETS	+= check-shim-adaptive
CHECK_FAST_TARGETS += check-shim-adaptive
check-shim-adaptive: $(SHIM_LIB) $(SHIM_IT_PROGS) $(CLI_BIN)
	@sh tests/integration/shim/adaptive.sh $(BUILD) "$(SANITIZER)"

# The JVM test: Lucene's FFM route to posix_madvise (tests/integration/java).
.PHONY: check-shim-java
CHECK_TARGETS	+= check-shim-java
CHECK_FAST_TARGETS += check-shim-java
check-shim-java: $(SHIM_LIB)
	@sh tests/integration/java/run.sh $(BUILD) "$(SANITIZER)"
