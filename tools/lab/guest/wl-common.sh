#!/bin/sh
# SPDX-License-Identifier: MIT
#
# wl-common.sh - what the lab's workloads (wl-*.sh) share, sourced by them.

# wl_cold_stream CG PRE...: the scenario's cold read, advshim-load stream
# (a normal mmap of /data/cold.bin, read twice from COLD_AT s).
wl_cold_stream() {
	local cg=$1
	shift
	in_cgroup "$cg" env "$@" advshim-load stream -l 2 -D $((COLD_AT * 1000)) /data/cold.bin
}

# wl_need_prog NAME: a workload's program must be in the image.
wl_need_prog() {
	command -v "$1" >/dev/null 2>&1 ||
		die "$1 is missing from the lab image (tools/programs/module.mk builds it when its toolchain is there)"
}
