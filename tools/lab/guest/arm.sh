#!/bin/sh
# SPDX-License-Identifier: MIT
#
# arm.sh NAME - one arm of the stall scenario, in a fresh memcg /lab-NAME.
#
# The readers (WORKLOAD, default load: THREADS threads of one advshim-load
# process reading /data/vec.bin at random, zipf THETA, through a mapping
# with ADVICE) run for DURATION s; at COLD_AT s a second process reads a
# cold file twice through a normal mmap.  The workload is a setting: its
# file /lab/wl-WORKLOAD.sh says how to make its data, start its readers
# and its cold read (interface: guest/wl-load.sh).  A sampler records once
# a second: the readers' reads/s, the memcg's major faults, refaults,
# activations, bytes read, its lru_gen window and generations, and the
# page-cache residency of the working-set and the cold file.
#
# Settings (environment; scenario sizes in common.sh):
#   WORKLOAD=load|fio|lmdb|bolt|...  the readers (default load)
#   ADVICE=random|normal|none   the load readers' advice (default random)
#   SWITCH=S=A[,S=A]            the load readers re-advise at S s (wl-load.sh)
#   FIO_HINT=1|0                fio's fadvise_hint (1: MADV_RANDOM)
#   COLD_AT=S (0: no cold read) COLD_VIA=mmap|read  COLD_LOOPS (2)
#   COLD_ARGS=a,b               more advshim-load stream options (commas)
#   SHIM=off|default|FILE       preload libadvshim.so into the readers
#                               (default policy or FILE)
#   SHIM=seccomp[:FILE]         run them under `advshim run --seccomp`
#                               (the default policy or FILE, through
#                               seccomp user notification: static and Go
#                               programs); the supervisor logs at info
#   COLD_SHIM=off|default|FILE  the same for the cold reader (default SHIM)
#   LRU_GEN=y|n                 MGLRU on or off for this arm (default y)
#   RFC=on|off|-                the RFC kernel's lru_gen_age_on_thrash for
#                               this arm (default -: untouched); set back
#                               to off at the end
#   WATCH=off|dry|live          advshim-watch on the memcg (default off)
#   WATCH_ARGS                  more advshim-watch options (commas for
#                               spaces: --min-turnover-pct,100,--log-decisions)
#   BYSTANDER=1                 also keep a cached file in memcg
#                               /lab-bystander and record its lru_gen
#   CAPTURE_AT=S                when to copy the kernel's lru_gen text
#                               (default DURATION - 8)
#   SAMPLE_EXTRA=0              no residency and generations columns
#   SAMPLE_HOOK=FILE            more sampler columns: FILE (sourced) defines
#                               hook_header (their names) and hook_row
#                               (their values, read each second), each
#                               printed tab-first; make lab's is
#                               tools/adapt/lab/probe.sh
#
# Writes /out/arms/NAME/: samples.tsv, load.tsv, cold.tsv, watch.log,
# lru_gen.log (the memcg's generations every 5 s), memory.stat (at the
# end), capture/ (lru_gen, lru_gen_full and memory.stat twice, a second
# apart, at CAPTURE_AT), arm.env (the settings and the event times), and
# with RECORD=1 what guest/record.sh records for the watcher's replay
# (frames.txt: lru_gen_full every second; rr.before, rr.after, resid.tsv:
# the RANDOM-mapped files and their residency).  Off by default: under TCG
# the recording slows a fio arm's recovery about 3x (docs/lab-journal.md).
. /lab/common.sh

name=${1:?usage: arm.sh NAME}
: "${ADVICE:=random}" "${SHIM:=off}" "${LRU_GEN:=y}" "${WATCH:=off}" "${RFC:=-}"
: "${COLD_SHIM:=$SHIM}" "${WATCH_ARGS:=}" "${BYSTANDER:=0}" "${WORKLOAD:=load}"
[ -f "/lab/wl-$WORKLOAD.sh" ] || die "no workload '$WORKLOAD' (/lab/wl-$WORKLOAD.sh)"
. "/lab/wl-$WORKLOAD.sh"
. /lab/record.sh
if [ -n "${SAMPLE_HOOK:-}" ]; then
	[ -f "$SAMPLE_HOOK" ] || die "sampler hook $SAMPLE_HOOK not found"
	. "$SAMPLE_HOOK"
else
	hook_header() { :; }
	hook_row() { :; }
fi
cg=/lab-$name
dir=/out/arms/$name
mkdir -p "$dir"

# preload_env SHIMSETTING: the env(1) arguments that load the shim; its
# decisions (the adaptive ones among them) at level info, in the reader's
# stderr (load.err).
preload_env() {
	case $1 in
	off) echo "ADVSHIM_LAB=off" ;;
	default) echo "LD_PRELOAD=/opt/advshim/bin/libadvshim.so ADVSHIM_LOG=info" ;;
	seccomp) echo "ADVSHIM_LAB=seccomp advshim run -l info --seccomp --" ;;
	seccomp:*) echo "ADVSHIM_LAB=seccomp advshim run -l info --policy ${1#seccomp:} --seccomp --" ;;
	*) echo "LD_PRELOAD=/opt/advshim/bin/libadvshim.so ADVSHIM_LOG=info ADVSHIM_CONFIG=$1" ;;
	esac
}

cleanup() {
	for p in $sampler $watcher $cold $reader; do
		kill "$p" 2>/dev/null
	done
	remove_memcg "$cg"
	[ "$BYSTANDER" = 1 ] && remove_memcg /lab-bystander
	[ "$LRU_GEN" = n ] && set_lru_gen y
	[ "$RFC" = - ] || echo N >"$RFC_PARAM_FILE" 2>/dev/null
}
trap cleanup EXIT
trap 'exit 130' INT TERM

for s in "$SHIM" "$COLD_SHIM"; do
	case $s in
	off) ;;
	seccomp) need_bin advshim ;;
	seccomp:*) need_bin advshim; [ -f "${s#seccomp:}" ] || die "policy ${s#seccomp:} not found" ;;
	default) need_bin libadvshim.so ;;
	*) need_bin libadvshim.so; [ -f "$s" ] || die "policy $s not found" ;;
	esac
done
rm -f "$dir/ok"
wl_prepare
# shellcheck disable=SC2046
set -- $(wl_files)
vec_file=$1 cold_file=$2
# SAMPLE_EXTRA=0 (the smoke): no residency and generations columns.  On
# 7.3 the smoke's arm without a fix recovered by itself in the 2 of 2
# judged runs with them (an extra process and reads each second in the
# guest); it stalled in the runs before they were added and in the 2 of
# 2 tries since (doctor saw the stall in the guest both times).
resid=
[ "${SAMPLE_EXTRA:-1}" = 1 ] && command -v advshim-resid >/dev/null 2>&1 && resid=1
set_lru_gen "$LRU_GEN"
set_rfc "$RFC"
sync
echo 3 >/proc/sys/vm/drop_caches
make_memcg "$cg" "$MEMCG_MB"

if [ "$BYSTANDER" = 1 ]; then
	make_memcg /lab-bystander 64
	make_file /data/bystander.bin 16
	in_cgroup /lab-bystander advshim-load stream /data/bystander.bin >/dev/null ||
		die "cannot fill memcg /lab-bystander"
fi

watch_t0=
if [ "$WATCH" != off ]; then
	need_bin advshim-watch
	watch_t0=$(uptime_ms)
	# Every verdict with its inputs (one line a second): what a run that
	# went wrong is judged from when it was not recorded.
	wflags="--cgroup $cg --interval-ms 1000 --log-format json --log-decisions"
	[ "$WATCH" = dry ] && wflags="$wflags --dry-run"
	WATCH_ARGS=$(echo "$WATCH_ARGS" | tr ',' ' ')
	# shellcheck disable=SC2086
	advshim-watch $wflags $WATCH_ARGS >"$dir/watch.log" 2>&1 &
	watcher=$!
	sleep 0.5
	kill -0 "$watcher" 2>/dev/null ||
		die "advshim-watch exited at once: $(tail -n 3 "$dir/watch.log")"
fi

# shellcheck disable=SC2046
wl_reader "$cg" $(preload_env "$SHIM") >"$dir/load.tsv" 2>"$dir/load.err" &
reader=$!
# shellcheck disable=SC2046
wl_cold "$cg" $(preload_env "$COLD_SHIM") >"$dir/cold.tsv" 2>"$dir/cold.err" &
cold=$!

# capture N: lru_gen, lru_gen_full and the memcg's memory.stat into
# capture/ with suffix N, and the time they were read.
capture() {
	mkdir -p "$dir/capture"
	echo "$1 $(uptime_ms)" >>"$dir/capture/t_ms"
	cat "$LRU_GEN_FILE" >"$dir/capture/lru_gen.$1" 2>/dev/null
	cat "$LRU_GEN_FILE"_full >"$dir/capture/lru_gen_full.$1" 2>/dev/null
	cat "$CG_ROOT$cg/memory.stat" >"$dir/capture/memory.stat.$1"
}
capture_at=${CAPTURE_AT:-$((DURATION - 8))}

t0=$(uptime_ms)
{
	printf 't_ms\treads_s\tmajflt\trefault\tactivate\trbytes\tmemcg_id\tmin_seq\tmax_seq\tgen_file_pages\tby_max_seq\tyoung_file_pages\tvec_mb\tcold_mb\tgens%s\n' \
		"$(hook_header)"
	next=$((t0 + 1000))
	tick=0
	while kill -0 "$reader" 2>/dev/null; do
		now=$(uptime_ms)
		if [ "$now" -lt "$next" ]; then
			sleep 0.$(printf '%03d' $(( (next - now) % 1000 )))
			continue
		fi
		next=$((next + 1000))
		tick=$((tick + 1))
		# The generations' sizes every 5 s: where the cold file sits.
		[ $((tick % 5)) = 0 ] &&
			{ echo "t_ms $(( now - t0 ))"; lru_gen_block "$cg"; } >>"$dir/lru_gen.log"
		# The kernel's whole text twice, a second apart, late in the
		# run (the stall, if it lasts): fixtures for the parser tests.
		[ "$tick" = "$capture_at" ] && capture 1
		[ "$tick" = "$((capture_at + 1))" ] && capture 2
		[ "${RECORD:-0}" = 1 ] && rec_tick "$tick"
		r=$(tail -n 1 "$dir/load.tsv" | awk -F'\t' '$1 ~ /^[0-9]+$/ { print $5 }')
		g=$(lru_gen_of "$cg")
		b=-
		[ "$BYSTANDER" = 1 ] && b=$(lru_gen_of /lab-bystander | awk '{ print $3 }')
		res="-	-"
		[ -n "$resid" ] && res=$(advshim-resid "$vec_file" "$cold_file")
		set -- ${g:-- - - - -}
		printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s%s\n' \
			$(( $(uptime_ms) - t0 )) "${r:--}" \
			"$(memstat "$cg" pgmajfault)" \
			"$(memstat "$cg" workingset_refault_file)" \
			"$(memstat "$cg" workingset_activate_file)" \
			"$(io_rbytes "$cg")" "$1" "$2" "$3" "$4" "${b:--}" "$5" "$res" \
			"$([ -n "$resid" ] && lru_gen_gens "$cg" || echo -)" \
			"$(hook_row "$cg" "$dir" "$vec_file")"
	done
} >"$dir/samples.tsv" &
sampler=$!

wait "$reader"
rc=$?
cp "$CG_ROOT$cg/memory.stat" "$dir/memory.stat" 2>/dev/null
wait "$cold"
wait "$sampler"
[ -n "$watcher" ] && { kill -TERM "$watcher" 2>/dev/null; wait "$watcher"; }

# Event times relative to the reader's start (load.tsv and cold.tsv both
# carry CLOCK_MONOTONIC milliseconds, as /proc/uptime does here).
l0=$(sed -n 's/.* mono_ms=\([0-9]*\).*/\1/p' "$dir/load.tsv" | head -n 1)
cstart=$(awk -F'\t' '$1 == "start" && $2 == 1 { print $3 }' "$dir/cold.tsv")
cend=$(awk -F'\t' '$1 == "end" { e = $3 } END { print e }' "$dir/cold.tsv")
{
	echo "name=$name workload=$WORKLOAD fio_hint=${FIO_HINT:--}"
	echo "advice=$ADVICE shim=$SHIM cold_shim=$COLD_SHIM lru_gen=$LRU_GEN watch=$WATCH"
	echo "rfc=$RFC age_on_thrash=$(cat "$RFC_PARAM_FILE" 2>/dev/null || echo -)"
	echo "watch_args=$WATCH_ARGS"
	echo "switch=${SWITCH:-} cold_via=${COLD_VIA:-mmap} cold_loops=${COLD_LOOPS:-2} cold_args=${COLD_ARGS:-}"
	echo "vec_mb=$VEC_MB cold_mb=$COLD_MB memcg_mb=$MEMCG_MB threads=$THREADS theta=$THETA"
	echo "memcg=$cg kernel=$(uname -r)"
	echo "duration=$DURATION cold_at=$COLD_AT"
	echo "sampler_offset_ms=$(( ${l0:-$t0} - t0 ))"
	echo "reader_mono_ms=${l0:-$t0}"
	[ -n "$cstart" ] && echo "cold_start_ms=$(( cstart - ${l0:-$t0} ))"
	[ -n "$cend" ] && echo "cold_end_ms=$(( cend - ${l0:-$t0} ))"
	[ -n "$watch_t0" ] && echo "watch_offset_ms=$(( watch_t0 - ${l0:-$t0} ))"
	echo "reader_rc=$rc"
} >"$dir/arm.env"
[ "$rc" = 0 ] || die "arm $name: the reader failed: $(tail -n 3 "$dir/load.err")"
grep -q '^[0-9]' "$dir/load.tsv" || die "arm $name: the readers printed no rows: $(tail -n 3 "$dir/load.err")"
[ -n "$cend" ] || [ "$COLD_AT" = 0 ] ||
	die "arm $name: the cold read did not finish: $(tail -n 3 "$dir/cold.err")"
touch "$dir/ok"
say "arm $name done"
