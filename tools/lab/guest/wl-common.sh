#!/bin/sh
# SPDX-License-Identifier: MIT
#
# wl-common.sh - what the lab's workloads (wl-*.sh) share, sourced by them.

# wl_cold_stream CG PRE...: the scenario's cold read, advshim-load stream
# of /data/cold.bin from COLD_AT s: COLD_VIA (mmap, a normal mapping, or
# read), COLD_LOOPS times (2), with COLD_ARGS (more stream options, commas
# for spaces: --drop-behind,4M).  COLD_AT=0: no cold read (its TSV has no
# rows).
wl_cold_stream() {
	local cg=$1
	shift
	[ "${COLD_AT:-0}" != 0 ] || return 0
	# shellcheck disable=SC2046
	in_cgroup "$cg" env "$@" advshim-load stream -v "${COLD_VIA:-mmap}" -l "${COLD_LOOPS:-2}" \
		$(echo "${COLD_ARGS:-}" | tr ',' ' ') -D $((COLD_AT * 1000)) /data/cold.bin
}

# wl_need_prog NAME: a workload's program must be in the image.
wl_need_prog() {
	command -v "$1" >/dev/null 2>&1 ||
		die "$1 is missing from the lab image (tools/programs/module.mk builds it when its toolchain is there)"
}
