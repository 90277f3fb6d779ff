# tools/adapt: the adaptive advice's lab instruments and unit tests
# adapt-probe measures what a process can see of
# its memory cgroup and its files' residency; adapt-replay runs the
# decision state machine (adapt/adapt.c) over a recorded timeline.
ADAPT_PROBE	:= $(BUILD)/adapt-probe
ADAPT_CG_OBJS	:= $(OBJ)/common/cgroup.o $(OBJ)/common/cgroup_read.o $(OBJ)/common/readbuf.o
TARGETS		+= $(ADAPT_PROBE)

$(ADAPT_PROBE): $(OBJ)/tools/adapt/probe.o $(ADAPT_CG_OBJS)
	$(CC) $(ALL_LDFLAGS) -o $@ $^

# Unit tests (criterion): the decision state machine and the cgroup
# parsers and readers.  Pure code: no kernel needed, fixtures only.
ADAPT_UNIT	:= $(BUILD)/tests/test_adapt $(BUILD)/tests/test_adapt_cgroup
TARGETS		+= $(ADAPT_UNIT)

$(BUILD)/tests/test_adapt: $(OBJ)/tests/unit/test_adapt.o $(OBJ)/adapt/adapt.o
	$(link_unit)

$(BUILD)/tests/test_adapt_cgroup: $(OBJ)/tests/unit/test_adapt_cgroup.o $(ADAPT_CG_OBJS)
	$(link_unit)

.PHONY: check-adapt
CHECK_TARGETS	+= check-adapt
CHECK_FAST_TARGETS += check-adapt
check-adapt: $(ADAPT_UNIT)
	@$(call criterion,check-adapt,$(ADAPT_UNIT),,2)

# adapt-replay: the state machine over a recorded samples.tsv.
ADAPT_REPLAY	:= $(BUILD)/adapt-replay
TARGETS		+= $(ADAPT_REPLAY)

$(ADAPT_REPLAY): $(OBJ)/tools/adapt/replay.o $(OBJ)/adapt/adapt.o $(COMMON_LIB)
	$(CC) $(ALL_LDFLAGS) -o $@ $^
