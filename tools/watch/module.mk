# tools/watch: advshim-watch, the lru_gen aging watcher (issue 3).
#
# The parsers, the detector and the config reader form a library that the
# daemon, the unit tests and the benchmark share; the daemon's own files
# (main.c, watch.c, ...) only do I/O and policy around it.
WATCH_LIB_SRCS	:= tools/watch/kver.c tools/watch/detector.c \
		   tools/watch/watch_conf.c tools/watch/wlog.c \
		   tools/watch/watch.c tools/watch/watch_fs.c
WATCH_LIB_OBJS	:= $(WATCH_LIB_SRCS:%.c=$(OBJ)/%.o)
WATCH_LIB	:= $(BUILD)/libadvwatch.a
WATCH_BIN	:= $(BUILD)/advshim-watch
WATCH_TESTS	:= $(patsubst tests/unit/%.c,$(BUILD)/tests/%,\
		   $(wildcard tests/unit/test_watch*.c))
WATCH_PLAYER	:= $(BUILD)/tests/watch_player
WATCH_BENCH	:= $(BUILD)/bench/watch_poll

TARGETS		+= $(WATCH_BIN)
CHECK_TARGETS	+= check-watch
BENCH_TARGETS	+= bench-watch

# Made afresh: `ar r` keeps members whose source has moved out.
$(WATCH_LIB): $(WATCH_LIB_OBJS)
	@mkdir -p $(dir $@)
	@rm -f $@
	$(AR) rcs $@ $^

$(WATCH_BIN): $(OBJ)/tools/watch/main.o $(WATCH_LIB) $(COMMON_LIB)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(CONFIG_LIBS)

$(BUILD)/tests/test_watch%: $(OBJ)/tests/unit/test_watch%.o $(WATCH_LIB) \
			    $(COMMON_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(CONFIG_LIBS) $(CRITERION_LIBS)

$(WATCH_PLAYER): $(OBJ)/tests/integration/watch/player.o
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $^

$(WATCH_BENCH): $(OBJ)/bench/watch_poll.o $(WATCH_LIB) $(COMMON_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(CONFIG_LIBS)

.PHONY: check-watch bench-watch

# Unit tests, then the real binary against played fixture timelines, then
# the man page lint.  Each part runs even when an earlier one failed.
check-watch: $(WATCH_BIN) $(WATCH_TESTS) $(WATCH_PLAYER)
	@rc=0; \
	for t in $(WATCH_TESTS); do \
		echo "--- $$t"; $$t --jobs=1 || rc=1; \
	done; \
	sh tests/integration/watch/run.sh $(BUILD) || rc=1; \
	sh tools/watch/check-man.sh || rc=1; \
	sh tools/watch/check-unit.sh $(BUILD) || rc=1; \
	exit $$rc

bench-watch: $(WATCH_BENCH) $(WATCH_BIN)
	@sh tools/watch/bench.sh $(BUILD)
