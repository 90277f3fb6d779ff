# tests/peers/: other projects' own test suites under the shim (issue 18):
# CPython 3.11's regrtest and stress-ng's memory stressors, from Debian's
# packages (mk/deps.sh), run plain and under libadvshim.so (the embedded
# policy, an act-on-everything policy logging to a file, the ASan+UBSan
# build), judged by the suites' own verdicts; README.md.
#
#   make check-peers [PEERS_SECONDS=3] [PEERS_JOBS=2]
PEERS_LEAKFD	:= $(BUILD)/tests/peers/libpeers-leakfd.so
PEERS_FREERAM	:= $(BUILD)/tests/peers/libpeers-freeram.so
TARGETS		+= $(PEERS_LEAKFD) $(PEERS_FREERAM)

# Preloaded without a sanitizer runtime: never instrumented.
$(OBJ)/tests/peers/leakfd.o $(OBJ)/tests/peers/freeram.o: SAN_FLAGS :=
$(PEERS_LEAKFD): $(OBJ)/tests/peers/leakfd.o
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -shared -o $@ $^

$(PEERS_FREERAM): $(OBJ)/tests/peers/freeram.o
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -shared -o $@ $^

.PHONY: check-peers
check-peers: $(PEERS_LEAKFD) $(PEERS_FREERAM) $(SHIM_LIB) $(CLI_BIN) stress-build-asan
	@PEERS_SECONDS=$(PEERS_SECONDS) PEERS_JOBS=$(PEERS_JOBS) \
		nice bash tests/peers/run.sh $(BUILD) $(STRESS_ASAN_BUILD)

PEERS_SECONDS	?= 3
PEERS_JOBS	?= 2
CHECK_TARGETS	+= check-peers
