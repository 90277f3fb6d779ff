#!/bin/sh
# SPDX-License-Identifier: MIT
#
# arm.sh NAME - one arm of the adaptive-advice experiments (guest side,
# busybox sh; issue 13).  Like the lab's guest/arm.sh (it sources
# /lab/common.sh) but it records what the adaptive advice would see, once
# a second, next to the throughput:
#   the reader's reads/s and its own major faults/s (getrusage, load.tsv),
#   its memcg's pgmajfault, workingset_refault_file / activate_file,
#   file / anon / active_file / inactive_file (memory.stat), bytes read
#   (io.stat), lru_gen min/max seq, and adapt-probe's row: the effective
#   limit and usage through /proc/PID/cgroup, MemAvailable, the vector
#   file's residency by mincore (all pages and 256 sampled) and what each
#   reading cost.
#
# Settings (environment):
#   VEC_MB MEMCG_MB THREADS THETA DURATION   the scenario (common.sh)
#   ADVICE=random|normal       the readers' advice
#   SWITCH=S=A[,S=A]           advshim-load --switch-advice-at, per item
#   COLD_AT=S (0: none)  COLD_MB  COLD_LOOPS (2)
#   COLD_VIA=mmap|read         the cold reader's way in (default mmap)
#   COLD_ARGS=a,b              more advshim-load stream options (commas)
#   LRU_GEN=y|n
#   SHIM=off|default|FILE      preload libadvshim.so into the readers
#                              (FILE: a policy in /lab/job, e.g.
#                              adaptive.conf); the cold reader never
#   WATCH=off|on               advshim-watch on the arm's memcg
# Writes /out/arms/NAME/: samples.tsv, load.tsv, cold.tsv, probe.err,
# memory.stat (at the end), arm.env.
. /lab/common.sh

name=${1:?usage: arm.sh NAME}
: "${ADVICE:=random}" "${SWITCH:=}" "${COLD_VIA:=mmap}" "${COLD_ARGS:=}"
: "${COLD_LOOPS:=2}" "${LRU_GEN:=y}" "${SHIM:=off}" "${WATCH:=off}"
cg=/lab-$name
dir=/out/arms/$name
probe=/lab/job/adapt-probe
mkdir -p "$dir"
[ -x "$probe" ] || die "adapt-probe missing from the job"
[ "$SHIM" = off ] || need_bin libadvshim.so
case $SHIM in off|default) ;; *) [ -f "/lab/job/$SHIM" ] || die "policy $SHIM not in the job" ;; esac

# preload_env SHIMSETTING: the env(1) arguments that load the shim.
preload_env() {
	case $1 in
	off) echo "ADVSHIM_LAB=off" ;;
	default) echo "LD_PRELOAD=/opt/advshim/bin/libadvshim.so" ;;
	*) echo "LD_PRELOAD=/opt/advshim/bin/libadvshim.so ADVSHIM_CONFIG=/lab/job/$1" ;;
	esac
}

watcher=
watch_t0=
cleanup() {
	for p in $sampler $watcher $cold $reader; do
		kill "$p" 2>/dev/null
	done
	remove_memcg "$cg"
	[ "$LRU_GEN" = n ] && set_lru_gen y
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# The vector file changes size between arms: one at a time on the ramdisk.
vec=/data/vec.bin
if [ -f $vec ] && [ "$(stat -c %s $vec)" != $((VEC_MB * 1048576)) ]; then
	rm -f $vec
fi
make_file $vec "$VEC_MB"
make_file /data/cold.bin "$COLD_MB"
sync
set_lru_gen "$LRU_GEN"
echo 3 >/proc/sys/vm/drop_caches
make_memcg "$cg" "$MEMCG_MB"

if [ "$WATCH" != off ]; then
	need_bin advshim-watch
	watch_t0=$(uptime_ms)
	advshim-watch --cgroup "$cg" --interval-ms 1000 --log-format json \
		>"$dir/watch.log" 2>&1 &
	watcher=$!
	sleep 0.5
	kill -0 "$watcher" 2>/dev/null ||
		die "advshim-watch exited at once: $(tail -n 3 "$dir/watch.log")"
fi

sw=
for s in $(echo "$SWITCH" | tr ',' ' '); do
	sw="$sw --switch-advice-at $s"
done
# shellcheck disable=SC2046,SC2086
in_cgroup "$cg" env $(preload_env "$SHIM") advshim-load random -a "$ADVICE" $sw -t "$THREADS" -z "$THETA" \
	-d "$DURATION" $vec >"$dir/load.tsv" 2>"$dir/load.err" &
reader=$!
cold=
if [ "${COLD_AT:-0}" != 0 ]; then
	# shellcheck disable=SC2046,SC2086
	in_cgroup "$cg" advshim-load stream -v "$COLD_VIA" -l "$COLD_LOOPS" \
		$(echo "$COLD_ARGS" | tr ',' ' ') -D $((COLD_AT * 1000)) \
		/data/cold.bin >"$dir/cold.tsv" 2>"$dir/cold.err" &
	cold=$!
fi

# $! is the subshell of in_cgroup; the reader names its own pid.
n=0
until rpid=$(sed -n 's/.* pid=\([0-9]*\).*/\1/p' "$dir/load.tsv" 2>/dev/null | head -n 1) &&
	[ -n "$rpid" ] || [ $n -ge 100 ]; do
	sleep 0.1; n=$((n + 1))
done
[ -n "$rpid" ] || die "arm $name: the reader did not start: $(tail -n 3 "$dir/load.err")"
t0=$(uptime_ms)
{
	printf 't_ms\treads_s\tproc_majflt_s\tmajflt\trefault\tactivate\tfile\tanon\tactive_file\tinactive_file\trbytes\tmin_seq\tmax_seq'
	printf '\tprobe_ms\tcg\tcg_path\tlimit\tdepth\tusage\tmem_total\tmem_avail\tpages\tresident\tresident_sampled\tread_us\tmincore_us\tsampled_us\n'
	next=$((t0 + 1000))
	while kill -0 "$reader" 2>/dev/null; do
		now=$(uptime_ms)
		if [ "$now" -lt "$next" ]; then
			sleep 0.$(printf '%03d' $(( (next - now) % 1000 )))
			continue
		fi
		next=$((next + 1000))
		l=$(tail -n 1 "$dir/load.tsv" | awk -F'\t' '$1 ~ /^[0-9]+$/ { print $5 "\t" $10 }')
		[ -n "$l" ] || l="-	-"
		m=$(awk '$1 == "pgmajfault" { a = $2 } $1 == "workingset_refault_file" { b = $2 }
			$1 == "workingset_activate_file" { c = $2 } $1 == "file" { d = $2 }
			$1 == "anon" { e = $2 } $1 == "active_file" { f = $2 }
			$1 == "inactive_file" { g = $2 }
			END { printf "%d\t%d\t%d\t%d\t%d\t%d\t%d", a, b, c, d, e, f, g }' "$CG_ROOT$cg/memory.stat")
		g=$(lru_gen_of "$cg")
		set -- ${g:-- - - -}
		p=$("$probe" -p "$rpid" $vec 2>>"$dir/probe.err" | tail -n 1)
		[ -n "$p" ] || p="-"
		printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' $(( $(uptime_ms) - t0 )) "$l" "$m" \
			"$(io_rbytes "$cg")" "$2" "$3" "$p"
	done
} >"$dir/samples.tsv" &
sampler=$!

wait "$reader"
rc=$?
cp "$CG_ROOT$cg/memory.stat" "$dir/memory.stat" 2>/dev/null
[ -n "$cold" ] && wait "$cold"
wait "$sampler"
[ -n "$watcher" ] && { kill -TERM "$watcher" 2>/dev/null; wait "$watcher"; }

l0=$(sed -n 's/.* mono_ms=\([0-9]*\).*/\1/p' "$dir/load.tsv" | head -n 1)
cstart=$(awk -F'\t' '$1 == "start" && $2 == 1 { print $3 }' "$dir/cold.tsv" 2>/dev/null)
cend=$(awk -F'\t' '$1 == "end" { e = $3 } END { print e }' "$dir/cold.tsv" 2>/dev/null)
{
	echo "name=$name"
	echo "advice=$ADVICE switch=$SWITCH lru_gen=$LRU_GEN shim=$SHIM watch=$WATCH"
	echo "cold_via=$COLD_VIA cold_args=$COLD_ARGS cold_loops=$COLD_LOOPS"
	echo "vec_mb=$VEC_MB cold_mb=$COLD_MB memcg_mb=$MEMCG_MB threads=$THREADS theta=$THETA"
	echo "duration=$DURATION cold_at=${COLD_AT:-0}"
	echo "sampler_offset_ms=$(( ${l0:-$t0} - t0 ))"
	[ -n "$cstart" ] && echo "cold_start_ms=$(( cstart - ${l0:-$t0} ))"
	[ -n "$cend" ] && echo "cold_end_ms=$(( cend - ${l0:-$t0} ))"
	[ -n "$watch_t0" ] && echo "watch_offset_ms=$(( watch_t0 - ${l0:-$t0} ))"
	echo "reader_rc=$rc"
} >"$dir/arm.env"
[ "$rc" = 0 ] || die "arm $name: the reader failed: $(tail -n 3 "$dir/load.err")"
touch "$dir/ok"
say "arm $name done"
