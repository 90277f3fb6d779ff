# tools/watch: advshim-watch, the lru_gen aging watcher (issue 3).
# Step 2: parsers, detector, config reader and their unit tests.
WATCH_LIB_SRCS	:= tools/watch/lrugen.c tools/watch/memstat.c tools/watch/kver.c \
		   tools/watch/detector.c tools/watch/watch_conf.c
WATCH_LIB_OBJS	:= $(WATCH_LIB_SRCS:%.c=$(OBJ)/%.o)
WATCH_LIB	:= $(BUILD)/libadvwatch.a
WATCH_TESTS	:= $(BUILD)/tests/test_watch_parse $(BUILD)/tests/test_watch_detector \
		   $(BUILD)/tests/test_watch_conf

CHECK_TARGETS	+= check-watch

$(WATCH_LIB): $(WATCH_LIB_OBJS)
	@mkdir -p $(dir $@)
	$(AR) rcs $@ $^

$(BUILD)/tests/test_watch%: $(OBJ)/tests/unit/test_watch%.o $(WATCH_LIB) \
			    $(COMMON_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(CONFIG_LIBS) $(CRITERION_LIBS)

.PHONY: check-watch
check-watch: $(WATCH_TESTS)
	@rc=0; for t in $(WATCH_TESTS); do $$t --jobs=1 || rc=1; done; exit $$rc
