#!/bin/sh
# SPDX-License-Identifier: MIT
#
# wl-bolt.sh - workload "bolt": advshim-bolt (tools/programs/bolt, Go on
# go.etcd.io/bbolt, static) reads keys of a VEC_MB MiB database at zipf
# THETA with THREADS goroutines; bbolt advises its map MADV_RANDOM by a
# raw system call, which no LD_PRELOAD shim sees.  Cold read: as the load
# workload.  Interface: wl-load.sh.
. /lab/wl-common.sh

wl_prepare() {
	wl_need_prog advshim-bolt
	make_file /data/cold.bin "$COLD_MB"
	[ -f /data/bolt.db ] ||
		advshim-bolt load /data/bolt.db "$VEC_MB" >/dev/null || die "cannot build /data/bolt.db"
	sync
}

wl_files() {
	echo /data/bolt.db /data/cold.bin
}

wl_reader() {
	local cg=$1
	shift
	in_cgroup "$cg" env "$@" advshim-bolt read -t "$THREADS" -z "$THETA" -d "$DURATION" /data/bolt.db
}

wl_cold() {
	wl_cold_stream "$@"
}
