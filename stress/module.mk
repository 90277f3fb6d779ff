# stress/: advshim-stress under the shim with ASan+UBSan and with TSan,
# the JVM under the shim, fork and mremap races.
#
#   make stress [STRESS_SECONDS=60] [STRESS_THREADS=32]
#   make check-stress      the same for 10 s, plus a plain control run
#
# The sanitizer builds are separate trees (STRESS_ASAN_BUILD, default
# build-asan: `make BUILD=build-asan SANITIZER=address,undefined`; and
# build-tsan with SANITIZER=thread): shim and program built alike.
STRESS_SECONDS	?= 60
STRESS_CHECK_SECONDS ?= 10
STRESS_THREADS	?= 32
STRESS_ASAN_BUILD ?= build-asan
STRESS_TSAN_BUILD ?= build-tsan
CLEAN_EXTRA	+= $(STRESS_ASAN_BUILD) $(STRESS_TSAN_BUILD)
STRESS_BIN	:= $(BUILD)/stress/advshim-stress
FORK_LOCK_BIN	:= $(BUILD)/stress/advshim-fork-lock
REMAP_RACE_BIN	:= $(BUILD)/stress/advshim-remap-race
REMAP_WIN_BIN	:= $(BUILD)/stress/advshim-remap-window
REMAP_WIN_LIB	:= $(BUILD)/stress/libadvshim-remapwindow.so
ADAPT_RACE_BIN	:= $(BUILD)/stress/advshim-adapt-race
ADAPT_WIN_LIB	:= $(BUILD)/stress/libadvshim-adaptwindow.so
TARGETS		+= $(STRESS_BIN) $(FORK_LOCK_BIN) $(REMAP_RACE_BIN) \
		   $(REMAP_WIN_BIN) $(REMAP_WIN_LIB) $(ADAPT_RACE_BIN) \
		   $(ADAPT_WIN_LIB)

# The adaptive sampler's switches against the application's calls.
$(ADAPT_RACE_BIN): $(OBJ)/stress/adapt_race.o $(OBJ)/common/smaps.o
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ -lpthread

# Each application madvise delayed: the switch race's window made wide.
$(ADAPT_WIN_LIB): $(OBJ)/stress/adapt_window_lib.o
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -shared -o $@ $^

$(STRESS_BIN): $(OBJ)/stress/stress.o $(OBJ)/common/smaps.o
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ -lpthread -ldl

$(FORK_LOCK_BIN): $(OBJ)/stress/fork_lock.o
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ -lpthread

$(REMAP_RACE_BIN): $(OBJ)/stress/remap_race.o $(OBJ)/common/smaps.o
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ -lpthread

# -rdynamic: the preloaded library finds remap_window_hook by dlsym.
$(REMAP_WIN_BIN): $(OBJ)/stress/remap_window.o $(OBJ)/common/smaps.o
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -rdynamic -o $@ $^ -ldl

$(REMAP_WIN_LIB): $(OBJ)/stress/remap_window_lib.o
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -shared -o $@ $^ -ldl

.PHONY: stress check-stress stress-build-asan stress-build-tsan
# The shim and the stress program, built in the sanitizer trees.
STRESS_SAN_ARTIFACTS := $(SHIM_LIB) $(STRESS_BIN) $(ADAPT_RACE_BIN)
stress-build-asan:
	@$(MAKE) --no-print-directory BUILD=$(STRESS_ASAN_BUILD) \
		SANITIZER=address,undefined \
		$(patsubst $(BUILD)/%,$(STRESS_ASAN_BUILD)/%,$(STRESS_SAN_ARTIFACTS))

stress-build-tsan:
	@$(MAKE) --no-print-directory BUILD=$(STRESS_TSAN_BUILD) \
		SANITIZER=thread \
		$(patsubst $(BUILD)/%,$(STRESS_TSAN_BUILD)/%,$(STRESS_SAN_ARTIFACTS))

# Each part runs even when an earlier one failed; any failure fails.
stress: $(STRESS_BIN) $(FORK_LOCK_BIN) $(REMAP_RACE_BIN) $(REMAP_WIN_BIN) \
	$(REMAP_WIN_LIB) $(ADAPT_RACE_BIN) $(ADAPT_WIN_LIB) $(SHIM_LIB) stress-build-asan stress-build-tsan
	@rc=0; \
	sh stress/fork_lock.sh $(BUILD) 2000 || rc=1; \
	sh stress/remap_race.sh $(BUILD) $(STRESS_SECONDS) || rc=1; \
	sh stress/run.sh $(STRESS_ASAN_BUILD) asan $(STRESS_SECONDS) $(STRESS_THREADS) || rc=1; \
	sh stress/run.sh $(STRESS_TSAN_BUILD) tsan $(STRESS_SECONDS) $(STRESS_THREADS) || rc=1; \
	sh stress/adapt_race.sh $(BUILD) plain $(STRESS_SECONDS) || rc=1; \
	sh stress/adapt_race.sh $(BUILD) window $(STRESS_SECONDS) || rc=1; \
	sh stress/adapt_race.sh $(STRESS_ASAN_BUILD) asan $(STRESS_SECONDS) || rc=1; \
	sh stress/adapt_race.sh $(STRESS_TSAN_BUILD) tsan $(STRESS_SECONDS) || rc=1; \
	sh stress/java/run.sh $(BUILD) $(STRESS_SECONDS) || rc=1; \
	exit $$rc

check-stress: $(STRESS_BIN) $(FORK_LOCK_BIN) $(REMAP_RACE_BIN) $(REMAP_WIN_BIN) \
	$(REMAP_WIN_LIB) $(ADAPT_RACE_BIN) $(ADAPT_WIN_LIB) $(SHIM_LIB) stress-build-asan stress-build-tsan
	@rc=0; \
	sh stress/fork_lock.sh $(BUILD) 300 || rc=1; \
	sh stress/remap_race.sh $(BUILD) $(STRESS_CHECK_SECONDS) || rc=1; \
	sh stress/run.sh $(BUILD) control 3 8 || rc=1; \
	sh stress/run.sh $(STRESS_ASAN_BUILD) asan $(STRESS_CHECK_SECONDS) $(STRESS_THREADS) || rc=1; \
	sh stress/run.sh $(STRESS_TSAN_BUILD) tsan $(STRESS_CHECK_SECONDS) $(STRESS_THREADS) || rc=1; \
	sh stress/adapt_race.sh $(BUILD) plain $(STRESS_CHECK_SECONDS) || rc=1; \
	sh stress/adapt_race.sh $(BUILD) window $(STRESS_CHECK_SECONDS) || rc=1; \
	sh stress/adapt_race.sh $(STRESS_ASAN_BUILD) asan $(STRESS_CHECK_SECONDS) || rc=1; \
	sh stress/adapt_race.sh $(STRESS_TSAN_BUILD) tsan $(STRESS_CHECK_SECONDS) || rc=1; \
	sh stress/java/run.sh $(BUILD) $(STRESS_CHECK_SECONDS) || rc=1; \
	exit $$rc

CHECK_TARGETS	+= check-stress
