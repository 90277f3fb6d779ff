#!/bin/sh
# check-fast.sh "MAKE" JOBS BUILD TARGET...
#
# The inner loop (make check-fast): builds everything but the Maven-built
# Java tools (make all MAVEN=0: every fast check's programs are in TARGETS;
# no fast check runs them), then runs the check TARGETs, JOBS at
# a time (make -jJOBS schedules them; each through mk/check-one.sh, which
# prints its output in one piece), going on after a failure.  The checks
# that took longest last time (BUILD/check-fast.times) start first.  Ends
# with one line: how many passed, which failed, the wall time.  Exits 1 if
# any failed or the build did.
set -u
make_cmd=$1
jobs=$2
build=$3
shift 3
d=$build/check-fast
start=$(date +%s)
# Inside `make -jN check-fast` the jobserver is inherited: no -j of our own.
case " ${MAKEFLAGS:-} " in
*jobserver*) jflag= ;;
*) jflag=-j$jobs ;;
esac
if ! $make_cmd $jflag all MAVEN=0; then
	echo "check-fast: the build failed; no check ran"
	exit 1
fi
built=$(date +%s)
rm -rf "$d"
mkdir -p "$d"
times=$build/check-fast.times
runs=$(for t in "$@"; do
	s=$(awk -v t="$t" '$1 == t { print $2 }' "$times" 2>/dev/null)
	echo "${s:-0} check-fast-run/$t"
done | sort -s -k1,1nr | cut -d' ' -f2)
$make_cmd $jflag --output-sync=target $runs
pass=0
failed=
for t in "$@"; do
	if [ -f "$d/$t.ok" ]; then
		pass=$((pass + 1))
	else
		failed="$failed $t"
	fi
done
end=$(date +%s)
cat "$d"/*.time > "$times" 2>/dev/null
[ -n "$failed" ] && echo "failed:$failed"
echo "check-fast: $pass passed, $(echo $failed | wc -w) failed;" \
	"$((end - start)) s ($((built - start)) s build, $((end - built)) s checks)"
[ -z "$failed" ]
