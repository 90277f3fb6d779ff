# policy/: config parsing, glob matching, advice names (libadvpolicy.a).
# Linked into libadvshim.so and the tools; needs $(CONFIG_LIBS).
POLICY_SRCS	:= $(wildcard policy/*.c)
# The libconfig checks the parser reports through (common/confcheck.c) go
# into the archive too: libadvshim.so links this archive alone.  So does
# the adaptive advice's state machine (adapt/adapt.c, pure): the parser
# checks the `adaptive` group with its adapt_params_check(), and the shim
# gets it from here.  adapt/ is a leaf: it includes nothing of the project.
POLICY_OBJS	:= $(POLICY_SRCS:%.c=$(OBJ)/%.o) $(OBJ)/common/confcheck.o \
		   $(OBJ)/adapt/adapt.o

$(POLICY_LIB): $(POLICY_OBJS)
	@mkdir -p $(dir $@)
	$(AR) rcs $@ $^

# Unit tests, one binary; each test file is named here.
POLICY_TEST_SRCS := tests/unit/test_glob.c tests/unit/test_glob_fuzz.c \
		    tests/unit/test_policy.c tests/unit/test_policy_errors.c
POLICY_TEST_OBJS := $(POLICY_TEST_SRCS:%.c=$(OBJ)/%.o)
POLICY_TEST	:= $(BUILD)/tests/test_policy
TARGETS		+= $(POLICY_TEST)

$(POLICY_TEST): $(POLICY_TEST_OBJS) $(POLICY_LIB)
	$(link_unit)

# check-policy: the unit tests, then the CLI scripts against the advshim
# command (they still run the binary under TSan, where criterion cannot).
.PHONY: check-policy
check-policy: $(POLICY_TEST) $(CLI_BIN)
	@$(call criterion,check-policy,$(POLICY_TEST),,2)
	sh tests/integration/cli/run.sh $(CLI_BIN) tests/fixtures/policy

CHECK_TARGETS	+= check-policy
CHECK_FAST_TARGETS += check-policy
