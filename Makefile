# advshim: one non-recursive Makefile.
#
#   make                 build everything (libraries, programs, test programs)
#   make check-fast      the inner loop, about a minute: build (without the
#                        Maven-built Java tools: MAVEN=0), then the unit
#                        and integration tests (CHECK_FAST_TARGETS), two at
#                        a time (CHECK_JOBS=2), each one's output in one
#                        piece: common, policy and the CLI, shim unit and
#                        integration, the JVM test, watch unit tests and
#                        fixtures and man pages, load, ab unit, check-make.
#                        No package install (`make deps` once), no lab,
#                        fuzz, stress, fault injection, packaging, nor the
#                        ab experiment in real memcgs (check-ab-host).
#   make check           every check (CHECK_TARGETS), one after the other,
#                        after `make deps`; includes all of check-fast
#   make check-make      the build's own checks (below); part of both
#
# Each component lives in its own directory and describes itself in a
# module.mk fragment (*/module.mk, tools/*/module.mk, tests/*/module.mk)
# that this file includes.  A fragment appends to:
#   TARGETS            files built by `make` (all): programs, libraries and
#                      the test programs its checks run
#   CHECK_TARGETS      phony targets run (each in turn, all of them) by
#                      `make check`
#   CHECK_FAST_TARGETS those of its checks that belong in check-fast
#   BENCH_TARGETS      phony targets run by `make bench`
#   CLEAN_EXTRA        extra paths removed by `make clean`
# and may add install rules to INSTALL_TARGETS / UNINSTALL_TARGETS.
#
# How a fragment is written (check-make enforces all but the third):
#   - It works in any include order.  In targets, prerequisites and `:=`
#     it uses only this file's variables, mk/paths.mk's (the artifacts
#     components share: $(SHIM_LIB), $(CLI_BIN), $(LOAD_BIN), ...) and its
#     own, defined above the use.  Another component's artifact is named
#     through mk/paths.mk, never by a literal $(BUILD)/... path; a new
#     shared artifact gets its line there.  Recipes and `=` variables
#     expanded in recipes may use anything (they expand after all
#     fragments are read).  check-make reads the fragments forwards,
#     backwards and shuffled and wants the same make database each time.
#   - Tests are listed, not globbed: every test source (tests/, bench/,
#     stress/, fuzz/) is named in a fragment, so a renamed test breaks
#     the build instead of dropping out; check-make fails on a test source
#     no fragment names.
#   - Unit test binaries (criterion) run through $(call criterion,...),
#     which holds the one TSan rule (skipped, loudly, under
#     SANITIZER=thread) and fails on a sanitizer report in their output.
#   - A check target's file prerequisites are built by `make all` (in
#     TARGETS), so `make check` and check-fast need no build of their own.

# A release tarball (make dist) carries a VERSION file; a git tree describes
# itself.  The file wins: inside an unpacked tarball `git describe` would
# describe whatever repository happens to enclose it.
VERSION := $(shell cat VERSION 2>/dev/null || \
		git describe --tags --always --dirty 2>/dev/null || echo 0.1.0)

BUILD		?= build
OBJ		:= $(BUILD)/obj
CC		?= cc
PKG_CONFIG	?= pkg-config

PREFIX		?= /usr/local
BINDIR		?= $(PREFIX)/bin
SBINDIR		?= $(PREFIX)/sbin
LIBDIR		?= $(PREFIX)/lib
SYSCONFDIR	?= /etc
MANDIR		?= $(PREFIX)/share/man
DATADIR		?= $(PREFIX)/share
SYSTEMDUNITDIR	?= $(PREFIX)/lib/systemd/system
DESTDIR		?=

# SANITIZER=address|undefined|thread (comma lists work too: address,undefined)
SANITIZER	?=
# WERROR=1 turns warnings into errors (CI sets it).
WERROR		?=
# MAVEN=0 leaves the Maven-built Java tools out of `all` (check-fast does:
# resolving a fresh ~/.m2 takes minutes); their own targets still build them.
MAVEN		?= 1

CFLAGS		?= -O2 -g
WARNINGS	:= -Wall -Wextra -Wshadow -Wformat=2 -Wstrict-prototypes \
		   -Wmissing-prototypes -Wpointer-arith -Wundef -Wvla
ifeq ($(WERROR),1)
WARNINGS	+= -Werror
endif
ifneq ($(SANITIZER),)
SAN_FLAGS	:= -fsanitize=$(SANITIZER) -fno-omit-frame-pointer
endif

# Everything is built position independent: policy/ and common/ objects
# are linked into libadvshim.so and into the tools alike.
BASE_CFLAGS	:= -std=gnu11 -D_GNU_SOURCE -fPIC -I. \
		   -DADVSHIM_VERSION='"$(VERSION)"' $(WARNINGS)
ALL_CFLAGS	= $(BASE_CFLAGS) $(SAN_FLAGS) $(CFLAGS) $(CPPFLAGS) $(EXTRA_CFLAGS)
ALL_LDFLAGS	= $(SAN_FLAGS) $(LDFLAGS)

CONFIG_LIBS	:= -lconfig
CRITERION_LIBS	:= -lcriterion

TARGETS		:=
CHECK_TARGETS	:=
CHECK_FAST_TARGETS :=
BENCH_TARGETS	:=
CLEAN_EXTRA	:=
INSTALL_TARGETS	:=
UNINSTALL_TARGETS :=

# $(call criterion,NAME,TESTS[,DIR[,JOBS]]): run criterion test binaries
# TESTS (from DIR, --jobs=JOBS, default 1) the way every check does; see
# mk/criterion.sh.
criterion = sh mk/criterion.sh $(if $(3),-C $(3)) $(if $(4),-j $(4)) \
	$(1) "$(SANITIZER)" $(2)

# $(link_unit): the recipe of a criterion test binary from its
# prerequisites (objects and libraries, in link order).
link_unit = mkdir -p $(dir $@) && $(CC) $(ALL_LDFLAGS) -o $@ $^ $(CONFIG_LIBS) $(CRITERION_LIBS)

# $(eval $(call maven_tool,OUT,PREREQS,VERSION,BUILD_SH)): OUT, a tool
# Maven builds (tools/lucene, tools/opensearch), made by `sh BUILD_SH
# $(BUILD) VERSION` from PREREQS and the stamp $(dir OUT)NAME/want-VERSION
# (NAME: BUILD_SH's directory's name): a changed VERSION rebuilds.  In
# `all` unless MAVEN=0 (check-fast).  BUILD_SH prints one line and
# creates nothing when Maven or the JDK is missing, so the recipe then
# runs (and says so) on every make.
define maven_tool
ifneq ($$(MAVEN),0)
TARGETS		+= $(1)
endif
$$(BUILD)/$$(notdir $$(patsubst %/,%,$$(dir $(4))))/want-$(3):
	@mkdir -p $$(dir $$@)
	@rm -f $$(dir $$@)want-*
	@touch $$@
$(1): $(2) $$(BUILD)/$$(notdir $$(patsubst %/,%,$$(dir $(4))))/want-$(3)
	@sh $(4) $$(BUILD) $(3)
endef

.PHONY: all check check-fast check-make mk-modules deps demo bench clean install uninstall
all:

include mk/paths.mk
$(foreach v,$(MK_SHARED_PATHS),$(eval mk_path_$(v) := $($(v))))

# The fragments, in name order; check-make reads them in other orders too
# (MK_MODULES="..." on the command line).
MK_MODULES	:= $(sort $(wildcard */module.mk tools/*/module.mk tests/*/module.mk))
include $(MK_MODULES)

$(foreach v,$(MK_SHARED_PATHS),$(if $(filter-out $(mk_path_$(v)),$($(v)))$(filter-out $($(v)),$(mk_path_$(v))),\
	$(error $(v) is set in mk/paths.mk to $(mk_path_$(v)); a module.mk changed it to $($(v)))))

all: $(TARGETS)

$(OBJ)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -MMD -MP -c -o $@ $<

-include $(shell find $(OBJ) -name '*.d' 2>/dev/null)

# The objects that print ADVSHIM_VERSION are rebuilt when it changes (a new
# commit, a dirty tree): the stamp is rewritten only when its text differs.
VERSION_STAMP	:= $(OBJ)/version.stamp
$(shell mkdir -p $(OBJ) && { [ "$$(cat $(VERSION_STAMP) 2>/dev/null)" = '$(VERSION)' ] || \
	echo '$(VERSION)' >$(VERSION_STAMP); })
$(OBJ)/shim/stats.o $(OBJ)/tools/cli/main.o $(OBJ)/tools/watch/watch_opts.o: $(VERSION_STAMP)

# Installs the Debian packages the build and the tests need; quiet and
# idempotent when everything is there already.
deps:
	@sh mk/deps.sh

# Runs every check target even when one fails, then says how many passed.
check: deps
	@$(MAKE) --no-print-directory all
	@sh mk/run-checks.sh "$(MAKE) --no-print-directory" $(CHECK_TARGETS)

# Builds everything, then runs the checks two at a time (CHECK_JOBS), each
# check's output printed in one piece when it ends; every check runs even
# when another failed (mk/check-fast.sh).
CHECK_JOBS	?= 2
check-fast:
	@sh mk/check-fast.sh "$(MAKE) --no-print-directory" $(CHECK_JOBS) \
		$(BUILD) $(CHECK_FAST_TARGETS)

# check-fast-run/NAME: check NAME, logged under $(BUILD)/check-fast/.
check-fast-run/%:
	@sh mk/check-one.sh "$(MAKE) --no-print-directory" $(BUILD)/check-fast $*

# The build's own rules (see the top of this file): fragments read in any
# order give the same database, every test source is named.
CHECK_TARGETS	+= check-make
CHECK_FAST_TARGETS += check-make
check-make:
	@sh mk/check-make.sh "$(MAKE) --no-print-directory" $(MK_MODULES)

# The fragments as read (mk/check-make.sh).
mk-modules:
	@echo $(MK_MODULES)

bench: all
	@sh mk/run-checks.sh "$(MAKE) --no-print-directory" $(BENCH_TARGETS)

install: all $(INSTALL_TARGETS)
uninstall: $(UNINSTALL_TARGETS)

clean:
	rm -rf $(BUILD) $(CLEAN_EXTRA)

# The main job, on this machine (see mk/demo.sh).  Builds only what the
# demo and its lab guest run: the Maven and the OpenSearch builds of
# `make all` would double its time.
demo: deps
	@$(MAKE) --no-print-directory $(lab_built_bins) $(SHIM_ADVPROG)
	@MAKE="$(MAKE) --no-print-directory" sh mk/demo.sh $(BUILD)
