# common/: the one reader of each kernel file advshim parses (lru_gen,
# memory.stat, io.stat, /proc/PID/io, smaps), residency, whole-file reads,
# JSON strings, UTC timestamps and command-line options, shared by the tools and the tests.  Every .c here is
# part of the library.
COMMON_SRCS	:= $(wildcard common/*.c)
COMMON_OBJS	:= $(COMMON_SRCS:%.c=$(OBJ)/%.o)

# Made afresh: `ar r` would keep members of removed sources.
$(COMMON_LIB): $(COMMON_OBJS)
	@mkdir -p $(dir $@)
	@rm -f $@
	$(AR) rcs $@ $^

# Unit tests, one binary; each test file is named here.
COMMON_TEST_SRCS := tests/unit/test_common_guard.c \
		    tests/unit/test_common_iostat.c \
		    tests/unit/test_common_json.c \
		    tests/unit/test_common_lrugen.c \
		    tests/unit/test_common_memstat.c \
		    tests/unit/test_common_optdoc.c \
		    tests/unit/test_common_resid.c \
		    tests/unit/test_common_smaps.c \
		    tests/unit/test_common_utc.c
COMMON_TEST	:= $(BUILD)/tests/test_common
TARGETS		+= $(COMMON_TEST)

$(COMMON_TEST): $(COMMON_TEST_SRCS:%.c=$(OBJ)/%.o) $(COMMON_LIB)
	$(link_unit)

# Run from the top of the tree: the fixtures are read from tests/fixtures.
.PHONY: check-common
CHECK_TARGETS	+= check-common
CHECK_FAST_TARGETS += check-common
check-common: $(COMMON_TEST)
	@$(call criterion,check-common,$(COMMON_TEST))
