# tools/load: advshim-load, the Lucene/HNSW-like workload generator.
# Depends on libc and pthreads only (it runs inside the lab's busybox VM);
# common/optdoc.c comes in from the static $(COMMON_LIB).
LOAD_SRCS	:= $(wildcard tools/load/*.c)
LOAD_OBJS	:= $(LOAD_SRCS:%.c=$(OBJ)/%.o)
LOAD_LIB_OBJS	:= $(filter-out $(OBJ)/tools/load/main.o,$(LOAD_OBJS))
TARGETS		+= $(LOAD_BIN)

$(LOAD_BIN): $(LOAD_OBJS) $(COMMON_LIB)
	$(CC) $(ALL_LDFLAGS) -pthread -o $@ $^ -lm

$(OBJ)/tools/load/%.o: EXTRA_CFLAGS += -pthread

# Unit tests: the zipf sampler and the latency histogram.
LOAD_TEST_SRCS	:= tests/unit/test_load_hist.c tests/unit/test_load_zipf.c
LOAD_UNIT	:= $(BUILD)/tests/test_load
TARGETS		+= $(LOAD_UNIT)
$(LOAD_UNIT): $(LOAD_TEST_SRCS:%.c=$(OBJ)/%.o) $(LOAD_LIB_OBJS) $(COMMON_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -pthread -o $@ $^ $(CRITERION_LIBS) -lm

.PHONY: check-load
CHECK_TARGETS	+= check-load
CHECK_FAST_TARGETS += check-load
# The unit tests, then the (threaded) binary, under TSan too.  The
# integration test reads VmFlags through `advshim inspect`.
check-load: $(LOAD_UNIT) $(LOAD_BIN) $(CLI_BIN)
	@$(call criterion,check-load,$(LOAD_UNIT))
	UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 TSAN_OPTIONS=halt_on_error=1 \
		sh tests/integration/ab/test_load.sh $(LOAD_BIN) $(CLI_BIN)
