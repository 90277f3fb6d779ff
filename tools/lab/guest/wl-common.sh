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

# wl_java_pid CG: the pid of the (first) java process in memcg CG, or
# nothing.
wl_java_pid() {
	local p
	for p in $(cat "$CG_ROOT$1/cgroup.procs" 2>/dev/null); do
		[ "$(cat "/proc/$p/comm" 2>/dev/null)" = java ] && { echo "$p"; return 0; }
	done
	return 1
}

# wl_rr PID DIR OUT: the files under DIR that process PID maps, a line
# "rr PATH" when one of its mappings of PATH carries MADV_RANDOM (VmFlags
# rr), "- PATH" when none does, into OUT (the query table's rr_files).
wl_rr() {
	awk -v dir="$2/" '/^[0-9a-f]+-[0-9a-f]+ / { f = (index($NF, dir) == 1) ? $NF : "" }
	     f != "" && /^VmFlags:/ { rr = / rr/ ? "rr" : "-"; if (!(f in s) || rr == "rr") s[f] = rr }
	     END { for (f in s) print s[f], f }' "/proc/${1:-0}/smaps" 2>/dev/null | sort -k2 >"$3"
}
