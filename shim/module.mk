# shim/: libadvshim.so, the LD_PRELOAD library, its unit and integration tests.
SHIM_C_SRCS	:= $(wildcard shim/*.c)
SHIM_S_SRCS	:= $(wildcard shim/*.S)
SHIM_OBJS	:= $(SHIM_C_SRCS:%.c=$(OBJ)/%.o) $(SHIM_S_SRCS:%.S=$(OBJ)/%.o)
SHIM_LIB	:= $(BUILD)/libadvshim.so
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

$(SHIM_LIB): $(SHIM_OBJS) $(POLICY_LIB) $(SHIM_MAP)
	$(CC) $(ALL_LDFLAGS) -shared -Wl,--version-script=$(SHIM_MAP) \
		-Wl,-z,now -Wl,-z,defs -Wl,--exclude-libs,ALL \
		-o $@ $(SHIM_OBJS) $(POLICY_LIB) $(CONFIG_LIBS) -ldl -lpthread

# Unit tests, listed by name: a renamed or deleted test file breaks the
# build instead of silently dropping its tests.  test_maptable needs only
# the table and the allocator; the test_shim_* programs link the shim's
# own objects (all but the dlsym interposer), so their mmap, madvise, ...
# are the shim's, plus the helpers they share (tests/unit/shim_unit.c).
SHIM_UNIT_NAMES	:= test_maptable test_shim_advise test_shim_mapping \
		   test_shim_files test_shim_dontfork
SHIM_UNIT_TESTS	:= $(SHIM_UNIT_NAMES:%=$(BUILD)/tests/%)
SHIM_UNIT_OBJS	:= $(filter-out $(OBJ)/shim/dlsym%,$(SHIM_OBJS)) \
		   $(OBJ)/tests/unit/shim_unit.o $(OBJ)/common/smaps.o
TARGETS		+= $(SHIM_UNIT_TESTS)

$(BUILD)/tests/test_maptable: $(OBJ)/tests/unit/test_maptable.o $(OBJ)/shim/maptable.o $(OBJ)/shim/slab.o
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(CRITERION_LIBS)

$(BUILD)/tests/test_shim_%: $(OBJ)/tests/unit/test_shim_%.o $(SHIM_UNIT_OBJS) $(POLICY_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(CONFIG_LIBS) $(CRITERION_LIBS) -ldl -lpthread

.PHONY: check-shim-unit
CHECK_TARGETS	+= check-shim-unit
# Criterion hides sanitizer reports from its test children, so a report in
# the output fails the target; it cannot start under TSan at all
# (Snaipe/Criterion#274): skipped there, loudly (the integration tests
# still run the TSan-built shim).
check-shim-unit: $(SHIM_UNIT_TESTS)
ifneq ($(findstring thread,$(SANITIZER)),)
	@echo "check-shim-unit: SKIPPED $(SHIM_UNIT_TESTS): criterion cannot run" \
		"under SANITIZER=thread (Snaipe/Criterion#274)"
else
	@set -e; for t in $(SHIM_UNIT_TESTS); do \
		$$t --jobs=2 >$$t.log 2>&1 || { cat $$t.log; exit 1; }; cat $$t.log; \
		if grep -q 'ERROR: [A-Za-z]*Sanitizer\|runtime error:' $$t.log; then \
			echo "$$t: sanitizer report above"; exit 1; fi; \
	done
endif

# Integration test programs (built with the same flags, sanitizers included).
SHIM_IT		:= $(BUILD)/tests/shim
SHIM_IT_PROGS	:= $(SHIM_IT)/advprog $(SHIM_IT)/errprog $(SHIM_IT)/earlyprog \
		   $(SHIM_IT)/libearly.so $(SHIM_IT)/libwrapnext.so
TARGETS		+= $(SHIM_IT_PROGS)

$(SHIM_IT)/advprog: $(OBJ)/tests/integration/shim/advprog.o $(OBJ)/common/smaps.o
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ -ldl -lpthread

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
check-shim: $(SHIM_LIB) $(SHIM_IT_PROGS) $(BUILD)/advshim
	@sh tests/integration/shim/run.sh $(BUILD) "$(SANITIZER)"

# The JVM test: Lucene's FFM route to posix_madvise (tests/integration/java).
.PHONY: check-shim-java
CHECK_TARGETS	+= check-shim-java
check-shim-java: $(SHIM_LIB)
	@sh tests/integration/java/run.sh $(BUILD) "$(SANITIZER)"
