# tools/lab: the MGLRU lab (Debian's MGLRU kernels under qemu).
#
#   make lab          every fix in both regimes (fits, does not fit): six
#                     arms each, one boot, one table, LAB_REPEAT (3)
#                     runs of each (~16 min a run)
#   make lab-stall    the five-arm stall experiment (<= 15 min)
#   make lab-smoke    the lab's proofs on the real kernel (<= 5 min)
#   make lab-smoke-K  the same on series K (make check: 6.12 and 7.3)
#   make lab-demo     the short experiment make demo can use
#   make lab-matrix   the demo arms on 7.3, 7.2, 6.12 and 6.1, one table
#   make lab-rules    the lru_gen rules advshim-watch relies on, tried on
#                     each kernel (LAB_KERNEL=K: that one only)
#   make lab-programs fio, LMDB, bbolt and advshim-load as the readers,
#                     every fix, LAB_REPEAT (3) runs (LAB_PROGRAMS: which)
#   make lab-kernel-rfc  builds the lab's RFC kernel alone (Debian's
#                     linux-source-SERIES + tools/lab/rfc's patch, small
#                     config; cached, incremental; LAB_KERNEL=7.3-rfc or
#                     6.12-rfc (the default) picks it and boots it in
#                     every lab target)
#
# The kernel packages, the unpacked kernels and the initramfs are cached
# under $(BUILD)/lab/; results go to $(BUILD)/lab/runs/.  LAB_KERNEL=7.3,
# 7.2, 6.12 (default) or 6.1 picks the kernel series.
LAB_SH		:= tools/lab/lab.sh
LAB_BINS	:= $(CLI_BIN) $(SHIM_LIB) $(WATCH_BIN) $(LOAD_BIN) $(AB_BIN)
LAB_ALL_KERNELS	:= 7.3 7.2 6.12 6.1
LAB_SMOKES	:= $(addprefix lab-smoke-,$(LAB_ALL_KERNELS))
LAB_RULES_KERNELS ?= $(or $(LAB_KERNEL),$(LAB_ALL_KERNELS))
# Deferred (=): TARGETS is complete only once every fragment is read.
lab_built_bins	= $(filter $(LAB_BINS) $(PROG_LMDB) $(PROG_BOLT) $(PROG_RESID),$(TARGETS))

.PHONY: lab lab-stall lab-smoke $(LAB_SMOKES) lab-demo lab-fetch lab-shell lab-matrix lab-rules \
	lab-programs lab-kernel-rfc
# The report's kernel series beside the one most hosts run.
CHECK_TARGETS	+= lab-smoke-6.12 lab-smoke-7.3

# A binary that fails to build is reported by the part of the lab that
# needs it (which then fails), so the other parts still run.
lab_build	= $(if $(lab_built_bins),$(MAKE) --no-print-directory -k $(lab_built_bins) || \
		  echo "lab: warning: some binaries failed to build";)
lab_run		= @$(lab_build) BUILD=$(BUILD) bash $(LAB_SH)

# The scenario is the issue-13 one: 128 MiB memcg, 4 readers at zipf 0.8,
# a 40 MiB cold file read twice at 30 s, 65 s arms; fits = a 120 MiB
# file, does not fit = 256 MiB (tools/adapt/lab/lab.arms).
LAB_REGIMES	:= MEMCG_MB=128 COLD_MB=40 COLD_AT=30 DURATION=65 THREADS=4 THETA=0.8
# LAB_REPEAT (default 3): runs of every arm (tools/adapt/lab/run.sh).
lab:
	@$(lab_build) BUILD=$(BUILD) LAB_REPEAT=$${LAB_REPEAT:-3} sh tools/adapt/lab/run.sh lab \
		tools/adapt/lab/lab.arms $(LAB_REGIMES)

lab-stall:
	$(lab_run) lab

lab-smoke:
	$(lab_run) smoke

# lab-smoke-7.3 etc.: the smoke on one series whatever LAB_KERNEL says.
$(LAB_SMOKES): lab-smoke-%:
	@$(lab_build) LAB_KERNEL=$* BUILD=$(BUILD) bash $(LAB_SH) smoke

lab-demo:
	$(lab_run) demo

lab-matrix:
	$(lab_run) matrix

lab-programs:
	$(lab_run) programs

lab-rules:
	@$(lab_build) rc=0; for k in $(LAB_RULES_KERNELS); do \
		LAB_KERNEL=$$k BUILD=$(BUILD) bash $(LAB_SH) rules || rc=1; \
	done; exit $$rc

# Never part of make check: a kernel build (~25 min on 2 shared cores).
lab-kernel-rfc:
	@BUILD=$(BUILD) LAB_KERNEL=$(if $(filter %-rfc,$(LAB_KERNEL)),$(LAB_KERNEL),6.12-rfc) \
		bash $(LAB_SH) fetch

lab-fetch:
	@BUILD=$(BUILD) bash $(LAB_SH) fetch

lab-shell:
	$(lab_run) shell

# The host side's arithmetic on recorded text, no VM (a second).
.PHONY: check-lab-report
CHECK_TARGETS	+= check-lab-report
CHECK_FAST_TARGETS += check-lab-report
check-lab-report:
	@sh tests/integration/lab/test_report.sh

# lab.sh initramfs and lab.sh job on the whole build (the static Go
# advshim-bolt included): two TCG boots of the default kernel, 10-20 s each.
.PHONY: check-lab-job
CHECK_TARGETS	+= check-lab-job
check-lab-job: all
	@BUILD=$(BUILD) sh tests/integration/lab/test_job.sh
