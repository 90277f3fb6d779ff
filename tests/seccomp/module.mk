# tests/seccomp: `advshim run --seccomp` (tools/cli/seccomp_*.c) on real
# programs: the static probe built here, a multi-threaded Go program that
# forks (tests/seccomp/gofork, built offline by run.sh when go is there)
# and tools/programs' advshim-bolt (bbolt).  run.sh says what each case
# judges; bench.sh is `make bench-seccomp`.
# $(SECCOMP_PROBE) is named in mk/paths.mk (packaging's check-examples
# runs it as the etcd drop-in's stand-in).
TARGETS		+= $(SECCOMP_PROBE)

# Static and without sanitizers: the point is a program no preload reaches.
$(SECCOMP_PROBE): tests/seccomp/probe.c
	@mkdir -p $(dir $@)
	$(CC) $(BASE_CFLAGS) $(CFLAGS) -static -o $@ $<

# Unit tests of the supervisor's lookups and decisions on this process's
# own mappings (tools/cli's seccomp objects, no filter involved).
SECCOMP_TEST_SRCS := tests/seccomp/test_seccomp.c
SECCOMP_TEST	:= $(BUILD)/tests/test_seccomp
SECCOMP_OBJS	:= $(OBJ)/tools/cli/seccomp_decide.o $(OBJ)/tools/cli/seccomp_target.o \
		   $(OBJ)/tools/cli/seccomp_filter.o $(OBJ)/tools/cli/seccomp_sample.o \
		   $(OBJ)/tools/cli/seccomp_count.o
TARGETS		+= $(SECCOMP_TEST)

$(SECCOMP_TEST): $(SECCOMP_TEST_SRCS:%.c=$(OBJ)/%.o) $(SECCOMP_OBJS) $(POLICY_LIB) $(COMMON_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(CONFIG_LIBS) $(CRITERION_LIBS)

.PHONY: check-seccomp bench-seccomp
CHECK_TARGETS	+= check-seccomp
CHECK_FAST_TARGETS += check-seccomp
check-seccomp: $(SECCOMP_TEST) $(SECCOMP_PROBE) $(CLI_BIN)
	@rc=0; \
	$(call criterion,check-seccomp,$(SECCOMP_TEST)) || rc=1; \
	sh tests/seccomp/run.sh $(BUILD) || rc=1; \
	exit $$rc

BENCH_TARGETS	+= bench-seccomp
bench-seccomp: $(SECCOMP_PROBE) $(CLI_BIN)
	@sh tests/seccomp/bench.sh $(BUILD)
