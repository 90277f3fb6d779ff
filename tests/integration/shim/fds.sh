#!/bin/sh
# fds.sh BUILD [SANITIZER] - the shim leaves the application's descriptors
# alone (README "Logging"; shim/log.c): fdprog closes 0-2, closes every
# descriptor above 2, opens a data file where the shim's log was, closes
# stderr and reopens a data file on it, and checks from inside that its
# data files hold only its own bytes and that its table (every number
# below the descriptor limit) is what it made: the shim holds none.  Each mode runs plain first (the program itself must pass
# without the shim), then under the shim; the log must still get the
# shim's lines after the application took its descriptor away.
set -u
build=${1:-build}
san=${2:-}
bin=$build/tests/shim
lib=$(cd "$build" && pwd)/libadvshim.so
tmp=$(mktemp -d /tmp/advshim-fds.XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM
pass=0
fail=0
floor=1024	# the whole table: the shim keeps no descriptor open
ulimit -n $floor 2>/dev/null

san_rt=$(ldd "$lib" | awk '/lib(asan|tsan|ubsan)\.so/ { print $3; exit }')
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
unset ADVSHIM_CONFIG ADVSHIM_LOG

ok() { pass=$((pass + 1)); echo "ok   $1"; }
no() { fail=$((fail + 1)); echo "FAIL $1"; shift; for l in "$@"; do echo "     $l"; done; }

dd if=/dev/urandom of="$tmp/map" bs=64k count=1 status=none

# run NAME MODE PRELOAD [ENV...]: fdprog's verdict, plain or shimmed.
run() {
	name=$1 mode=$2 pre=$3
	shift 3
	rm -f "$tmp/out" "$tmp/data"
	: >"$tmp/out"
	env FDPROG_OUT="$tmp/out" ${pre:+LD_PRELOAD=$pre} "$@" \
		"$bin/fdprog" "$mode" $floor "$tmp/data" "$tmp/map" \
		>"$tmp/stdout" 2>"$tmp/stderr"
	rc=$?
	if [ $rc -eq 0 ] && grep -qx "ok $mode" "$tmp/out"; then
		ok "$name"
	else
		no "$name" "exit $rc: $(cat "$tmp/out")" "stderr: $(head -c 600 "$tmp/stderr")"
	fi
}

shimmed=${san_rt:+$san_rt:}$lib
printf 'version = 1;\nlog = { level = "debug"; target = "%s"; };\nrules = ( { match = [ "**" ]; random = "normal"; } );\n' \
	"$tmp/shim.log" >"$tmp/file.conf"
printf 'version = 1;\nlog = { level = "off"; target = "%s"; };\nrules = ( { match = [ "**" ]; random = "normal"; } );\n' \
	"$tmp/data" >"$tmp/off.conf"

run "file target: the program alone" file ""
rm -f "$tmp/shim.log"
run "file target: no descriptor held; closerange and reused numbers keep the data file the program's" \
	file "$shimmed" ADVSHIM_CONFIG="$tmp/file.conf" FDPROG_LOG="$tmp/shim.log"
n=$(grep -c 'madvise(0x[0-9a-f]*, 4096, random)' "$tmp/shim.log" 2>/dev/null)
if [ "${n:-0}" -ge 3 ]; then
	ok "file target: every line reached the log ($n madvise lines)"
else
	no "file target: every line reached the log" "madvise lines: ${n:-0}" \
		"$(tail -n 5 "$tmp/shim.log" 2>/dev/null)"
fi

run "stderr target: the program alone" stderr ""
run "stderr target: a data file on fd 2 gets no shim line" stderr "$shimmed" ADVSHIM_LOG=debug
if grep -q 'advshim\[' "$tmp/stderr"; then
	ok "stderr target: lines went to stderr while it was the shim's start's"
else
	no "stderr target: lines went to stderr while it was the shim's start's" \
		"stderr: $(head -c 300 "$tmp/stderr")"
fi

run "level off: the program alone" off ""
run "level off: the table unchanged, no log file" off "$shimmed" ADVSHIM_CONFIG="$tmp/off.conf"

# The sampler (the adaptive default) needs a memory cgroup it can read;
# its table is private only where close_range(2) exists (5.9+).  Under a
# sanitizer it shares the table (its reports go there): not tested then.
if [ -n "$san" ]; then
	echo "skip sampler: a sanitized shim shares its sampler's table"
else
	run "adaptive sampler: its descriptor table is its own" sampler "$shimmed"
fi

echo "fds: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
