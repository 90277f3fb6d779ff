#!/bin/sh
# SPDX-License-Identifier: MIT
#
# wl-load.sh - workload "load" (the default): THREADS threads of one
# advshim-load random process read /data/vec.bin at zipf THETA through a
# mapping advised ADVICE; the cold reader is advshim-load stream (a normal
# mmap, twice).  The workload interface (sourced by arm.sh; see
# tools/lab/README.md, "Workloads"):
#   wl_prepare          make the data files (idempotent, outside any memcg)
#   wl_files            "WORKING_SET_FILE COLD_FILE" for the residency columns
#   wl_reader CG PRE... the readers in CG, PRE the env(1) words that load
#                       the shim; stdout: advshim-load random's TSV
#   wl_cold CG PRE...   the cold read in CG, from COLD_AT s; stdout:
#                       advshim-load stream's rows (start/end LOOP MONO_MS)
. /lab/wl-common.sh

wl_prepare() {
	make_data_files
}

wl_files() {
	echo /data/vec.bin /data/cold.bin
}

# SWITCH=S=A[,S=A]: the readers re-advise their whole mapping A at S s
# (advshim-load --switch-advice-at, one per item).
wl_reader() {
	local cg=$1 sw='' s
	shift
	for s in $(echo "${SWITCH:-}" | tr ',' ' '); do
		sw="$sw --switch-advice-at $s"
	done
	# shellcheck disable=SC2086
	in_cgroup "$cg" env "$@" advshim-load random -a "$ADVICE" $sw -t "$THREADS" -z "$THETA" \
		-d "$DURATION" /data/vec.bin
}

wl_cold() {
	wl_cold_stream "$@"
}
