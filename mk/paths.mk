# mk/paths.mk: the path of every artifact that one component builds and
# another names.  The top Makefile includes this file before any module.mk,
# so a fragment can use these in targets and prerequisites whatever the
# order the fragments are read in.  A fragment must not assign them (the
# Makefile stops with an error if one ends up different); a new shared
# artifact gets its line here, next to its owner's.

# common/: the kernel-text parsers and small shared helpers.
COMMON_LIB	:= $(BUILD)/libadvcommon.a
# policy/: config parsing, glob matching, advice names.
POLICY_LIB	:= $(BUILD)/libadvpolicy.a
# shim/: the LD_PRELOAD library, and its integration test programs (the
# packaging tests drive advprog too).
SHIM_LIB	:= $(BUILD)/libadvshim.so
SHIM_IT		:= $(BUILD)/tests/shim
SHIM_ADVPROG	:= $(SHIM_IT)/advprog
# tools/cli: the `advshim` command.
CLI_BIN		:= $(BUILD)/advshim
# tools/watch: the watcher, its library, and the fixture player the
# fault tests use as well.
WATCH_BIN	:= $(BUILD)/advshim-watch
WATCH_LIB	:= $(BUILD)/libadvwatch.a
WATCH_PLAYER	:= $(BUILD)/tests/watch_player
# tools/load, tools/ab.
LOAD_BIN	:= $(BUILD)/advshim-load
AB_BIN		:= $(BUILD)/advshim-ab
# advshim-load's zipf sampler, linked into tools/programs/ too.
LOAD_ZIPF_OBJ	:= $(OBJ)/tools/load/zipf.o
# tools/programs: the page-cache residency sampler every lab arm runs.
PROG_RESID	:= $(BUILD)/advshim-resid
# tests/seccomp: the static raw-madvise probe (check-examples runs it too).
SECCOMP_PROBE	:= $(BUILD)/tests/seccomp/probe

MK_SHARED_PATHS	:= COMMON_LIB POLICY_LIB SHIM_LIB SHIM_IT SHIM_ADVPROG \
		   CLI_BIN WATCH_BIN WATCH_LIB WATCH_PLAYER LOAD_BIN AB_BIN \
		   LOAD_ZIPF_OBJ PROG_RESID SECCOMP_PROBE
