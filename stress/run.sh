#!/bin/sh
# run.sh BUILD MODE SECONDS [THREADS]
# Runs BUILD/stress/advshim-stress under BUILD/libadvshim.so with a policy
# that keeps MADV_RANDOM for DIR/keep/**, rewrites it for DIR/rewrite/**
# and says nothing about DIR/other/**.  MODE:
#   asan     the sanitizer runtime first in LD_PRELOAD (ASan+UBSan build)
#   tsan     likewise with libtsan (TSan build)
#   plain    the normal build under the shim
#   control  without the shim: RANDOM must give rr everywhere (this proves
#            the end-of-run smaps check can fail)
# Fails on a failed check, a watchdog expiry, or any sanitizer report.
set -u
build=$1
mode=$2
secs=$3
threads=${4:-32}
bin=$build/stress/advshim-stress
lib=$build/libadvshim.so
for f in "$bin" $( [ "$mode" = control ] || echo "$lib" ); do
	if [ ! -e "$f" ]; then
		echo "stress[$mode]: FAILED: $f was not built" >&2
		exit 1
	fi
done
tmp=$(mktemp -d /tmp/advshim-stress.XXXXXX) || exit 1
tmp=$(realpath "$tmp")
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/data"
cat >"$tmp/policy.conf" <<EOC
version = 1;
rules = (
  { name = "keep"; match = "$tmp/data/keep/**"; random = "keep"; },
  { name = "rewrite"; match = "$tmp/data/rewrite/**"; random = "normal"; }
);
EOC

san=
case $mode in
asan)	san=$(${CC:-cc} -print-file-name=libasan.so)
	export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:halt_on_error=1
	export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 ;;
tsan)	san=$(${CC:-cc} -print-file-name=libtsan.so)
	export TSAN_OPTIONS=halt_on_error=0:exitcode=66:second_deadlock_stack=1 ;;
plain|control)
	# a SANITIZER= build: its runtime first, as for asan/tsan
	san=$(ldd "$lib" 2>/dev/null | awk '/lib[at]san\.so/ { print $3; exit }') ;;
*)	echo "stress: unknown mode $mode" >&2; exit 2 ;;
esac
if [ -n "$san" ] && [ ! -e "$san" ]; then
	echo "stress[$mode]: FAILED: sanitizer runtime $san not found" >&2
	exit 1
fi

out=$tmp/out
if [ "$mode" = control ]; then
	"$bin" "$tmp/data" "$secs" --threads "$threads" --no-shim >"$out" 2>&1
else
	ADVSHIM_CONFIG=$tmp/policy.conf LD_PRELOAD="${san:+$san }$lib" \
		"$bin" "$tmp/data" "$secs" --threads "$threads" --shim >"$out" 2>&1
fi
rc=$?
mkdir -p "$build/stress"
cp "$out" "$build/stress/last-$mode.log"
grep -v '^advshim-stress: FAIL' "$out" | head -n 60
grep '^advshim-stress: FAIL' "$out" | head -n 20
if grep -q 'ERROR: [A-Za-z]*Sanitizer\|WARNING: ThreadSanitizer\|runtime error:' "$out"; then
	echo "stress[$mode]: FAILED: sanitizer report (full log: $build/stress/last-$mode.log)"
	exit 1
fi
case $rc in
0)	echo "stress[$mode]: ok ($threads threads, $secs s)" ;;
3)	echo "stress[$mode]: FAILED: watchdog (deadlock?)"; exit 1 ;;
*)	echo "stress[$mode]: FAILED (exit $rc; log: $build/stress/last-$mode.log)"; exit 1 ;;
esac
