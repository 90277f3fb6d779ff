#!/bin/sh
# SPDX-License-Identifier: MIT
#
# wl-lmdb.sh - workload "lmdb": advshim-lmdb (tools/programs/lmdb.c, on
# Debian's liblmdb) reads keys of a VEC_MB MiB database at zipf THETA with
# THREADS threads; the environment is MDB_RDONLY | MDB_NORDAHEAD, so
# liblmdb advises its 1 GiB map MADV_RANDOM through libc.  Cold read: as
# the load workload.  Interface: wl-load.sh.
. /lab/wl-common.sh

wl_prepare() {
	wl_need_prog advshim-lmdb
	make_file /data/cold.bin "$COLD_MB"
	[ -f /data/lmdb/data.mdb ] ||
		advshim-lmdb load /data/lmdb "$VEC_MB" >/dev/null || die "cannot build /data/lmdb"
	sync
}

wl_files() {
	echo /data/lmdb/data.mdb /data/cold.bin
}

wl_reader() {
	local cg=$1
	shift
	in_cgroup "$cg" env "$@" advshim-lmdb read -t "$THREADS" -z "$THETA" -d "$DURATION" /data/lmdb
}

wl_cold() {
	wl_cold_stream "$@"
}
