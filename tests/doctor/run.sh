#!/bin/sh
# SPDX-License-Identifier: MIT
#
# run.sh BUILD - `advshim doctor` judged by its output and exit code:
#  1. on this host (no MGLRU here: exit 0, "MGLRU not available: not
#     affected"), real processes holding rr mappings: a dynamic one, a
#     static one, a Go one (when `go build` works offline), one under the
#     shim; --json parsed by python3; non-root; a --pid that is not there;
#  2. against trees of real kernel text (tests/fixtures/kernels: the lab's
#     captures of Debian's 6.1, 6.12 and 7.3 kernels during the stall and
#     after the shim's recovery) with the smaps, cgroup and auxv of the
#     real processes above copied in.  lru_gen_full and memory.stat are
#     FIFOs fed one capture per read, in the order doctor reads them, so
#     the two readings doctor samples are the lab's two, a second apart.
set -u
B=${1:-build}
A=$B/advshim
RR=$B/tests/doctor/rrprog
RRS=$B/tests/doctor/rrprog-static
FIX=tests/fixtures/kernels
T=$(mktemp -d "${TMPDIR:-/tmp}/advshim-doctor.XXXXXX")
chmod 755 "$T"
pass=0 fail=0 skip=0 failed=
PIDS=

cleanup() {
	for p in $PIDS; do kill "$p" 2>/dev/null; done
	rm -rf "$T"
}
trap cleanup EXIT INT TERM

ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() {
	fail=$((fail + 1)); failed="$failed $1"
	echo "FAIL $1: $2"
	[ -f "$T/out" ] && sed 's/^/    | /' "$T/out" | head -n 40
}
skipped() { skip=$((skip + 1)); echo "SKIP $1: $2"; }
has() { grep -qF -- "$1" "$T/out"; }

[ -x "$A" ] && [ -x "$RR" ] && [ -x "$RRS" ] || { echo "build $A, $RR and $RRS first" >&2; exit 1; }

# start NAME CMD...: run CMD in the background until it prints "ready";
# its PID in $LAST.
start() {
	name=$1; shift
	"$@" >"$T/$name.ready" 2>"$T/$name.err" &
	LAST=$!
	PIDS="$PIDS $LAST"
	i=0
	while ! grep -q ready "$T/$name.ready" 2>/dev/null && [ $i -lt 300 ]; do
		sleep 0.05; i=$((i + 1))
	done
	grep -q ready "$T/$name.ready" || { echo "$name did not start: $(cat "$T/$name.err")" >&2; exit 1; }
}

# doctor ARGS...: run it, output in $T/out, exit code in $RC
# (DOCTOR_WRAP: a command to run it under, e.g. "valgrind -q
# --error-exitcode=9 --leak-check=full": any report changes the code)
doctor() {
	# shellcheck disable=SC2086
	timeout 120 ${DOCTOR_WRAP:-} "$A" doctor "$@" >"$T/out" 2>&1
	RC=$?
}

json_keys() {
	python3 -c '
import json, sys
d = json.load(sys.stdin)
for k in ("schema", "host", "root", "kernel", "watchers", "memcgs", "processes",
          "unreadable_processes", "root_would_add", "verdict", "exit"):
    assert k in d, k
for k in ("release", "mglru", "enabled", "min_ttl_ms", "debugfs", "lockdown", "stall_series"):
    assert k in d["kernel"], k
for p in d["processes"]:
    for k in ("pid", "exe", "memcg", "files", "shim", "reach", "verdict", "affected", "covered", "reason", "remedy"):
        assert k in p, k
print(json.dumps(d))' <"$T/out" >"$T/json" 2>"$T/json.err"
}

# ---------------------------------------------------------------- 1. host
head -c 3000000 /dev/urandom >"$T/vec.bin"
head -c 200000 /dev/urandom >"$T/seq.bin"
chmod 644 "$T/vec.bin" "$T/seq.bin"
start dyn "$RR" "$T/vec.bin" "$T/seq.bin"; DYN=$LAST
start static "$RRS" "$T/vec.bin"; STATIC=$LAST

doctor --sample-ms 0
if [ -d /sys/kernel/mm/lru_gen ]; then
	skipped host-no-mglru "this host has MGLRU"
elif [ $RC -eq 0 ] && has "MGLRU not available: not affected" &&
     grep -q "^pid $DYN (rrprog)" "$T/out" && has "rr          2.9 MiB  $T/vec.bin" &&
     has "sr          0.2 MiB  $T/seq.bin" && grep -q "^pid $STATIC (rrprog-static)" "$T/out"; then
	ok "host without MGLRU: exit 0, 'MGLRU not available: not affected', the rr and sr files listed with their sizes"
else
	bad host-no-mglru "rc $RC"
fi

doctor --pid "$DYN" --pid "$STATIC" --sample-ms 0
if [ "$(grep -c '^pid ' "$T/out")" -eq 2 ] && [ "$(grep -c "$T/vec.bin" "$T/out")" -eq 2 ] &&
   has "shim: not active: not in LD_PRELOAD" && has "shim: not active: static binary"; then
	ok "--pid: only those two; the file mapped twice counted once per process; static binary named as such"
else
	bad pid-filter "rc $RC"
fi

doctor --json --pid "$DYN" --sample-ms 0
if json_keys && python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
p = d["processes"][0]
assert p["pid"] == int(sys.argv[2]), p
f = {x["path"]: x for x in p["files"]}
assert f[sys.argv[3] + "/vec.bin"]["advice"] == "rr" and f[sys.argv[3] + "/vec.bin"]["size_bytes"] == 3000000
assert f[sys.argv[3] + "/vec.bin"]["vmas"] == 2
assert f[sys.argv[3] + "/seq.bin"]["advice"] == "sr"
assert p["shim"]["loaded"] is False and p["reach"] == "preload"
assert d["memcgs"][0]["need_bytes"] == 3200000, d["memcgs"][0]
assert d["exit"] == 0' "$T/json" "$DYN" "$T"; then
	ok "--json parses (python3 json), has the documented keys, sizes, advice, need counts each file once"
else
	bad json "$(cat "$T/json.err")"
fi

# under the shim: active, no rr left (the adaptive default: the file fits)
# (a sanitized shim needs its runtime first in LD_PRELOAD, as in
# tests/integration/shim/run.sh)
san_rt=$(ldd "$B/libadvshim.so" | awk '/lib(asan|tsan|ubsan)\.so/ { print $3; exit }')
start shim env LD_PRELOAD="${san_rt:+$san_rt:}$B/libadvshim.so" "$RR" "$T/vec.bin"; SHIMP=$LAST
doctor --pid "$SHIMP" --sample-ms 0
if grep -q "^pid $SHIMP" "$T/out" && has "shim: active" && ! has "  rr " && [ $RC -eq 0 ]; then
	ok "under the shim: listed as active, no rr left in its smaps"
else
	bad shim-host "rc $RC"
fi
# its kill switch file present from the start: loaded, not active, rr kept
touch "$T/disable"
start shimoff env ADVSHIM_DISABLE_FILE="$T/disable" LD_PRELOAD="${san_rt:+$san_rt:}$B/libadvshim.so" "$RR" "$T/vec.bin"
doctor --pid "$LAST" --sample-ms 0
if grep -q "^pid $LAST" "$T/out" && has "shim: not active: loaded, but its kill switch is on" &&
   has "  rr " && [ $RC -eq 0 ]; then
	ok "under the shim with its kill switch on: not active (says why), rr kept"
else
	bad shim-killed "rc $RC"
fi

# Go: LD_PRELOAD cannot reach its raw syscalls
GO_OK=0
if command -v go >/dev/null 2>&1 &&
   GOPROXY=off GOFLAGS=-mod=mod GOTOOLCHAIN=local go build -o "$T/gorr" tests/doctor/gorr/main.go >"$T/go.err" 2>&1; then
	start go "$T/gorr" "$T/vec.bin"; GOP=$LAST
	doctor --pid "$GOP" --sample-ms 0
	if has "shim: not active: Go binary" && has "$T/vec.bin"; then
		GO_OK=1
		ok "Go binary: its rr mapping listed, the shim said unable to reach it (.note.go.buildid)"
	else
		bad go "rc $RC"
	fi
else
	skipped go "go build failed or go absent: $(tail -n 1 "$T/go.err" 2>/dev/null)"
fi

# non-root: sees only its own processes, says what root would add
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null 2>&1; then
	start nobody setpriv --reuid=65534 --regid=65534 --clear-groups "$RR" "$T/vec.bin"
	timeout 60 setpriv --reuid=65534 --regid=65534 --clear-groups "$A" doctor --sample-ms 0 >"$T/out" 2>&1
	RC=$?
	if grep -q "(rrprog) /.*/tests/doctor/rrprog, " "$T/out" && ! grep -q "^pid $DYN " "$T/out" &&
	   has "not root: running as root would add the processes of other users" && [ $RC -eq 0 ]; then
		ok "as nobody: its own rr process listed, root's not, and says what root would add"
	else
		bad non-root "rc $RC"
	fi
else
	skipped non-root "needs root and setpriv to switch to nobody"
fi

# --cgroup: only processes in (or below) that memcg; the memcg reported
own=$(awk -F: '$2 ~ /(^|,)memory(,|$)/ { m = $3 } $1 == "0" { u = $3 }
	END { print (m != "" ? m : u) }' "/proc/$DYN/cgroup")
doctor --cgroup /advshim-doctor-none --sample-ms 0
if [ $RC -eq 0 ] && ! grep -q '^pid ' "$T/out" && has "memcg /advshim-doctor-none (cgroup v"; then
	doctor --cgroup "$own" --sample-ms 0
	if grep -q "^pid $DYN " "$T/out"; then
		ok "--cgroup: a memcg without them lists none of the processes, their own memcg ($own) lists them"
	else
		bad cgroup-filter "own memcg $own: rc $RC"
	fi
else
	bad cgroup-filter "rc $RC"
fi

doctor --pid 1073741823 --sample-ms 0
if [ $RC -eq 2 ] && has "no process 1073741823"; then
	ok "a --pid that is not there: exit 2 with a message"
else
	bad no-pid "rc $RC"
fi
doctor --sample-ms x
[ $RC -eq 2 ] && ok "bad --sample-ms: exit 2" || bad bad-usage "rc $RC"

# ------------------------------------------------------ 2. kernel fixtures
# tree SERIES ARM: a root in $R with the series' kernel text and memcg
# /lab-ARM (128 MiB), lru_gen_full and memory.stat as FIFOs.
tree() {
	R=$T/root-$1-$2-$$-$(date +%s%N)
	F=$FIX/$1
	CG=$R/sys/fs/cgroup/lab-$2
	mkdir -p "$R/proc/sys/kernel" "$R/sys/kernel/mm/lru_gen" \
		"$R/sys/kernel/debug" "$R/sys/kernel/security" "$CG"
	cp "$F/version" "$R/proc/sys/kernel/osrelease"
	echo fixture-host >"$R/proc/sys/kernel/hostname"
	cp /proc/meminfo "$R/proc/meminfo"
	cp "$F/enabled" "$R/sys/kernel/mm/lru_gen/enabled"
	echo 0 >"$R/sys/kernel/mm/lru_gen/min_ttl_ms"
	case ${LOCKDOWN:-none} in
	none) echo "[none] integrity confidentiality" ;;
	integrity) echo "none [integrity] confidentiality" ;;
	esac >"$R/sys/kernel/security/lockdown"
	echo "cpuset cpu io memory pids" >"$R/sys/fs/cgroup/cgroup.controllers"
	echo $((128 << 20)) >"$CG/memory.max"
	echo $((100 << 20)) >"$CG/memory.current"
	mkfifo "$R/sys/kernel/debug/lru_gen_full" "$CG/memory.stat"
}

# proc PID: the real process's smaps, auxv, environ, comm and executable
# into the tree, in memcg /lab-$ARM.
proc() {
	d=$R/proc/$1
	mkdir -p "$d"
	cat "/proc/$1/smaps" >"$d/smaps"
	cat "/proc/$1/auxv" >"$d/auxv"
	cat "/proc/$1/environ" >"$d/environ"
	cat "/proc/$1/comm" >"$d/comm"
	ln -s "$(readlink "/proc/$1/exe")" "$d/exe"
	ln -s "/proc/$1/mem" "$d/mem"
	ln -s / "$d/root"
	echo "0::${CG#"$R/sys/fs/cgroup"}" >"$d/cgroup"
}

# watcher PID ARGS...: a command line of advshim-watch in the tree
watcher() {
	d=$R/proc/$1; shift
	mkdir -p "$d"
	echo advshim-watch >"$d/comm"
	printf 'advshim-watch\0' >"$d/cmdline"
	for a in "$@"; do printf '%s\0' "$a" >>"$d/cmdline"; done
}

# feed SERIES ARM: the captures, in doctor's order of reads (the memcg's
# figures, then per reading lru_gen_full and memory.stat)
feed() {
	f=$FIX/$1/$2
	{ cat "$f/memory.stat.1" >"$CG/memory.stat" &&
	  cat "$f/lru_gen_full.1" >"$R/sys/kernel/debug/lru_gen_full" &&
	  cat "$f/memory.stat.1" >"$CG/memory.stat" &&
	  cat "$f/lru_gen_full.2" >"$R/sys/kernel/debug/lru_gen_full" &&
	  cat "$f/memory.stat.2" >"$CG/memory.stat"; } 2>/dev/null &
	FEEDER=$!
}

# mark AGE_S: advshim-watch's mark (common/guard.h) on $CG, AGE_S old;
# fails where the file system takes no user.* attributes
mark() {
	python3 -c 'import os, sys, time
os.setxattr(sys.argv[1], "user.advshim.watch",
            str(int(time.time()) - int(sys.argv[2])).encode())' "$CG" "$1" 2>/dev/null
}

# fixture SERIES ARM PID [watcher args]: doctor on that tree; with MARK=S
# in the environment, the memcg marked S seconds ago first
fixture() {
	fser=$1 farm=$2
	tree "$1" "$2"
	[ -z "${MARK:-}" ] || mark "$MARK" || MARKED=no
	proc "$3"
	if [ $# -gt 3 ]; then
		shift 3
		watcher 4000000 "$@"
	fi
	feed "$fser" "$farm"
	doctor --root "$R" --sample-ms 1000
	kill "$FEEDER" 2>/dev/null
	wait "$FEEDER" 2>/dev/null
}

for ser in 6.12 7.3; do
	fixture "$ser" no-fix "$DYN"
	if [ $RC -eq 1 ] && grep -q "^pid $DYN (rrprog) .*, memcg /lab-no-fix$" "$T/out" &&
	   has "$T/vec.bin" && has "verdict: affected, stalled now" &&
	   has "stall signature over" && has "STALLED" &&
	   has "LD_PRELOAD=" && has "ADVSHIM_WATCH_ARGS=--cgroup /lab-no-fix"; then
		ok "$ser stall capture: exit 1, pid/file/memcg affected and stalled now, remedy: the shim (fits) or the watcher"
	else
		bad "stall-$ser" "rc $RC"
	fi
done

fixture 6.12 no-fix "$STATIC"
if [ $RC -eq 1 ] && has "verdict: affected, stalled now" && has "static binary" &&
   has "ADVSHIM_WATCH_ARGS=--cgroup /lab-no-fix" && ! has "LD_PRELOAD=" &&
   has "advshim run --seccomp -- " && has "rrprog-static ..."; then
	ok "6.12 stall, static binary: no preload; advshim run --seccomp (fits) or the watcher as remedy"
else
	bad stall-static "rc $RC"
fi

if [ $GO_OK = 1 ]; then
	fixture 7.3 no-fix "$GOP"
	if [ $RC -eq 1 ] && has "Go binary" && ! has "LD_PRELOAD=" &&
	   has "advshim-watch.service.d" && has "advshim run --seccomp -- "; then
		ok "7.3 stall, Go binary: no preload; advshim run --seccomp (fits) or the watcher as remedy"
	else
		bad stall-go "rc $RC"
	fi
fi

# Covered by a watcher only when it can write and the memcg is not
# stalled now: the shim arm's capture has no stall, the no-fix one does.
fixture 6.12 shim "$DYN" --cgroup /lab-shim --log-format json
if [ $RC -eq 0 ] && has "verdict: covered by advshim-watch"; then
	ok "a live advshim-watch --cgroup /lab-shim, no stall now: covered, exit 0"
else
	bad watcher-live "rc $RC"
fi
fixture 6.12 no-fix "$DYN" --cgroup /lab-no-fix --log-format json
if [ $RC -eq 1 ] && has "verdict: affected, stalled now" &&
   has "a live advshim-watch ages it, yet it is stalled now" &&
   has "read its log" && ! has "covered by advshim-watch"; then
	ok "a live advshim-watch on a memcg stalled now: not covered, exit 1"
else
	bad watcher-stalled "rc $RC"
fi
LOCKDOWN=integrity fixture 6.12 shim "$DYN" --cgroup /lab-shim
if [ $RC -eq 1 ] && has "verdict: affected, not covered" &&
   has "lockdown (integrity) refuses debugfs writes"; then
	ok "a live advshim-watch under lockdown=integrity cannot write: not covered, exit 1"
else
	bad watcher-lockdown "rc $RC"
fi
fixture 6.12 shim "$DYN" --dry-run
if [ $RC -eq 1 ] && has "dry run: ages nothing" && has "verdict: affected, not covered" &&
   has "runs with --dry-run"; then
	ok "a dry-run advshim-watch, no stall now: not covered, exit 1"
else
	bad watcher-dry-nostall "rc $RC"
fi
fixture 6.12 no-fix "$DYN" --dry-run
if [ $RC -eq 1 ] && has "dry run: ages nothing" && has "affected, stalled now"; then
	ok "a dry-run advshim-watch covers nothing: exit 1"
else
	bad watcher-dry "rc $RC"
fi

# The watcher's mark: doctor shows it, and its absence where a live
# watcher ages the memcg (the shim there cannot see the watcher).
if has "advshim-watch's mark"; then	# the dry-run fixture above: no mark
	bad mark-dry "a mark line without a mark: $(grep -F "mark" "$T/out")"
fi
fixture 6.12 shim "$DYN" --cgroup /lab-shim
if [ $RC -eq 0 ] && has "advshim-watch's mark: none, though a live watcher ages this memcg" &&
   has "ReadWritePaths="; then
	ok "a live watcher whose mark is missing: doctor says the shim cannot see it"
else
	bad mark-missing "rc $RC"
fi
MARKED=yes
MARK=3 fixture 6.12 shim "$DYN" --cgroup /lab-shim
unset MARK
if [ $MARKED = no ]; then
	skipped mark "the file system of $T takes no user.* attributes"
else
	if [ $RC -eq 0 ] && grep -Eq "advshim-watch's mark: [3-9] s old, fresh: the shim's adaptive rule here is guarded" "$T/out" &&
	   ! has "mark: none"; then
		ok "a fresh mark: doctor says the shim's rule is guarded"
	else
		bad mark-fresh "rc $RC $(grep -F "mark" "$T/out")"
	fi
	MARK=100 fixture 6.12 shim "$DYN"
	unset MARK
	if has "advshim-watch's mark: 10" && has "stale (no watcher refreshes it): not guarded"; then
		ok "a mark 100 s old, no watcher: stale, not guarded"
	else
		bad mark-stale "rc $RC $(grep -F "mark" "$T/out")"
	fi
fi

fixture 6.12 shim "$SHIMP"
if [ $RC -eq 0 ] && has "verdict: covered by the shim" && has "no stall"; then
	ok "6.12 shim-arm capture, process under the shim: covered, no stall, exit 0"
else
	bad shim-fixture "rc $RC"
fi

fixture 6.1 no-fix "$DYN"
if [ $RC -eq 0 ] && has "stall on this series: no" && has "verdict: not affected: 6.1/6.2"; then
	ok "6.1 capture: the series ages by itself, not affected, exit 0"
else
	bad series-6.1 "rc $RC"
fi

tree 6.12 no-fix
proc "$DYN"
feed 6.12 no-fix
mark 2 || MARKED=no
doctor --root "$R" --sample-ms 1000 --json
kill "$FEEDER" 2>/dev/null
if [ $RC -eq 1 ] && json_keys && python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
m = d["memcgs"][0]
assert m["path"] == "/lab-no-fix" and m["fit"] == "fits", m
if sys.argv[2] == "yes":
    assert m["guarded"] and 2 <= m["mark_age_s"] <= 9, m
else:
    assert not m["guarded"] and m["mark_age_s"] is None, m
assert m["stall"]["sampled"] and m["stall"]["stalled"] and m["stall"]["thrashing"], m
assert d["kernel"]["enabled"] == 7 and d["kernel"]["stall_series"] == "yes"
p = d["processes"][0]
assert p["affected"] and not p["covered"] and p["verdict"] == "affected, stalled now"
assert any("ADVSHIM_WATCH_ARGS=--cgroup /lab-no-fix" in r for r in p["remedy"])
assert d["exit"] == 1' "$T/json" "$MARKED"; then
	ok "--json on the 6.12 stall: stalled, fits, affected, the watcher remedy, exit 1"
else
	bad json-fixture "rc $RC $(cat "$T/json.err")"
fi

echo "doctor: $pass passed, $fail failed, $skip skipped${failed:+ (failed:$failed)}"
[ $fail -eq 0 ]
