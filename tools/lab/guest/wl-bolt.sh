#!/bin/sh
# SPDX-License-Identifier: MIT
#
# wl-bolt.sh - workload "bolt": advshim-bolt (tools/programs/bolt, Go on
# go.etcd.io/bbolt, static) reads keys of a VEC_MB MiB database at zipf
# THETA with THREADS goroutines; bbolt advises its map MADV_RANDOM by a
# raw system call, which no LD_PRELOAD shim sees (SHIM=seccomp reaches
# it).  Cold read: as the load workload.  Besides the arm's files:
# rr.txt (whether the reader's map of bolt.db carries MADV_RANDOM, VmFlags
# rr, 5 s before the cold read).  Interface: wl-load.sh.
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

# bolt_rr: at COLD_AT - 5 s, the reader's advice on bolt.db into the arm's
# rr.txt ($dir, arm.sh's); the pid from load.tsv's "# ... pid=P" line.
bolt_rr() {
	local pid
	sleep $((COLD_AT > 5 ? COLD_AT - 5 : 1))
	pid=$(sed -n 's/^#.* pid=\([0-9]*\).*/\1/p' "$dir/load.tsv" | head -n 1)
	wl_rr "$pid" /data "$dir/rr.txt"
}

wl_reader() {
	local cg=$1
	shift
	bolt_rr &
	in_cgroup "$cg" env "$@" advshim-bolt read -t "$THREADS" -z "$THETA" -d "$DURATION" /data/bolt.db
	wait
}

wl_cold() {
	wl_cold_stream "$@"
}
