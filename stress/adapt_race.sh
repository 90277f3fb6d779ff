#!/bin/sh
# adapt_race.sh BUILD MODE SECONDS [THREADS] - advshim-adapt-race
# (stress/adapt_race.c) under BUILD/libadvshim.so: the adaptive sampler
# switching as fast as its rate limit allows while threads map, advise,
# move and unmap adaptive files.  MODE: plain, asan or tsan (the runtime
# first in LD_PRELOAD, as stress/run.sh does), or window: plain with
# BUILD/stress/libadvshim-adaptwindow.so preloaded after the shim, which
# delays every application madvise (adapt_window_lib.c): the switch race
# is then hit at every switch, and only the shim's re-check wins it; the
# workers stop just after the last switch, so its losers stay visible.  Fails on a failed check,
# the watchdog, or any sanitizer report.
set -u
build=$1
mode=$2
secs=$3
threads=${4:-8}
bin=$build/stress/advshim-adapt-race
lib=$build/libadvshim.so
extra=
if [ "$mode" = window ]; then
	extra=$build/stress/libadvshim-adaptwindow.so
	# Stop just after the last switch the rate limit allows in the
	# first minute (the first decision is not counted).
	export ADVSHIM_RACE_STOP_SWITCHES=7
fi
for f in "$bin" "$lib" $extra; do
	if [ ! -e "$f" ]; then
		echo "stress[adapt-$mode]: FAILED: $f was not built" >&2
		exit 1
	fi
done
tmp=$(mktemp -d /tmp/advshim-adaptrace.XXXXXX) || exit 1
tmp=$(realpath "$tmp")
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/data"
# Sample every 20 ms, switch on one sample, no dwell: the rate limit
# (8 a minute) is the only brake.
cat >"$tmp/policy.conf" <<EOC
version = 1;
adaptive = { interval_ms = 100; persist = 1; dwell_ms = 0; max_per_min = 8;
             fail_after = 1; };
rules = ( { name = "adaptive"; match = "$tmp/data/**"; random = "adaptive"; } );
EOC
san=
case $mode in
asan)	san=$(${CC:-cc} -print-file-name=libasan.so)
	export ASAN_OPTIONS=detect_leaks=0:abort_on_error=0:halt_on_error=1
	export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 ;;
tsan)	san=$(${CC:-cc} -print-file-name=libtsan.so)
	# The children restart the sampler thread after a fork of a
	# threaded process: TSan must be told to carry on.
	export TSAN_OPTIONS=halt_on_error=0:exitcode=66:die_after_fork=0 ;;
plain|window)	san=$(ldd "$lib" 2>/dev/null | awk '/lib[at]san\.so/ { print $3; exit }') ;;
*)	echo "stress: unknown mode $mode" >&2; exit 2 ;;
esac
out=$tmp/out
ADVSHIM_CONFIG=$tmp/policy.conf LD_PRELOAD="${san:+$san }$lib${extra:+ $extra}" \
	"$bin" "$tmp/data" "$secs" "$threads" >"$out" 2>&1
rc=$?
mkdir -p "$build/stress"
cp "$out" "$build/stress/last-adapt-$mode.log"
grep -v 'FAIL\|WARNING: ThreadSanitizer: starting new threads' "$out" | head -n 40
grep 'FAIL' "$out" | head -n 20
if grep -q 'ERROR: [A-Za-z]*Sanitizer\|WARNING: ThreadSanitizer: [^s]\|runtime error:' "$out"; then
	echo "stress[adapt-$mode]: FAILED: sanitizer report (full log: $build/stress/last-adapt-$mode.log)"
	exit 1
fi
case $rc in
0)	echo "stress[adapt-$mode]: ok ($threads threads, $secs s)" ;;
3)	echo "stress[adapt-$mode]: FAILED: watchdog (deadlock?)"; exit 1 ;;
*)	echo "stress[adapt-$mode]: FAILED (exit $rc; log: $build/stress/last-adapt-$mode.log)"; exit 1 ;;
esac
