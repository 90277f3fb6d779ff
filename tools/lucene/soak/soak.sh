#!/bin/sh
# soak.sh BUILD ASAN_BUILD SECONDS - real Lucene under the ASan+UBSan shim,
# searched while a second index is written and merged, with the adaptive
# default policy switching (tools/lucene/README.md, "Soak").
#
# One JVM (advshim-lucene search --churn): SOAK_THREADS threads query a
# fixed 1,000 x 64 HNSW index with --query-cycle (query q asks vector
# q mod SOAK_CYCLE; every repeat must return the ids of the first answer),
# while a writer thread adds documents to a second index, commits,
# force-merges (every 10 commits; ConcurrentMergeScheduler merges on its
# own too) and empties it every SOAK_CHURN_MAX documents, and a churn
# query thread checks that every hit's vector read back from the new
# segments' mappings is the one indexed.  So segments are mapped,
# merged away and unmapped, and Lucene's advice flips (ADVISE_BY_CONTEXT:
# SEQUENTIAL on a merge's inputs, RANDOM on new segments) all the time.
#
# The JVM runs in a memory cgroup of its own (memcg.sh: v2 when the
# unified hierarchy has the memory controller, else v1) whose room for
# page cache is held at SOAK_ROOM_MB (its limit re-set every second to
# the JVM's own memory + the room), under ASAN_BUILD/libadvshim.so
# (libasan first in LD_PRELOAD) with the default policy's one rule
# (random = "adaptive" on every file) and an adaptive group whose
# thresholds are a few MiB of that room: normal advice up to 1% of
# capacity, RANDOM from 2%, so the churn index's growth, its merges'
# temporaries and its resets move the need across both and the sampler
# switches (2 samples, >= 2 s apart).
#
# Fails (exit 1) on: a sanitizer report (ASan/UBSan log_path files, the
# JVM's stderr), a JVM crash (hs_err file, a signal, a non-zero exit), a
# result hash over the first SOAK_CYCLE queries different from a plain run
# without the shim, a repeat or churn mismatch, no merge, no adaptive switch.
set -u
build=$(cd "${1:-build}" && pwd)
asan_build=$(cd "${2:-build-asan}" && pwd)
secs=${3:-60}
threads=${SOAK_THREADS:-3}
cycle=${SOAK_CYCLE:-3000}
churn_max=${SOAK_CHURN_MAX:-4000}
room_mb=${SOAK_ROOM_MB:-50}
memcg_max_mb=${SOAK_MEMCG_MAX_MB:-4096}
heap=${SOAK_HEAP:-256m}
here=$(cd "$(dirname "$0")" && pwd)
luc=$build/advshim-lucene
cli=$build/advshim
lib=$asan_build/libadvshim.so
say() { echo "soak: $*"; }
die() { say "FAILED: $*"; exit 1; }

[ -x "$luc" ] && [ -f "$build/advshim-lucene.jar" ] ||
	die "$luc not built (a JDK 21+ and Maven: see tools/lucene/README.md)"
[ -f "$lib" ] || die "$lib missing (make stress-build-asan)"
ldd "$lib" | grep -q libasan || die "$lib is not an ASan build"
san=$(${CC:-cc} -print-file-name=libasan.so)
[ -e "$san" ] || die "libasan.so not found ($san)"
unset ADVSHIM_CONFIG ADVSHIM_LOG LD_PRELOAD

out=$build/soak/run-$(date -u +%Y%m%d-%H%M%S)
idx=$build/soak/idx-1000x64
mkdir -p "$out/asan" || exit 1
. "$here/memcg.sh"
cg=
live=
holder=
cleanup() {
	[ -n "$live" ] && kill "$live" 2>/dev/null
	[ -n "$holder" ] && kill "$holder" 2>/dev/null
	exec 3>&- 2>/dev/null
	[ -n "$cg" ] && memcg_remove "$cg"
	rm -rf "$out/churn" "$out/fifo"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# The fixed index, built once (the same arguments give the same graph).
if [ ! -f "$idx/segments_1" ]; then
	rm -rf "$idx"
	"$luc" index "$idx" --vectors 1000 --dims 64 --read-advice context \
		>"$out/index.log" 2>&1 || die "index build failed: $(tail -n 3 "$out/index.log")"
fi

# The reference: the first $cycle queries, plain, no churn.
"$luc" -J-Xmx256m search "$idx" --threads 2 --queries "$cycle" --read-advice context \
	>"$out/plain.out" 2>"$out/plain.err" || die "plain reference run failed: $(tail -n 3 "$out/plain.err")"
ref=$(sed -n 's/^# result-hash: \([0-9a-f]*\).*/\1/p' "$out/plain.out")
[ -n "$ref" ] || die "no result hash in the plain run"

cat >"$out/policy.conf" <<EOF
version = 1;
log = { level = "info"; target = "$out/shim.log"; };
rules = ( { name = "default"; match = [ "**" ]; random = "adaptive"; } );
adaptive = { fit_pct = 1; nofit_pct = 2; persist = 2; dwell_ms = 2000;
	     max_per_min = 8; interval_ms = 500; };
EOF
"$cli" check "$out/policy.conf" >"$out/check.log" 2>&1 || die "policy: $(tail -n 2 "$out/check.log")"

# SOAK_CONTROL=1: control.c's sanitizer reports must be found (below).
ctl=
if [ "${SOAK_CONTROL:-0}" = 1 ]; then
	ctl=$out/control.so
	${CC:-cc} -fsanitize=address,undefined -fno-omit-frame-pointer -shared -fPIC \
		-o "$ctl" "$here/control.c" || die "control library did not build"
fi

cg=$(memcg_create "advshim-soak-$$" $((memcg_max_mb * 1048576))) || die "memory cgroup: $cg"
memcg_hold_room "$cg" $((room_mb * 1048576)) $((memcg_max_mb * 1048576)) "$out/memcg.log" 20 &
holder=$!
mkfifo "$out/fifo" || exit 1
t0=$(date +%s)
# A subshell moves itself into the cgroup, then becomes the JVM.  JVM
# settings for ASan: HotSpot's own SIGSEGV/SIGBUS/SIGFPE/SIGILL handlers
# stay (implicit null checks, safepoints), LSan off (the JVM's heap is
# not malloc's), reports to files (log_path), UBSan's too.
(
	memcg_enter "$cg" || exit 97
	export ADVSHIM_CONFIG="$out/policy.conf" LD_PRELOAD="$san $lib${ctl:+ $ctl}"
	export ASAN_OPTIONS="handle_segv=0:handle_sigbus=0:handle_sigfpe=0:handle_sigill=0:allow_user_segv_handler=1:detect_leaks=0:halt_on_error=1:abort_on_error=0:log_exe_name=1:log_path=$out/asan/asan"
	export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=0:log_exe_name=1:log_path=$out/asan/ubsan"
	exec nice "$luc" -J-Xms$heap -J-Xmx$heap -J-XX:+AlwaysPreTouch \
		-J-XX:ErrorFile="$out/hs_err_%p.log" -J-XX:-CreateCoredumpOnCrash \
		search "$idx" --threads "$threads" --duration "$secs" --read-advice context \
		--query-cycle "$cycle" --hash-queries "$cycle" --interval-ms 10000 \
		--churn "$out/churn" --churn-threads 1 --churn-batch 250 --churn-max "$churn_max" \
		--merge-every 10 --hold <"$out/fifo" >"$out/soak.out" 2>"$out/soak.err"
) &
live=$!
exec 3>"$out/fifo"
pid=
until grep -q '^# checks ' "$out/soak.out" 2>/dev/null || ! kill -0 "$live" 2>/dev/null; do
	[ -z "$pid" ] && pid=$(sed -n 's/^# advshim-lucene search .* pid=\([0-9]*\) .*/\1/p' "$out/soak.out" 2>/dev/null)
	# The last inspect while it runs, in case the JVM dies before the end.
	[ -n "$pid" ] && "$cli" inspect "$pid" >"$out/inspect.live" 2>&1
	sleep 10
done
[ -n "$pid" ] && "$cli" inspect "$pid" >"$out/inspect.txt" 2>&1
exec 3>&-
wait "$live"
rc=$?
live=
wall=$(($(date +%s) - t0))
kill "$holder" 2>/dev/null
holder=
sh "$here/report.sh" "$out" "$ref" "$rc" "$wall"
verdict=$?
[ -z "$ctl" ] && exit $verdict
# The control passes when the soak failed on the reports it planted.
if [ $verdict -ne 0 ] && grep -qs 'heap-buffer-overflow' "$out"/asan/* &&
   grep -qs 'shift exponent' "$out"/asan/* "$out/soak.err"; then
	say "control: ok (the planted ASan and UBSan reports were found in $out/asan and failed the run)"
	exit 0
fi
say "control: FAILED: the planted sanitizer reports were not found or did not fail the run"
exit 1
