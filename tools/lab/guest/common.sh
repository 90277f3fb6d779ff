#!/bin/sh
# SPDX-License-Identifier: MIT
#
# common.sh - helpers for the lab's guest scripts (busybox sh), sourced.

CG_ROOT=/sys/fs/cgroup
LRU_GEN_FILE=/sys/kernel/debug/lru_gen
LRU_GEN_ENABLED_FILE=/sys/kernel/mm/lru_gen/enabled

say() {
	echo "[$(cut -d' ' -f1 /proc/uptime)] $*"
}

die() {
	echo "FAIL: $*"
	exit 1
}

uptime_ms() {
	awk '{ printf "%d\n", $1 * 1000 }' /proc/uptime
}

# need_bin NAME: the project binary NAME must be in the initramfs.
need_bin() {
	[ -e "/opt/advshim/bin/$1" ] ||
		die "build/$1 is missing from the lab image (build it first: make build/$1)"
}

# memstat CG KEY: a counter from CG's memory.stat (0 when absent).
memstat() {
	awk -v k="$2" '$1 == k { v = $2 } END { print v + 0 }' "$CG_ROOT$1/memory.stat"
}

# io_rbytes CG: bytes read from block devices by CG (io.stat rbytes).
io_rbytes() {
	awk '{ for (i = 2; i <= NF; i++) if ($i ~ /^rbytes=/) { sub(/rbytes=/, "", $i); s += $i } }
	     END { print s + 0 }' "$CG_ROOT$1/io.stat" 2>/dev/null || echo 0
}

# lru_gen_of CG: "ID MIN_SEQ MAX_SEQ FILE_PAGES YOUNGEST_FILE_PAGES" of CG's
# node 0 in lru_gen, or nothing when the memcg is not listed.
lru_gen_of() {
	awk -v path="$1" '
		$1 == "memcg" { p = $0; sub(/^memcg +[0-9]+ /, "", p); hit = (p == path); if (hit) id = $2; next }
		$1 == "node" { node = $2; next }
		hit && node == 0 && NF >= 4 { if (min == "") min = $1; max = $1; file += $4; young = $4 }
		END { if (min != "") print id, min, max, file, young }' "$LRU_GEN_FILE" 2>/dev/null
}

# lru_gen_block CG: CG's lines in lru_gen (memcg, node and generation rows).
lru_gen_block() {
	awk -v path="$1" '
		$1 == "memcg" { p = $0; sub(/^memcg +[0-9]+ /, "", p); hit = (p == path) }
		hit' "$LRU_GEN_FILE" 2>/dev/null
}

# lru_gen_gens CG: CG's node-0 generations as "SEQ:FILE_PAGES,..." (oldest
# first), "-" when the memcg is not listed.
lru_gen_gens() {
	awk -v path="$1" '
		$1 == "memcg" { p = $0; sub(/^memcg +[0-9]+ /, "", p); hit = (p == path); next }
		$1 == "node" { node = $2; next }
		hit && node == 0 && NF >= 4 { g = g (g == "" ? "" : ",") $1 ":" $4 }
		END { print (g == "" ? "-" : g) }' "$LRU_GEN_FILE" 2>/dev/null
}

# in_cgroup CG CMD...: runs CMD inside CG (exec, so the PID is CMD's).
in_cgroup() {
	local target=$1
	shift
	sh -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$CG_ROOT$target" "$@"
}

# make_memcg CG MIB: a fresh memcg limited to MIB MiB without swap.
make_memcg() {
	rmdir "$CG_ROOT$1" 2>/dev/null
	mkdir "$CG_ROOT$1" || die "cannot create memcg $1"
	echo $(( $2 * 1024 * 1024 )) >"$CG_ROOT$1/memory.max" || die "cannot limit memcg $1"
	echo 0 >"$CG_ROOT$1/memory.swap.max" 2>/dev/null
	return 0
}

# remove_memcg CG: kills what is left in CG and removes it.
remove_memcg() {
	local p i
	[ -d "$CG_ROOT$1" ] || return 0
	for p in $(cat "$CG_ROOT$1/cgroup.procs" 2>/dev/null); do
		kill -KILL "$p" 2>/dev/null
	done
	i=0
	while ! rmdir "$CG_ROOT$1" 2>/dev/null; do
		i=$((i + 1))
		[ $i -gt 50 ] && { say "warning: cannot remove memcg $1"; return 1; }
		sleep 0.1
	done
	return 0
}

# set_lru_gen y|n
set_lru_gen() {
	[ -w "$LRU_GEN_ENABLED_FILE" ] || die "$LRU_GEN_ENABLED_FILE is not writable"
	echo "$1" >"$LRU_GEN_ENABLED_FILE" || die "cannot set lru_gen to $1"
}

# set_rfc on|off|-: the RFC kernel's lru_gen_age_on_thrash (age when the
# oldest generation is thrashing; LAB_KERNEL=6.12-rfc, tools/lab/rfc).
# "-" leaves the kernel alone; on or off on a kernel without the
# parameter is an error, so an RFC arm never runs on a stock kernel.
RFC_PARAM_FILE=/sys/module/vmscan/parameters/lru_gen_age_on_thrash
set_rfc() {
	case $1 in
	-) return 0 ;;
	on) v=Y ;;
	off) v=N ;;
	*) die "RFC=$1: use on, off or -" ;;
	esac
	[ -w "$RFC_PARAM_FILE" ] ||
		die "RFC=$1 needs the lab's RFC kernel (LAB_KERNEL=6.12-rfc): no $RFC_PARAM_FILE in $(uname -r)"
	echo "$v" >"$RFC_PARAM_FILE" || die "cannot set lru_gen_age_on_thrash to $v"
}

# make_data_files: the scenario's files on the brd ext4 (once per boot).
# Zeros: the content does not matter to the page cache, and random bytes
# cost seconds of emulated CPU.
make_data_files() {
	make_file /data/vec.bin "$VEC_MB"
	make_file /data/cold.bin "$COLD_MB"
	sync
}

# make_file FILE MIB: FILE of MIB MiB of zeros, made again when an arm
# before wanted another size (make lab's regimes: 120 and 256 MiB).
make_file() {
	[ -f "$1" ] && [ "$(stat -c %s "$1")" = $(( $2 * 1048576 )) ] && return 0
	rm -f "$1"
	dd if=/dev/zero of="$1" bs=1M count="$2" 2>/dev/null || die "cannot create $1"
}

# Scenario defaults (the issue's: 256 MiB memcg, 240 MiB vector file read
# at random by 4 threads, 80 MiB cold file read twice at t=35 s).
: "${VEC_MB:=240}" "${COLD_MB:=80}" "${MEMCG_MB:=256}" "${THREADS:=4}"
: "${THETA:=0.8}" "${DURATION:=140}" "${COLD_AT:=35}"
