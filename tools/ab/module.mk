# tools/ab: advshim-ab, the A/B comparison of advice strategies.
AB_SRCS		:= $(wildcard tools/ab/*.c)
AB_OBJS		:= $(AB_SRCS:%.c=$(OBJ)/%.o)
AB_LIB_OBJS	:= $(filter-out $(OBJ)/tools/ab/main.o,$(AB_OBJS))
AB_BIN		:= $(BUILD)/advshim-ab
TARGETS		+= $(AB_BIN)

# An installed advshim-ab finds the library and the watcher where
# `make install` puts them (a build tree keeps them next to it).
$(OBJ)/tools/ab/main.o: EXTRA_CFLAGS += -DADVSHIM_LIBDIR='"$(LIBDIR)"' \
	-DADVSHIM_SBINDIR='"$(SBINDIR)"'

$(AB_BIN): $(AB_OBJS) $(POLICY_LIB) $(COMMON_LIB)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(CONFIG_LIBS) -lm

# Unit tests: experiment parser, output parsers, summaries (the kernel-text
# parsers are common/'s: check-common).
AB_TEST_SRCS	:= tests/unit/test_ab_exp.c tests/unit/test_ab_outparse.c \
		   tests/unit/test_ab_summary.c
AB_TEST_OBJS	:= $(AB_TEST_SRCS:%.c=$(OBJ)/%.o)
AB_UNIT		:= $(BUILD)/tests/test_ab
$(AB_UNIT): $(AB_TEST_OBJS) $(AB_LIB_OBJS) $(POLICY_LIB) $(COMMON_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(CONFIG_LIBS) $(CRITERION_LIBS) -lm

# check-ab: unit tests (fixtures under tests/fixtures/ab), then a short
# two-arm experiment on this machine (root, a memory controller and
# build/libadvshim.so needed; the script says loudly what is missing).
# Under ASan the preloaded shim comes before the ASan runtime in the
# workloads; verify_asan_link_order=0 lets that run (ab passes it on).
.PHONY: check-ab
CHECK_TARGETS	+= check-ab
check-ab: $(AB_UNIT) $(AB_BIN) $(LOAD_BIN)
	@case "$(SANITIZER)" in *thread*) \
		echo "check-ab: criterion cannot run under TSan; unit tests SKIPPED" >&2 ;; \
	*) cd tests/fixtures/ab && $(abspath $(AB_UNIT)) --jobs 1 ;; esac
	@case "$(SANITIZER)" in *thread*) \
		echo "check-ab: TSan's shadow memory is charged to the test memcgs and the shim cannot be preloaded into TSan programs: integration run SKIPPED (advshim-ab is single-threaded; check-load covers advshim-load under TSan)" >&2 ;; \
	*) UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	   ASAN_OPTIONS=verify_asan_link_order=0 \
		sh tests/integration/ab/test_ab.sh $(BUILD) ;; esac
