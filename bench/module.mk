# bench/: overhead and scaling benchmarks (`make bench`), printing ratios
# measured side by side in one run; no pass/fail on timing.
#
# The shim's benchmark programs, each source named here, become
# $(BUILD)/bench/NAME; other components build their own bench programs
# from their fragments (see tools/watch) and add their own bench-* target
# to BENCH_TARGETS.
SHIM_BENCH_SRCS	:= bench/shim_bench.c
SHIM_BENCH_PROGS := $(patsubst bench/%.c,$(BUILD)/bench/%,$(SHIM_BENCH_SRCS))
TARGETS		+= $(SHIM_BENCH_PROGS)

$(SHIM_BENCH_PROGS): $(BUILD)/bench/%: $(OBJ)/bench/%.o
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ -ldl -lpthread

.PHONY: bench-shim
BENCH_TARGETS	+= bench-shim
bench-shim: $(SHIM_BENCH_PROGS) $(SHIM_LIB)
	@sh bench/shim_bench.sh $(BUILD)
