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

.PHONY: check-seccomp bench-seccomp
CHECK_TARGETS	+= check-seccomp
CHECK_FAST_TARGETS += check-seccomp
check-seccomp: $(SECCOMP_PROBE) $(CLI_BIN)
	@sh tests/seccomp/run.sh $(BUILD)

BENCH_TARGETS	+= bench-seccomp
bench-seccomp: $(SECCOMP_PROBE) $(CLI_BIN)
	@sh tests/seccomp/bench.sh $(BUILD)
