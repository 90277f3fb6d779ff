# tools/lab: the MGLRU lab (Debian's MGLRU kernel under qemu).
#
#   make lab        the five-arm lab experiment (<= 15 min)
#   make lab-smoke  the lab's proofs on the real kernel (<= 5 min, in check)
#   make lab-demo   the short experiment make demo can use
#
# The kernel package, the unpacked kernel and the initramfs are cached
# under $(BUILD)/lab/; results go to $(BUILD)/lab/runs/.  LAB_KERNEL=6.1
# selects Debian 12's 6.1 kernel instead of 6.12.
LAB_SH		:= tools/lab/lab.sh
LAB_BINS	:= $(CLI_BIN) $(SHIM_LIB) $(WATCH_BIN) $(LOAD_BIN) $(AB_BIN)
# Deferred (=): TARGETS is complete only once every fragment is read.
lab_built_bins	= $(filter $(LAB_BINS),$(TARGETS))

.PHONY: lab lab-smoke lab-demo lab-fetch lab-shell
CHECK_TARGETS	+= lab-smoke

# A binary that fails to build is reported by the part of the lab that
# needs it (which then fails), so the other parts still run.
lab_run		= @$(if $(lab_built_bins),$(MAKE) --no-print-directory -k $(lab_built_bins) || \
		  echo "lab: warning: some binaries failed to build";) \
		  BUILD=$(BUILD) bash $(LAB_SH)

lab:
	$(lab_run) lab

lab-smoke:
	$(lab_run) smoke

lab-demo:
	$(lab_run) demo

lab-fetch:
	@BUILD=$(BUILD) bash $(LAB_SH) fetch

lab-shell:
	$(lab_run) shell
