# fuzz/: libFuzzer targets for every parser and the shim's mapping table.
# Built with clang, apart from the gcc build: each target
# compiles the project sources it needs itself, with
# -fsanitize=fuzzer-no-link,address,undefined, into $(FUZZ_DIR)/obj.
#
#   make fuzz [FUZZ_SECONDS=60] [FUZZ_TARGETS="fuzz_policy_parse ..."]
#       runs each target in turn for FUZZ_SECONDS on a corpus seeded from
#       fuzz/seeds/ and the real samples under tests/fixtures/ and examples/,
#       prints executions and findings per target; fails on any crash,
#       leak (LeakSanitizer) or sanitizer report.
#   make check-fuzz
#       the same for FUZZ_CHECK_SECONDS (8 s) per target (~60 s in all).
#
# A target whose sources are not in the tree, or a missing clang/libFuzzer,
# is reported as SKIPPED and counts as a failure.

FUZZ_CC		?= clang
FUZZ_SECONDS	?= 60
FUZZ_CHECK_SECONDS ?= 8
FUZZ_DIR	:= $(BUILD)/fuzz
FUZZ_OBJ	:= $(FUZZ_DIR)/obj
# UBSan findings abort (a crash for libFuzzer) instead of printing and
# going on; -fno-sanitize=function: policy code is C, the check is noise.
FUZZ_SAN	:= -fsanitize=address,undefined -fno-sanitize-recover=all \
		   -fno-omit-frame-pointer
FUZZ_CFLAGS	:= $(BASE_CFLAGS) -O1 -g $(FUZZ_SAN) -fsanitize=fuzzer-no-link
FUZZ_LDFLAGS	:= $(FUZZ_SAN) -fsanitize=fuzzer

# Project sources per target (paths from the repo root).
# The policy checks its `adaptive` group with adapt/adapt.c's
# adapt_params_check() (as POLICY_OBJS links it).
FUZZ_POLICY_SRCS := $(sort $(wildcard policy/*.c)) common/readfile.c \
		    common/confcheck.c adapt/adapt.c
FUZZ_SRCS_fuzz_policy_parse := fuzz/fuzz_policy_parse.c $(FUZZ_POLICY_SRCS)
FUZZ_SRCS_fuzz_policy_match := fuzz/fuzz_policy_match.c $(FUZZ_POLICY_SRCS)
FUZZ_SRCS_fuzz_maptable	:= fuzz/fuzz_maptable.c shim/maptable.c \
			   fuzz/slab_checked.c
FUZZ_SRCS_fuzz_lrugen	:= fuzz/fuzz_lrugen.c common/lrugen.c
FUZZ_SRCS_fuzz_memstat	:= fuzz/fuzz_memstat.c common/memstat.c \
			   common/iostat.c common/smaps.c
FUZZ_SRCS_fuzz_ab_exp	:= fuzz/fuzz_ab_exp.c tools/ab/exp_parse.c tools/ab/exp_get.c \
			   tools/ab/exp_arm.c tools/ab/exp_subst.c tools/ab/exp_model.c \
			   $(FUZZ_POLICY_SRCS)
FUZZ_SRCS_fuzz_cgroup	:= fuzz/fuzz_cgroup.c common/cgroup.c adapt/adapt.c
FUZZ_LIBS_fuzz_policy_parse := $(CONFIG_LIBS)
FUZZ_LIBS_fuzz_policy_match := $(CONFIG_LIBS)
FUZZ_LIBS_fuzz_ab_exp	:= $(CONFIG_LIBS)

FUZZ_ALL	:= fuzz_policy_parse fuzz_policy_match fuzz_maptable \
		   fuzz_lrugen fuzz_memstat fuzz_ab_exp fuzz_cgroup
FUZZ_TARGETS	?= $(FUZZ_ALL)
# Only targets whose every source exists can be built.
FUZZ_BUILDABLE	:= $(foreach t,$(FUZZ_ALL),$(if $(filter-out $(wildcard $(FUZZ_SRCS_$(t))),$(FUZZ_SRCS_$(t))),,$(t)))
FUZZ_BINS	:= $(FUZZ_BUILDABLE:%=$(FUZZ_DIR)/%)

$(FUZZ_OBJ)/%.o: %.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -MMD -MP -c -o $@ $<

-include $(shell find $(FUZZ_OBJ) -name '*.d' 2>/dev/null)

define fuzz_link
$(FUZZ_DIR)/$(1): $(patsubst %.c,$(FUZZ_OBJ)/%.o,$(FUZZ_SRCS_$(1)))
	@mkdir -p $$(dir $$@)
	$(FUZZ_CC) $(FUZZ_LDFLAGS) -o $$@ $$^ $(FUZZ_LIBS_$(1))
endef
$(foreach t,$(FUZZ_BUILDABLE),$(eval $(call fuzz_link,$(t))))

.PHONY: fuzz fuzz-build check-fuzz
# Builds what it can (-k); a target that does not build is then reported
# by run.sh as not built (a failure), and the others still run.
FUZZ_BUILD_OK = ok=; $(MAKE) --no-print-directory -k $(FUZZ_BINS); \
	for t in $(FUZZ_BUILDABLE); do \
		$(MAKE) --no-print-directory -q $(FUZZ_DIR)/$$t && ok="$$ok $$t"; \
	done

fuzz-build:
	@sh fuzz/prereq.sh $(FUZZ_CC)
	@$(MAKE) --no-print-directory $(FUZZ_BINS)

fuzz:
	@sh fuzz/prereq.sh $(FUZZ_CC)
	@$(FUZZ_BUILD_OK); \
	sh fuzz/run.sh $(FUZZ_DIR) $(FUZZ_SECONDS) "$$ok" $(FUZZ_TARGETS)

check-fuzz:
	@sh fuzz/prereq.sh $(FUZZ_CC)
	@$(FUZZ_BUILD_OK); \
	sh fuzz/run.sh $(FUZZ_DIR) $(FUZZ_CHECK_SECONDS) "$$ok" $(FUZZ_ALL)

CHECK_TARGETS	+= check-fuzz
