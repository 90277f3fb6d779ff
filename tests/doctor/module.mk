# tests/doctor: `advshim doctor` (tools/cli/cmd_doctor.c, doctor_*.c).
# Unit tests of its pure parts (ELF classification, the series rule, the
# kernel facts read from a tree of captured text, verdicts and remedies),
# then run.sh: the real binary on real processes of this host (dynamic,
# static, Go, under the shim, as nobody) and on trees of the lab's
# captured kernel text (tests/fixtures/kernels) fed through FIFOs.
DOCTOR_TEST_SRCS := tests/doctor/test_doctor.c
DOCTOR_TEST	:= $(BUILD)/tests/test_doctor
DOCTOR_OBJS	:= $(patsubst %.c,$(OBJ)/%.o,$(wildcard tools/cli/doctor_*.c)) \
		   $(OBJ)/tools/cli/shimstats.o $(OBJ)/tools/cli/cli_proc.o
DOCTOR_PROGS	:= $(BUILD)/tests/doctor/rrprog $(BUILD)/tests/doctor/rrprog-static
TARGETS		+= $(DOCTOR_TEST) $(DOCTOR_PROGS)

$(DOCTOR_TEST): $(DOCTOR_TEST_SRCS:%.c=$(OBJ)/%.o) $(DOCTOR_OBJS) $(WATCH_LIB) $(POLICY_LIB) $(COMMON_LIB)
	$(link_unit)

# Test programs without sanitizers: the static one cannot link them, and
# what doctor reads of both must be the plain program's.
$(BUILD)/tests/doctor/rrprog: tests/doctor/rrprog.c
	@mkdir -p $(dir $@)
	$(CC) $(BASE_CFLAGS) $(CFLAGS) -o $@ $<

$(BUILD)/tests/doctor/rrprog-static: tests/doctor/rrprog.c
	@mkdir -p $(dir $@)
	$(CC) $(BASE_CFLAGS) $(CFLAGS) -static -o $@ $<

.PHONY: check-doctor
CHECK_TARGETS	+= check-doctor
CHECK_FAST_TARGETS += check-doctor
check-doctor: $(DOCTOR_TEST) $(DOCTOR_PROGS) $(CLI_BIN) $(SHIM_LIB)
	@rc=0; \
	DOCTOR_BUILD=$(BUILD) $(call criterion,check-doctor,$(DOCTOR_TEST)) || rc=1; \
	sh tests/doctor/run.sh $(BUILD) || rc=1; \
	exit $$rc
