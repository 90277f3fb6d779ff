# tools/ab: advshim-ab, the A/B comparison of advice strategies.
AB_SRCS		:= $(wildcard tools/ab/*.c)
AB_OBJS		:= $(AB_SRCS:%.c=$(OBJ)/%.o)
AB_LIB_OBJS	:= $(filter-out $(OBJ)/tools/ab/main.o,$(AB_OBJS))
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
TARGETS		+= $(AB_UNIT)
$(AB_UNIT): $(AB_TEST_OBJS) $(AB_LIB_OBJS) $(POLICY_LIB) $(COMMON_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(CONFIG_LIBS) $(CRITERION_LIBS) -lm

# check-ab: the unit tests (check-ab-unit: fixtures under tests/fixtures/ab,
# part of check-fast), then (check-ab-host) a short two-arm experiment on
# this machine, under a minute but not part of check-fast (root, a memory
# controller and the shim needed; the script says loudly what is missing).  Under ASan the
# preloaded shim comes before the ASan runtime in the workloads;
# verify_asan_link_order=0 lets that run (ab passes it on).
.PHONY: check-ab check-ab-unit check-ab-host
CHECK_TARGETS	+= check-ab
CHECK_FAST_TARGETS += check-ab-unit
check-ab: check-ab-unit
	@$(MAKE) --no-print-directory check-ab-host

check-ab-unit: $(AB_UNIT)
	@$(call criterion,check-ab-unit,$(AB_UNIT),tests/fixtures/ab)

check-ab-host: $(AB_BIN) $(LOAD_BIN) $(SHIM_LIB)
	@case "$(SANITIZER)" in *thread*) \
		echo "check-ab: TSan's shadow memory is charged to the test memcgs and the shim cannot be preloaded into TSan programs: integration run SKIPPED (advshim-ab is single-threaded; check-load covers advshim-load under TSan)" >&2 ;; \
	*) UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	   ASAN_OPTIONS=verify_asan_link_order=0 \
		sh tests/integration/ab/test_ab.sh $(BUILD) ;; esac
