# policy/: config parsing, glob matching, advice names (libadvpolicy.a).
# Linked into libadvshim.so and the tools; needs $(CONFIG_LIBS).
POLICY_SRCS	:= $(wildcard policy/*.c)
# The libconfig checks the parser reports through (common/confcheck.c) go
# into the archive too: libadvshim.so links this archive alone.
POLICY_OBJS	:= $(POLICY_SRCS:%.c=$(OBJ)/%.o) $(OBJ)/common/confcheck.o
POLICY_LIB	:= $(BUILD)/libadvpolicy.a

$(POLICY_LIB): $(POLICY_OBJS)
	@mkdir -p $(dir $@)
	$(AR) rcs $@ $^

# Unit tests: every tests/unit/test_policy*.c and test_glob*.c in one binary.
POLICY_TEST_SRCS := $(sort $(wildcard tests/unit/test_policy*.c tests/unit/test_glob*.c))
POLICY_TEST_OBJS := $(POLICY_TEST_SRCS:%.c=$(OBJ)/%.o)
POLICY_TEST	:= $(BUILD)/tests/test_policy

$(POLICY_TEST): $(POLICY_TEST_OBJS) $(POLICY_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(CONFIG_LIBS) $(CRITERION_LIBS)

# check-policy: the unit tests, then the CLI scripts against build/advshim.
# Criterion runs each test in a child whose sanitizer reports (leaks
# included) do not fail the test, so a report in the output fails here.
# Criterion cannot start under TSan at all (its arena mapping collides
# with TSan's shadow: Snaipe/Criterion#274), so there the unit tests are
# skipped, loudly; the CLI scripts still run the TSan-built binary.
.PHONY: check-policy
check-policy: $(POLICY_TEST) $(BUILD)/advshim
ifneq ($(findstring thread,$(SANITIZER)),)
	@echo "check-policy: SKIPPED $(POLICY_TEST): criterion cannot run" \
		"under SANITIZER=thread (Snaipe/Criterion#274)"
else
	@$(POLICY_TEST) --jobs=2 >$(BUILD)/tests/test_policy.log 2>&1; \
	st=$$?; cat $(BUILD)/tests/test_policy.log; \
	if grep -q 'ERROR: [A-Za-z]*Sanitizer\|runtime error:' \
		$(BUILD)/tests/test_policy.log; then \
		echo "test_policy: sanitizer report above"; exit 1; fi; \
	exit $$st
endif
	sh tests/integration/cli/run.sh $(BUILD)/advshim tests/fixtures/policy

CHECK_TARGETS	+= check-policy
