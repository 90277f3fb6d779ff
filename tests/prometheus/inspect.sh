#!/bin/sh
# SPDX-License-Identifier: MIT
#
# inspect.sh BUILD - `advshim inspect --prometheus`, judged from outside
# on real processes: adaptprog (one file mapped and advised RANDOM) with
# no shim, under the shim with a fixed rule (random -> normal), and under
# random = "adaptive" before, while and after its kill switch file exists.  The output must
# pass `promtool check metrics` (when installed) and hold each process's
# series with pid and comm labels.
set -u
B=${1:-build}
A=$B/advshim
LIB=$(cd "$B" && pwd)/libadvshim.so
# A sanitized build: its runtime must come first in LD_PRELOAD.
SAN_RT=$(ldd "$LIB" 2>/dev/null | awk '/lib(asan|tsan|ubsan)\.so/ { print $3; exit }')
PRELOAD=${SAN_RT:+$SAN_RT:}$LIB
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0}
AP=$B/tests/shim/adaptprog
T=$(mktemp -d "${TMPDIR:-/tmp}/advshim-iprom.XXXXXX")
chmod 755 "$T"
pass=0 fail=0 failed=
PIDS=
cleanup() {
	for p in $PIDS; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT INT TERM
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() {
	fail=$((fail + 1)); failed="$failed $1"
	echo "FAIL $1: $2"
	[ -f "$T/out" ] && grep -v '^#' "$T/out" | head -n 30 | sed 's/^/    | /'
}
has() { grep -qE -- "$1" "$T/out"; }
[ -x "$A" ] && [ -x "$AP" ] || { echo "build $A $AP first" >&2; exit 1; }

# start NAME [VAR=VALUE]...: adaptprog on vec.bin with that environment,
# its stdin a FIFO held open (closing it ends it), until it prints
# "ready"; its PID in $LAST.
start() {
	name=$1; shift
	mkfifo "$T/$name.in"
	env "$@" "$AP" "$T/vec.bin" < "$T/$name.in" > "$T/$name.out" 2> "$T/$name.err" &
	LAST=$!
	PIDS="$PIDS $LAST"
	sleep 600 > "$T/$name.in" &
	PIDS="$PIDS $!"
	i=0
	while ! grep -q ready "$T/$name.out" 2>/dev/null && [ $i -lt 300 ]; do
		sleep 0.05; i=$((i + 1))
	done
}
prom() { "$A" inspect --prometheus "$@" > "$T/out" 2> "$T/err"; RC=$?; }
lint() {
	command -v promtool > /dev/null || return 0
	promtool check metrics < "$T/out" > "$T/lint" 2>&1 ||
		{ bad "lint $1" "$(cat "$T/lint")"; return 1; }
}

head -c 3000000 /dev/urandom > "$T/vec.bin"
printf '%s\n' 'version = 1;' \
	'rules = ( { name = "all"; match = "**"; random = "normal"; sequential = "normal"; } );' \
	> "$T/fixed.conf"
printf '%s\n' 'version = 1;' 'adaptive = { interval_ms = 100; };' \
	'rules = ( { name = "all"; match = "**"; random = "adaptive"; } );' \
	> "$T/adaptive.conf"

start plain; PLAIN=$LAST
start shim ADVSHIM_CONFIG="$T/fixed.conf" LD_PRELOAD="$PRELOAD"; SHIM=$LAST
start adapt ADVSHIM_CONFIG="$T/adaptive.conf" ADVSHIM_DISABLE_FILE="$T/disable" LD_PRELOAD="$PRELOAD"
ADAPT=$LAST
sleep 0.5	# a few adaptive samples

prom "$PLAIN"
if [ $RC -eq 0 ] && lint plain &&
   has "^advshim_shim_loaded\{pid=\"$PLAIN\",comm=\"adaptprog\"\} 0$" &&
   has "^advshim_shim_active\{pid=\"$PLAIN\",comm=\"adaptprog\"\} 0$" &&
   has "^advshim_shim_random_vmas\{pid=\"$PLAIN\",comm=\"adaptprog\"\} 1$" &&
   ! has "^advshim_shim_rewritten_total\{pid=\"$PLAIN\""; then
	ok "no shim, rr mapped: loaded 0, active 0, random_vmas 1, no counters"
else
	bad plain "rc $RC"
fi

prom "$SHIM"
if [ $RC -eq 0 ] && lint shim &&
   has "^advshim_shim_active\{pid=\"$SHIM\",comm=\"adaptprog\"\} 1$" &&
   has "^advshim_shim_random_vmas\{pid=\"$SHIM\",comm=\"adaptprog\"\} 0$" &&
   has "^advshim_shim_rewritten_total\{pid=\"$SHIM\",comm=\"adaptprog\"\} 1$" &&
   has "^advshim_shim_calls_total\{pid=\"$SHIM\",comm=\"adaptprog\",family=\"madvise\",advice=\"random\"\} 1$" &&
   has "^advshim_shim_info\{pid=\"$SHIM\",comm=\"adaptprog\",state=\"active\",policy=\"$T/fixed.conf\"" &&
   has "^advshim_shim_disabled\{pid=\"$SHIM\",comm=\"adaptprog\"\} 0$"; then
	ok "under the shim, fixed rule: active 1, rewritten_total 1, calls_total per advice, random_vmas 0, info labels"
else
	bad shim "rc $RC"
fi

prom "$ADAPT"
if [ $RC -eq 0 ] && lint adaptive &&
   has "^advshim_shim_adaptive_info\{pid=\"$ADAPT\",comm=\"adaptprog\",state=\"sampling\",choice=\"(normal|random)\",reason=\"[a-z ]+\",memcg=\"/" &&
   has "^advshim_shim_adaptive_samples_total\{pid=\"$ADAPT\",comm=\"adaptprog\"\} [1-9][0-9]*$" &&
   has "^advshim_shim_adaptive_need_bytes\{pid=\"$ADAPT\",comm=\"adaptprog\"\} 3000000$" &&
   has "^advshim_shim_adaptive_guarded\{pid=\"$ADAPT\",comm=\"adaptprog\"\} [01]$"; then
	ok "adaptive: adaptive_info state sampling with choice/reason/memcg, samples_total > 0, need_bytes 3000000, guarded"
else
	bad adaptive "rc $RC"
fi
# The kill switch under a running process: disabled 1, active 0, the
# adaptive state "disabled" with choice random; then back.
touch "$T/disable"
i=0
until prom "$ADAPT"; has "^advshim_shim_adaptive_info\{.*state=\"disabled\",choice=\"random\"" || [ $i -ge 300 ]; do
	sleep 0.1; i=$((i + 1))
done
if has "^advshim_shim_disabled\{pid=\"$ADAPT\",comm=\"adaptprog\"\} 1$" &&
   has "^advshim_shim_active\{pid=\"$ADAPT\",comm=\"adaptprog\"\} 0$" &&
   has "state=\"disabled\",choice=\"random\""; then
	ok "kill switch file present: disabled 1, active 0, adaptive state disabled, choice random"
else
	bad kill "no disabled state after 5 s"
fi
rm -f "$T/disable"
i=0
until prom "$ADAPT"; has "^advshim_shim_active\{pid=\"$ADAPT\",comm=\"adaptprog\"\} 1$" || [ $i -ge 300 ]; do
	sleep 0.1; i=$((i + 1))
done
has "state=\"sampling\"" && ok "kill switch file removed: active 1, sampling again" || bad unkill "still disabled"

prom
if [ $RC -eq 0 ] && lint all &&
   has "^advshim_shim_loaded\{pid=\"$PLAIN\",comm=\"adaptprog\"\} 0$" &&
   has "^advshim_shim_loaded\{pid=\"$SHIM\",comm=\"adaptprog\"\} 1$" &&
   has "^advshim_shim_loaded\{pid=\"$ADAPT\",comm=\"adaptprog\"\} 1$" &&
   has "^advshim_node_lru_gen_enabled -?[0-9]+$" &&
   [ "$(grep -c '^# TYPE advshim_shim_active ' "$T/out")" = 1 ]; then
	ok "every process: the three listed, one TYPE line per family, lru_gen_enabled"
else
	bad all "rc $RC"
fi
if [ "$(id -u)" = 0 ] && command -v setpriv > /dev/null; then
	setpriv --reuid=65534 --regid=65534 --clear-groups "$A" inspect --prometheus > "$T/out" 2> "$T/err"
	RC=$?
	if [ $RC -eq 0 ] && ! has "pid=\"$SHIM\""; then
		ok "as nobody: exit 0, root's processes left out quietly"
	else
		bad nobody "rc $RC $(cat "$T/err")"
	fi
fi
prom 1073741823
[ $RC -eq 1 ] && grep -q "no process 1073741823" "$T/err" && ok "a PID that is not there: exit 1, says so" || bad nopid "rc $RC"
"$A" inspect --prometheus --json 1 > /dev/null 2>&1
[ $? -eq 2 ] && ok "--prometheus with --json: exit 2" || bad both "not 2"

echo "inspect --prometheus: $pass passed, $fail failed${failed:+ (failed:$failed)}"
[ $fail -eq 0 ]
