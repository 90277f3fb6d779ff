# tools/watch: advshim-watch, the lru_gen aging watcher.
#
# Everything but main.c forms a library that the daemon, the CLI (`check`
# validates the watch group), the unit tests and the benchmark share: the
# detector, the settings table and its readers (config group,
# command line, manual lists), and the watcher itself (watch*.c).
WATCH_LIB_SRCS	:= tools/watch/kver.c tools/watch/detector.c \
		   tools/watch/watch_settings.c tools/watch/watch_conf.c \
		   tools/watch/watch_opts.c tools/watch/watch_doc.c \
		   tools/watch/wlog.c tools/watch/watch_state.c \
		   tools/watch/watch.c \
		   tools/watch/watch_read.c \
		   tools/watch/watch_act.c tools/watch/watch_metrics.c \
		   tools/watch/watch_guard.c \
		   tools/watch/watch_replay.c \
		   tools/watch/watch_fs.c
WATCH_LIB_OBJS	:= $(WATCH_LIB_SRCS:%.c=$(OBJ)/%.o)
# Unit tests, one program per test file, each file named here.
WATCH_TEST_SRCS	:= tests/unit/test_watch_conf.c tests/unit/test_watch_daemon.c \
		   tests/unit/test_watch_detector.c \
		   tests/unit/test_watch_kernels.c tests/unit/test_watch_parse.c \
		   tests/unit/test_watch_replay.c \
		   tests/unit/test_watch_settings.c
WATCH_TESTS	:= $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(WATCH_TEST_SRCS))
# Prints the manual pages' generated lists of settings (not installed).
WATCH_MAN_GEN	:= $(BUILD)/tools/watch-man
WATCH_MAN_PAGES	:= tools/watch/advshim-watch.8 docs/man/advshim.conf.5
WATCH_BENCH	:= $(BUILD)/bench/watch_poll

TARGETS		+= $(WATCH_BIN) $(WATCH_TESTS) $(WATCH_PLAYER) $(WATCH_MAN_GEN)
CHECK_TARGETS	+= check-watch
CHECK_FAST_TARGETS += check-watch
BENCH_TARGETS	+= bench-watch

# Made afresh: `ar r` keeps members whose source has moved out.
$(WATCH_LIB): $(WATCH_LIB_OBJS)
	@mkdir -p $(dir $@)
	@rm -f $@
	$(AR) rcs $@ $^

$(WATCH_BIN): $(OBJ)/tools/watch/main.o $(OBJ)/tools/watch/watch_http.o \
		$(WATCH_LIB) $(COMMON_LIB)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(CONFIG_LIBS)

$(WATCH_TESTS): $(BUILD)/tests/%: $(OBJ)/tests/unit/%.o $(WATCH_LIB) $(COMMON_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(CONFIG_LIBS) $(CRITERION_LIBS)

$(WATCH_MAN_GEN): $(OBJ)/tools/watch/watch_man.o $(WATCH_LIB) $(COMMON_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(CONFIG_LIBS)

$(WATCH_PLAYER): $(OBJ)/tests/integration/watch/player.o
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $^

$(WATCH_BENCH): $(OBJ)/bench/watch_poll.o $(WATCH_LIB) $(COMMON_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(CONFIG_LIBS)

.PHONY: check-watch bench-watch watch-man

# The settings' lists in the manual pages, rewritten from the table.
watch-man: $(WATCH_MAN_GEN)
	@sh tools/watch/man-regions.sh update $(WATCH_MAN_GEN) $(WATCH_MAN_PAGES)

# Unit tests, then the real binary against played fixture timelines, then
# the man page lint and the settings' lists in the pages.  Each part runs
# even when an earlier one failed.
check-watch: $(WATCH_BIN) $(WATCH_TESTS) $(WATCH_PLAYER) $(WATCH_MAN_GEN)
	@rc=0; \
	$(call criterion,check-watch,$(WATCH_TESTS)) || rc=1; \
	sh tests/integration/watch/run.sh $(BUILD) || rc=1; \
	sh tools/watch/check-man.sh || rc=1; \
	sh tools/watch/man-regions.sh check $(WATCH_MAN_GEN) \
		$(WATCH_MAN_PAGES) || rc=1; \
	sh tools/watch/check-unit.sh $(BUILD) || rc=1; \
	exit $$rc

bench-watch: $(WATCH_BENCH) $(WATCH_BIN)
	@sh tools/watch/bench.sh $(BUILD)
