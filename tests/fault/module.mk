# tests/fault/: fault injection for the shim (failing allocator, failing
# calls) and for the watcher (failing reads and writes of kernel files).
#
#   make check-fault
FAULT_CALLS	:= $(BUILD)/tests/fault/advshim-fault-calls
FAULT_MALLOC	:= $(BUILD)/tests/fault/libadvshim-failmalloc.so
FAULT_WATCH	:= $(BUILD)/tests/fault/libadvshim-watchfault.so
TARGETS		+= $(FAULT_CALLS) $(FAULT_MALLOC) $(FAULT_WATCH)

$(FAULT_CALLS): $(OBJ)/tests/fault/calls.o $(OBJ)/common/smaps.o
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ -ldl

# The failing allocator must not be instrumented (it is the allocator).
$(OBJ)/tests/fault/failmalloc.o: SAN_FLAGS :=
$(FAULT_MALLOC): $(OBJ)/tests/fault/failmalloc.o
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -shared -o $@ $^

$(OBJ)/tests/fault/watchfault.o: SAN_FLAGS :=
$(FAULT_WATCH): $(OBJ)/tests/fault/watchfault.o
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -shared -o $@ $^

.PHONY: check-fault
check-fault: $(FAULT_CALLS) $(FAULT_MALLOC) $(FAULT_WATCH) $(SHIM_LIB) \
	     $(WATCH_BIN) $(WATCH_PLAYER)
	@rc=0; \
	sh tests/fault/run_shim.sh $(BUILD) || rc=1; \
	FAULT_POLICY=adaptive sh tests/fault/run_shim.sh $(BUILD) || rc=1; \
	sh tests/fault/run_watch.sh $(BUILD) || rc=1; \
	exit $$rc

CHECK_TARGETS	+= check-fault
