#!/bin/sh
# adaptive.sh BUILD [SANITIZER] - random = "adaptive" in real memory cgroups.
#
# adaptprog maps a file, advises it RANDOM once and never calls the shim
# again; the test puts it in a memory cgroup of its own (cgroup v1's
# memory hierarchy, or v2 where that is mounted), changes the limit and
# judges the advice in force from outside: VmFlags `rr` of the file's
# VMAs in /proc/PID/smaps, `advshim inspect`, the shim's log.  Files are
# sparse (need is their size; nothing is read).  No timing is asserted:
# conditions are waited for with generous bounds.  Needs root; skipped
# without a memory controller.
set -u
build=${1:-build}
san=${2:-}
here=$(cd "$(dirname "$0")" && pwd)
bin=$(cd "$build/tests/shim" && pwd)
lib=$(cd "$build" && pwd)/libadvshim.so
advshim=$(cd "$build" && pwd)/advshim
pass=0
fail=0
MIB=1048576

ok() { pass=$((pass + 1)); echo "ok   $1"; }
no() { fail=$((fail + 1)); echo "FAIL $1"; shift; for l in "$@"; do echo "     $l"; done; }
check() {	# check NAME OUTPUT PATTERN (extended regex)
	if printf '%s\n' "$2" | grep -Eq -- "$3"; then ok "$1"; else no "$1" "want /$3/" "got: $2"; fi
}

if [ "$(id -u)" != 0 ]; then
	echo "SKIP adaptive tests: need root (memory cgroups)"
	exit 0
fi
if [ -f /sys/fs/cgroup/memory/cgroup.procs ]; then
	cgv=1 cgroot=/sys/fs/cgroup/memory limit_file=memory.limit_in_bytes usage_file=memory.usage_in_bytes
elif grep -qw memory /sys/fs/cgroup/cgroup.controllers 2>/dev/null; then
	cgv=2 cgroot=/sys/fs/cgroup limit_file=memory.max usage_file=memory.current
	grep -qw memory /sys/fs/cgroup/cgroup.subtree_control ||
		echo +memory > /sys/fs/cgroup/cgroup.subtree_control
else
	echo "SKIP adaptive tests: no memory cgroup controller"
	exit 0
fi

tmp=$(mktemp -d /tmp/advshim-adapt.XXXXXX)
chmod 755 "$tmp"
cg=$cgroot/advshim-it-adapt-$$
pids=
cleanup() {
	for p in $pids; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	[ -d "$cg" ] && chmod 444 "$cg/$usage_file" 2>/dev/null
	[ -d "$cg" ] && rmdir "$cg" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM
[ -n "${KEEP:-}" ] && trap - EXIT
mkdir "$cg" || { echo "FAIL cannot create $cg"; exit 1; }
limit() { echo "$1" > "$cg/$limit_file"; }

san_rt=$(ldd "$lib" | awk '/lib(asan|tsan|ubsan)\.so/ { print $3; exit }')
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
export TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1}
unset ADVSHIM_LOG

# Samples every 100 ms; verdicts hold 2 samples; switches 1 s apart.
cat > "$tmp/adaptive.conf" <<EOF
version = 1;
log = { level = "info"; };
adaptive = { interval_ms = 100; persist = 2; dwell_ms = 1000;
             max_per_min = 8; fail_after = 2; };
rules = ( { name = "all"; match = "**"; random = "adaptive"; } );
EOF
chmod 644 "$tmp/adaptive.conf"
truncate -s 16M "$tmp/small"
truncate -s 192M "$tmp/big"
chmod 644 "$tmp/small" "$tmp/big"

# start NAME -- CMD...: CMD (adaptprog, maybe behind setpriv) in the test
# memcg, its stdin a FIFO held open on fd 3, $extra_env added to its
# environment; sets $pid from its "ready" line.
start() {
	name=$1; shift 2
	rm -f "$tmp/$name.in"
	mkfifo "$tmp/$name.in"
	env ${extra_env:-} ADVSHIM_CONFIG="${conf:-$tmp/adaptive.conf}" \
		LD_PRELOAD="${san_rt:+$san_rt:}$lib" \
		sh -c 'echo $$ > "$0/cgroup.procs" && exec "$@"' "$cg" "$@" \
		< "$tmp/$name.in" > "$tmp/$name.out" 2> "$tmp/$name.err" &
	pids="$pids $!"
	exec 3> "$tmp/$name.in"
	pid=
	wait_for "$name ready" grep -q '^ready' "$tmp/$name.out" || return 1
	pid=$(awk '/^ready/ { print $2; exit }' "$tmp/$name.out")
}
stop() { exec 3>&-; wait 2>/dev/null; }

# wait_for WHAT CMD...: until CMD succeeds, at most 30 s.
wait_for() {
	what=$1; shift
	i=0
	while ! "$@" 2>/dev/null; do
		i=$((i + 1))
		if [ $i -ge ${WAIT_TICKS:-600} ]; then
			no "waiting for $what"
			return 1
		fi
		sleep 0.05
	done
}
# rr_of PID FILE: "rr" if some VMA of FILE in PID has VmFlags rr, else "-".
rr_of() {
	awk -v f="$2" '/^[0-9a-f]+-[0-9a-f]+ / { in_f = ($6 == f) }
		in_f && /^VmFlags:/ && / rr/ { rr = 1 }
		END { print rr ? "rr" : "-" }' "/proc/$1/smaps"
}
is_rr() { [ "$(rr_of "$1" "$2")" = rr ]; }
not_rr() { [ "$(rr_of "$1" "$2")" = - ]; }
inspect_has() { "$advshim" inspect "$1" | grep -Eq -- "$2"; }
# sampled PID: the shim has taken a few samples since the last switch.
# applied PID: the ranges the shim's sampler has re-advised, from --json.
applied() {
	"$advshim" inspect --json "$1" | python3 -c '
import json, sys
print(json.load(sys.stdin)["shim"]["adaptive"]["ranges_applied"])'
}
sampled() {
	"$advshim" inspect --json "$1" | python3 -c '
import json, sys
a = json.load(sys.stdin)["shim"]["adaptive"]
sys.exit(0 if a["samples"] >= 3 and a["sample_age_s"] < 5 else 1)'
}

test_fits() {
	limit $((256 * MIB))
	start fits -- "$bin/adaptprog" "$tmp/small" || return
	wait_for "a few samples" sampled "$pid"
	check "fits (16 MiB file, 256 MiB memcg): no rr" "$(rr_of "$pid" "$tmp/small")" '^-$'
	out=$("$advshim" inspect "$pid")
	check "fits: inspect says normal, fits, with the numbers" "$out" \
		'adaptive: normal \(fits: need 16 MiB = [0-9]+% of capacity [0-9]+ MiB'
	check "fits: inspect names the memcg and limit" "$out" \
		"memcg v$cgv /advshim-it-adapt-$$: limit 256.0 MiB"
	check "fits: inspect marks the file" "$(echo "$out" | grep -F "$tmp/small")" \
		'^- .* normal +/'
	check "fits: the first decision in the history" "$out" \
		'switch [0-9.]+ s ago: start -> normal \(fits'
	out=$("$advshim" inspect --json "$pid" | python3 -c '
import json, sys
d = json.load(sys.stdin)
a = d["shim"]["adaptive"]
f = [x for x in d["files"] if x["path"] == sys.argv[1]][0]
print(a["choice"], a["reason"], a["need_bytes"], a["limit_bytes"], a["switches"],
      a["history"][0]["from"], f["adaptive"], f["advice"])' "$tmp/small" 2>&1)
	check "fits: inspect --json" "$out" "^normal fits $((16 * MIB)) $((256 * MIB)) 0 start normal -$"
	stop
	check "fits: one log line for the first decision" \
		"$(grep -c 'adaptive: start -> normal (fits: need 16 MiB' "$tmp/fits.err")" '^1$'
}

test_nofit() {
	limit $((128 * MIB))
	start nofit -- "$bin/adaptprog" "$tmp/big" || return
	wait_for "a few samples" sampled "$pid"
	check "does not fit (192 MiB file, 128 MiB memcg): rr kept" "$(rr_of "$pid" "$tmp/big")" '^rr$'
	check "does not fit: inspect says random, does not fit" "$("$advshim" inspect "$pid")" \
		'adaptive: random \(does not fit: need 192 MiB = 1[0-9][0-9]% of capacity'
	stop
	check "does not fit: the first decision logged, no switch" \
		"$(grep -c 'adaptive: start -> random (does not fit: need 192 MiB' "$tmp/nofit.err") $(grep -c -- '-> normal' "$tmp/nofit.err")" '^1 0$'
}

# The limit changes under a process that never calls the shim again.
test_switch() {
	limit $((1024 * MIB))
	start switch -- "$bin/adaptprog" -t "$tmp/big" || return
	wait_for "normal at 1 GiB" not_rr "$pid" "$tmp/big" &&
		ok "switch: 192 MiB file, 1 GiB memcg: normal"
	limit $((128 * MIB))
	wait_for "rr after lowering the limit to 128 MiB" is_rr "$pid" "$tmp/big" &&
		ok "switch: limit lowered to 128 MiB: rr back (the thread that advised is gone)"
	out=$("$advshim" inspect "$pid")
	check "switch: inspect shows the switch and why" "$out" \
		'switch [0-9.]+ s ago: normal -> random \(does not fit, need 1[0-9][0-9]% of capacity\)'
	limit $((1024 * MIB))
	wait_for "no rr after raising the limit" not_rr "$pid" "$tmp/big" &&
		ok "switch: limit raised to 1 GiB: normal again"
	wait_for "2 switches counted" inspect_has "$pid" ' 2 switches, '
	check "switch: inspect counts 2 switches" "$("$advshim" inspect "$pid")" \
		'random -> normal \(fits'
	stop
	check "switch: each switch logged once" \
		"$(grep -c 'adaptive: normal -> random (does not fit' "$tmp/switch.err") $(grep -c 'adaptive: random -> normal (fits' "$tmp/switch.err")" '^1 1$'
}

test_fork() {
	limit $((1024 * MIB))
	# TSan cannot start threads in the child of a multi-threaded process
	# unless told to try (die_after_fork=0); the shim's restart is one.
	extra_env="TSAN_OPTIONS=$TSAN_OPTIONS:die_after_fork=0"
	start fork -- "$bin/adaptprog" -F "$tmp/big" || { extra_env=; return; }
	extra_env=
	wait_for "the child" grep -q '^child' "$tmp/fork.out"
	child=$(awk '/^child/ { print $2; exit }' "$tmp/fork.out")
	check "fork: child normal (inherited and re-advised)" "$(rr_of "${child:-0}" "$tmp/big")" '^-$'
	wait_for "the child's sampler" inspect_has "${child:-0}" 'sampler running'
	wait_for "the child's first sample" sampled "${child:-0}"
	check "fork: the child's re-advice is counted (its ranges applied above the parent's)" \
		"$(( $(applied "${child:-0}" || echo 0) - $(applied "$pid" || echo 0) ))" '^[1-9][0-9]*$'
	limit $((128 * MIB))
	wait_for "rr in the parent" is_rr "$pid" "$tmp/big" &&
		ok "fork: parent switches to random"
	wait_for "rr in the child" is_rr "${child:-0}" "$tmp/big" &&
		ok "fork: child (its sampler restarted) switches to random"
	stop
}

test_exec() {
	limit $((256 * MIB))
	start exec -- "$bin/adaptprog" -x "$tmp/small" || return
	wait_for "a few samples" sampled "$pid"
	check "exec: the new image decides: normal" "$(rr_of "$pid" "$tmp/small")" '^-$'
	check "exec: the new image's sampler runs" "$("$advshim" inspect "$pid")" \
		'samples \(0 unreadable\), last [0-9.]+ s ago; sampler running'
	stop
}

# A file growing under its mapping (LMDB maps 1 GiB over a small data file
# that grows inside the map): the need follows the file's size.
test_grow() {
	limit $((128 * MIB))
	truncate -s 8K "$tmp/grows"
	chmod 644 "$tmp/grows"
	start grow -- "$bin/adaptprog" -m 1024 "$tmp/grows" || return
	wait_for "a few samples" sampled "$pid"
	check "grow: an 8 KiB file in a 1 GiB map fits: normal" "$(rr_of "$pid" "$tmp/grows")" '^-$'
	check "grow: inspect counts the file's size, not the map's" "$("$advshim" inspect "$pid")" \
		'adaptive: normal \(fits: need 8 KiB = '
	truncate -s 192M "$tmp/grows"
	wait_for "rr once the file outgrew the memcg" is_rr "$pid" "$tmp/grows" &&
		ok "grow: the file grew to 192 MiB in a 128 MiB memcg: rr back"
	check "grow: inspect's need followed the file" "$("$advshim" inspect "$pid")" \
		'adaptive: random \(does not fit: need 192 MiB = '
	stop
}

# Fail safe: the memcg becomes unreadable for the process (nobody, the
# usage file mode 000), then readable again.
test_unreadable() {
	if ! command -v setpriv >/dev/null; then
		echo "SKIP unreadable memcg: no setpriv"
		return
	fi
	limit $((1024 * MIB))
	start unreadable -- setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$bin/adaptprog" "$tmp/big" || return
	wait_for "normal" not_rr "$pid" "$tmp/big" && ok "unreadable: normal while readable"
	chmod 000 "$cg/$usage_file"
	wait_for "rr when unreadable" is_rr "$pid" "$tmp/big" &&
		ok "unreadable: memcg unreadable: back to the application's random"
	check "unreadable: inspect says why" "$("$advshim" inspect "$pid")" \
		'adaptive: random \(memcg unreadable: error 13\)'
	chmod 444 "$cg/$usage_file"
	wait_for "normal when readable again" not_rr "$pid" "$tmp/big" &&
		ok "unreadable: readable again: normal"
	stop
	check "unreadable: the fail-safe switch and the recovery logged once each" \
		"$(grep -c 'adaptive: normal -> random (memcg unreadable: error 13)' "$tmp/unreadable.err") $(grep -c 'figures readable again' "$tmp/unreadable.err")" '^1 1$'
}

command -v python3 >/dev/null || { echo "SKIP adaptive tests: need python3"; exit 0; }
# The kill switch (shim/kill.c): the file appears under a running process
# whose adaptive choice is normal; the sampler gives the range its rr back
# without a restart, and takes it away again once the file is gone.
test_kill() {
	limit $((256 * MIB))
	rm -f "$tmp/disable"
	extra_env="ADVSHIM_DISABLE_FILE=$tmp/disable"
	start kill -- "$bin/adaptprog" -t "$tmp/small" || { extra_env=; return; }
	extra_env=
	kpid=$pid
	wait_for "normal before the switch" not_rr "$kpid" "$tmp/small" &&
		ok "kill: fits, no rr before the switch"
	touch "$tmp/disable"
	wait_for "rr with the kill switch on" is_rr "$kpid" "$tmp/small" &&
		ok "kill: file present: rr back in VmFlags, same process (no restart)"
	check "kill: inspect says the kill switch is on" "$("$advshim" inspect "$kpid")" \
		'kill switch on: passing advice through'
	check "kill: inspect --json disabled true, adaptive state" \
		"$("$advshim" inspect --json "$kpid" | python3 -c '
import json, sys
s = json.load(sys.stdin)["shim"]
print(s["disabled"], s["adaptive"]["state"])' 2>&1)" '^True kill switch on'
	rm -f "$tmp/disable"
	wait_for "normal again once the file is gone" not_rr "$kpid" "$tmp/small" &&
		ok "kill: file removed: normal again, same process"
	kill -0 "$kpid" && ok "kill: the process ran throughout"
	stop
	check "kill: the log says on and off" \
		"$(grep -c 'kill switch .* present: passing advice through' "$tmp/kill.err") $(grep -c 'kill switch .* gone' "$tmp/kill.err")" '^1 1$'
	check "kill: one first decision, then random -> normal once the file is gone" \
		"$(grep -c 'adaptive: start -> normal' "$tmp/kill.err") $(grep -c 'adaptive: random -> normal (fits' "$tmp/kill.err")" '^1 1$'
}

# The kill switch on from the start holds the first decision back; once
# the file is gone the sampler takes it, logged and recorded as the first.
test_kill_at_start() {
	limit $((256 * MIB))
	touch "$tmp/disable"
	extra_env="ADVSHIM_DISABLE_FILE=$tmp/disable"
	start killstart -- "$bin/adaptprog" -t "$tmp/small" || { extra_env=; return; }
	extra_env=
	check "kill at start: rr kept while the file is there" "$(rr_of "$pid" "$tmp/small")" '^rr$'
	rm -f "$tmp/disable"
	wait_for "normal once the file is gone" not_rr "$pid" "$tmp/small" &&
		ok "kill at start: file removed: normal"
	wait_for "the switch in the history" inspect_has "$pid" 'switch [0-9.]+ s ago: '
	check "kill at start: inspect's history starts with the first decision" \
		"$("$advshim" inspect "$pid" | grep 'switch [0-9.]* s ago: ')" 'start -> normal \(fits'
	stop
	check "kill at start: logged as the first decision, once" \
		"$(grep -c 'adaptive: start -> normal (fits' "$tmp/killstart.err") $(grep -c 'adaptive: random -> ' "$tmp/killstart.err")" '^1 0$'
}

# A fixed rule (random = "normal") while the file is there: passed through.
test_kill_fixed() {
	printf '%s\n' 'version = 1;' \
		'rules = ( { name = "all"; match = "**"; random = "normal"; } );' \
		> "$tmp/fixed.conf"
	chmod 644 "$tmp/fixed.conf"
	limit $((256 * MIB))
	touch "$tmp/disable"
	extra_env="ADVSHIM_DISABLE_FILE=$tmp/disable"
	conf=$tmp/fixed.conf
	start fixedoff -- "$bin/adaptprog" "$tmp/small" || { extra_env= conf=; return; }
	check "kill, fixed rule, file present at start: rr passed through" \
		"$(rr_of "$pid" "$tmp/small")" '^rr$'
	stop
	rm -f "$tmp/disable"
	start fixedon -- "$bin/adaptprog" "$tmp/small" || { extra_env= conf=; return; }
	extra_env= conf=
	check "kill, fixed rule, no file: rewritten to normal" \
		"$(rr_of "$pid" "$tmp/small")" '^-$'
	stop
}

# setmark SECONDS_AGO: advshim-watch's mark (common/guard.h) on the test
# memcg, as if the watcher had refreshed it that long ago; "-" removes it.
setmark() {
	python3 -c 'import os, sys, time
d, ago = sys.argv[1], sys.argv[2]
if ago == "-":
    os.removexattr(d, "user.advshim.watch")
else:
    os.setxattr(d, "user.advshim.watch", b"%d" % (time.time() - int(ago)))' "$cg" "$1"
}
guarded_json() {
	"$advshim" inspect --json "$1" | python3 -c '
import json, sys
a = json.load(sys.stdin)["shim"]["adaptive"]
print(a["choice"], a["reason"], str(a["guarded"]).lower())'
}

# guarded_start NAME [FLAG...]: adaptprog FLAG... on the 192 MiB file, RANDOM
# (does not fit), then the mark fresh and the memcg sized so that the file
# fits at 9x% of capacity: RANDOM kept, guarded.  1 after a SKIP where
# cgroupfs takes no user.* attributes, or when the program did not start.
guarded_start() {
	name=$1; shift
	if ! setmark 0 2>/dev/null; then
		echo "SKIP $name: no user.* attributes on $cg"
		return 1
	fi
	setmark -
	limit $((128 * MIB))
	start "$name" -- "$bin/adaptprog" "$@" "$tmp/big" || return 1
	wait_for "rr" is_rr "$pid" "$tmp/big"
	setmark 0
	# 192 MiB in about 205 MiB of room: 93-97%, "fits" unguarded
	limit $((205 * MIB))
	wait_for "the guarded verdict" inspect_has "$pid" 'adaptive: random \(guarded: need 192 MiB = 9[0-9]% .*, guarded\)'
}

# Guarded (docs/adaptive.md): with the watcher's fresh mark, RANDOM stays
# above guard_fit_pct (90%) where the file fits; a stale mark (a dead
# watcher's) does not count, and the size rule gives normal.
test_guarded() {
	guarded_start guarded || return
	sleep 1.5
	check "guarded: 192 MiB at 9x% of capacity, mark fresh: rr kept" "$(rr_of "$pid" "$tmp/big")" '^rr$'
	check "guarded: inspect --json" "$(guarded_json "$pid")" '^random guarded true$'
	setmark 60
	wait_for "normal once the mark is stale" not_rr "$pid" "$tmp/big" &&
		ok "guarded: a mark 60 s old does not count: normal (fits)"
	check "guarded: inspect --json, stale mark" "$(guarded_json "$pid")" '^normal fits false$'
	stop
	setmark - 2>/dev/null
	check "guarded: the switch logged as fits" \
		"$(grep -c 'adaptive: random -> normal (fits: need 192 MiB' "$tmp/guarded.err")" '^1$'
}

# room BYTES: the limit that leaves BYTES of page cache beside what the
# memcg holds now that is not page cache (the sampler's capacity).
room() {
	file=$(awk '$1 == "file" || $1 == "cache" { print $2; exit }' "$cg/memory.stat")
	limit $(($(cat "$cg/$usage_file") - ${file:-0} + $1))
}

# Guarded across fork: the child's new sampler goes on from the parent's
# guarded RANDOM at 9x% of capacity (docs/adaptive.md, "Fork"); a first
# decision by size alone would give it normal ("fits").
test_guarded_fork() {
	extra_env="TSAN_OPTIONS=$TSAN_OPTIONS:die_after_fork=0"
	guarded_start gfork -F -L || { extra_env=; return; }
	extra_env=
	echo >&3
	wait_for "the fork" grep -q '^forked' "$tmp/gfork.out"
	# the child's memory too (a sanitizer's is large), before its first sample
	room $((202 * MIB))
	wait_for "the guarded verdict again" inspect_has "$pid" 'adaptive: random \(guarded: .*, guarded\)'
	echo >&3
	wait_for "the child" grep -q '^child' "$tmp/gfork.out"
	child=$(awk '/^child/ { print $2; exit }' "$tmp/gfork.out")
	wait_for "the child's sampler" inspect_has "${child:-0}" 'sampler running'
	wait_for "the child's guarded verdict" inspect_has "${child:-0}" 'adaptive: random \(guarded: .*, guarded\)'
	sleep 1
	check "guarded fork: the child keeps rr (its sampler goes on from the parent's choice)" \
		"$(rr_of "${child:-0}" "$tmp/big")" '^rr$'
	check "guarded fork: the child logs no first decision (it changed nothing)" \
		"$(grep -c "advshim\[${child:-0}\]: adaptive: " "$tmp/gfork.err")" '^0$'
	setmark 60
	wait_for "normal in the child once the mark is stale" not_rr "${child:-0}" "$tmp/big" &&
		ok "guarded fork: a stale mark gives the child normal (fits)"
	stop
	setmark - 2>/dev/null
}

test_fits
test_nofit
test_guarded
test_guarded_fork
test_switch
test_fork
test_exec
test_grow
test_unreadable
test_kill
test_kill_at_start
test_kill_fixed
echo "shim adaptive: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
