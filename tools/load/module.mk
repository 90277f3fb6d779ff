# tools/load: advshim-load, the Lucene/HNSW-like workload generator.
# Depends on libc and pthreads only (it runs inside the lab's busybox VM).
LOAD_SRCS	:= $(wildcard tools/load/*.c)
LOAD_OBJS	:= $(LOAD_SRCS:%.c=$(OBJ)/%.o)
LOAD_LIB_OBJS	:= $(filter-out $(OBJ)/tools/load/main.o,$(LOAD_OBJS))
LOAD_BIN	:= $(BUILD)/advshim-load
TARGETS		+= $(LOAD_BIN)

$(LOAD_BIN): $(LOAD_OBJS)
	$(CC) $(ALL_LDFLAGS) -pthread -o $@ $^ -lm

$(OBJ)/tools/load/%.o: EXTRA_CFLAGS += -pthread

# Unit tests: the zipf sampler and the latency histogram.
LOAD_UNIT	:= $(BUILD)/tests/test_load
$(LOAD_UNIT): $(OBJ)/tests/unit/test_load_zipf.o $(OBJ)/tests/unit/test_load_hist.o \
	      $(LOAD_LIB_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -pthread -o $@ $^ $(CRITERION_LIBS) -lm

.PHONY: check-load
CHECK_TARGETS	+= check-load
# Criterion's boxfort arena cannot be mapped under TSan: with
# SANITIZER=thread only the (threaded) binary is tested, and that is said.
# The integration test reads VmFlags through `advshim inspect`.
check-load: $(LOAD_UNIT) $(LOAD_BIN) $(BUILD)/advshim
	@case "$(SANITIZER)" in *thread*) \
		echo "check-load: criterion cannot run under TSan; unit tests SKIPPED" >&2 ;; \
	*) $(LOAD_UNIT) --jobs 1 ;; esac
	UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 TSAN_OPTIONS=halt_on_error=1 \
		sh tests/integration/ab/test_load.sh $(LOAD_BIN) $(BUILD)/advshim
