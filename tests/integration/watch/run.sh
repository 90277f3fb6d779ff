#!/bin/sh
# Integration tests for advshim-watch: the real binary against fixture trees
# that tests/integration/watch/player.c plays timelines into (the player is
# the kernel side: it renders lru_gen and answers the commands written to
# it).  We check the exact commands that reached the fake lru_gen, that
# healthy timelines get none, and the decisions in the JSON log.
#
# usage: run.sh BUILD_DIR
set -u
B=${1:-build}
W=$B/advshim-watch
P=$B/tests/watch_player
HERE=$(dirname "$0")
T=$(mktemp -d "${TMPDIR:-/tmp}/advshim-watch-it.XXXXXX")
chmod 755 "$T"
pass=0
fail=0
skip=0
failed=
PLAYER_PID=
WATCH_PID=

cleanup() {
	[ -n "$PLAYER_PID" ] && kill "$PLAYER_PID" 2>/dev/null
	[ -n "$WATCH_PID" ] && kill "$WATCH_PID" 2>/dev/null
	if [ -n "$T" ] && [ -d "$T" ]; then
		chattr -i "$T"/*/debugfs/lru_gen 2>/dev/null
		rm -rf "$T"
	fi
}
trap cleanup EXIT INT TERM

ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() {
	fail=$((fail + 1)); failed="$failed $1"
	echo "FAIL $1: $2"
	[ -n "${D:-}" ] && [ -f "$D/watch.log" ] && sed 's/^/    | /' "$D/watch.log" | tail -n 25
	[ -n "${D:-}" ] && [ -f "$D/commands.log" ] && sed 's/^/    > /' "$D/commands.log"
}
skipped() { skip=$((skip + 1)); echo "SKIP $1: $2"; }

# start_player NAME KERNEL  (timeline on stdin): fixture tree in $D
start_player() {
	D=$T/$1
	mkdir -p "$D"
	cat > "$D/timeline"
	"$P" "$D" "$D/timeline" 100 "$2" 2> "$D/player.err" &
	PLAYER_PID=$!
	i=0
	while [ ! -f "$D/ready" ] && [ $i -lt 500 ]; do
		sleep 0.02; i=$((i + 1))
	done
}

# start_watch KERNEL ARGS...: the daemon on $D in the background
start_watch() {
	k=$1; shift
	"$W" --debugfs-root "$D/debugfs" --sysfs-root "$D/sys" \
		--cgroup-root "$D/cg" --kernel "$k" --log-format json \
		--interval-ms 300 "$@" > "$D/watch.log" 2> "$D/watch.err" &
	WATCH_PID=$!
}

# finish: wait for the timeline to end, stop the daemon, check it exits 0
finish() {
	wait "$PLAYER_PID"; prc=$?
	PLAYER_PID=
	sleep 0.4
	kill -TERM "$WATCH_PID" 2>/dev/null
	wait "$WATCH_PID"; WRC=$?
	WATCH_PID=
	[ $prc -eq 0 ] || echo "    player exited $prc: $(cat "$D/player.err")"
}

events() { grep -c "\"event\":\"$1\"" "$D/watch.log"; }
# mark DIR: the watcher's mark for the shim on a memcg's directory
# (common/guard.h), "none" without one
mark() {
	python3 -c 'import os, sys
try:
    print(os.getxattr(sys.argv[1], "user.advshim.watch").decode())
except OSError:
    print("none")' "$1"
}
accepted() { grep -c '^ACCEPT' "$D/commands.log"; }
ncommands() { wc -l < "$D/commands.log" | tr -d ' '; }
first_cmd() { sed -n '1s/^[A-Z]* //p' "$D/commands.log"; }
second_cmd() { sed -n '2s/^[A-Z]* //p' "$D/commands.log"; }

[ -x "$W" ] && [ -x "$P" ] || { echo "build $W and $P first" >&2; exit 1; }

# --- 1. the 6.12 lab stall: one burst of four steps, verified, healthy ---
# (the oldest generation is evicted round with every page coming back and
# the youngest holds 25% of the file pages: the burst folds it into the
# oldest, 4 commands in one write; after it every page is in the oldest
# generation and nothing is left to age)
start_player thrash-6.12 6.12 <<'TL'
0 add 1 /
0 healthy 1 100 100
0 add 42 /system.slice/opensearch.service
0 thrash 42 20000 20000 2
80 end
TL
start_watch 6.12 --metrics-file "$D/metrics.prom"
sleep 2
mark_during=$(mark "$D/cg/system.slice/opensearch.service")
finish
mark_after=$(mark "$D/cg/system.slice/opensearch.service")
now=$(date +%s)
if [ "$mark_during" != none ] && [ $((now - mark_during)) -le 30 ] &&
   [ "$mark_after" = none ]; then
	ok "live: the memcg carries the mark for the shim ($mark_during), removed at exit"
else
	bad mark-6.12 "mark during the run '$mark_during' (now $now), after '$mark_after'"
fi
if [ "$(first_cmd)" = "+ 42 0 7" ] && [ "$(second_cmd)" = "+ 42 0 8" ] &&
   [ "$(ncommands)" -eq 4 ] && [ "$(accepted)" -eq 4 ] &&
   [ "$(events age)" -eq 1 ] &&
   grep -q '"event":"age".*"cmd":"+ 42 0 7;+ 42 0 8;+ 42 0 9;+ 42 0 10"' "$D/watch.log" &&
   grep -q '"event":"healthy","memcg":"/system.slice/opensearch.service"' "$D/watch.log" &&
   ! grep -q '"memcg":"/",.*"event":"thrash"' "$D/watch.log" &&
   grep -q '^advshim_watch_agings_total{memcg="/system.slice/opensearch.service",node="0"} 4$' "$D/metrics.prom" &&
   [ $WRC -eq 0 ] && grep -q '"event":"stop"' "$D/watch.log"; then
	ok "6.12 stall: '+ 42 0 7;...;+ 42 0 10' in one write, verified, healthy, metrics, exit 0 on SIGTERM"
else
	bad thrash-6.12 "expected one write of four accepted commands + 42 0 7 .. + 42 0 10 (rc $WRC)"
fi

# --- 2. busy but healthy memcgs (aging, 10% of evictions refault) ---------
start_player healthy 6.12 <<'TL'
0 add 1 /
0 healthy 1 30000 3000
0 add 7 /busy.slice/aging.service
0 healthy 7 50000 5000
0 add 8 /idle.slice/sleepy.service
0 idle 8
40 end
TL
start_watch 6.12
finish
if [ "$(ncommands)" -eq 0 ] && [ "$(events thrash)" -eq 0 ] &&
   [ "$(events age)" -eq 0 ] && [ $WRC -eq 0 ]; then
	ok "busy healthy + idle memcgs: no command written, no thrash"
else
	bad healthy "a healthy timeline got commands or thrash events"
fi

# --- 3. evictions that do not come back are not thrash ------------------
start_player streaming 6.14 <<'TL'
0 add 1 /
0 add 9 /search.slice/lucene.service
0 thrash 9 20000 2000 0
30 end
TL
start_watch 6.14
finish
if [ "$(ncommands)" -eq 0 ] && [ "$(events age)" -eq 0 ] &&
   [ "$(events thrash)" -eq 0 ]; then
	ok "evictions with 10% refaults (streaming): not thrash, nothing written"
else
	bad streaming "a memcg whose evictions do not come back was aged"
fi

# --- 4. dry run: would_age with the exact command, no write ---------------
start_player dry-run 6.12 <<'TL'
0 add 42 /system.slice/opensearch.service
0 thrash 42 20000 20000 0
30 end
TL
start_watch 6.12 --dry-run
sleep 1.5
mark_during=$(mark "$D/cg/system.slice/opensearch.service")
finish
if [ "$(ncommands)" -eq 0 ] && [ "$(events would_age)" -ge 1 ] &&
   [ "$mark_during" = none ] &&
   grep -q '"event":"would_age".*"cmd":"+ 42 0 7;+ 42 0 8;+ 42 0 9;+ 42 0 10"' "$D/watch.log"; then
	ok "dry run: would_age '+ 42 0 7;...;+ 42 0 10' logged, nothing written, no mark"
else
	bad dry-run "dry run wrote or did not log would_age"
fi

# --- 5. 7.0: u64 IDs, a path with spaces, --cgroup selection --------------
start_player u64-7.0 7.0 <<'TL'
0 add 9876543210 /kubepods.slice/pod 1/app
0 thrash 9876543210 20000 20000 1
0 add 9876543211 /other.slice/ignored.service
0 thrash 9876543211 20000 20000 1
40 end
TL
start_watch 7.0 --cgroup '/kubepods.slice/pod 1/app'
finish
if [ "$(first_cmd)" = "+ 9876543210 0 7" ] && [ "$(ncommands)" -eq 4 ] &&
   ! grep -q 'ignored.service' "$D/watch.log"; then
	ok "7.0: '+ 9876543210 0 7' for a path with spaces; unwatched memcg untouched"
else
	bad u64-7.0 "wrong command for the u64 ID / watched path"
fi

# --- 6. ID reused by another path mid-run: no write to the wrong memcg ----
start_player reuse 6.12 <<'TL'
0 add 5 /a.slice/dying.service
# 2000 evicted a second: the oldest generation (10000 pages) is evicted
# half round after 2.5 s; before that /a dies and /b gets ID 5
0 thrash 5 2000 2000 0
8 remove 5
8 add 5 /b.slice/newborn.service
8 idle 5
40 end
TL
start_watch 6.12
finish
if [ "$(ncommands)" -eq 0 ] && [ "$(events vanished)" -ge 1 ]; then
	ok "ID 5 reused by another path: vanished logged, nothing written"
else
	bad reuse "a command reached the reused ID"
fi

# --- 7. memcg removed mid-run ---------------------------------------------
start_player removed 6.12 <<'TL'
0 add 1 /
0 add 12 /batch.slice/job.scope
0 thrash 12 2000 2000 0
6 remove 12
30 end
TL
start_watch 6.12
finish
if [ "$(ncommands)" -eq 0 ] && grep -q '"event":"vanished","memcg":"/batch.slice/job.scope"' "$D/watch.log" &&
   [ $WRC -eq 0 ]; then
	ok "memcg removed mid-run: vanished, no write, keeps running"
else
	bad removed "removal mishandled"
fi

# --- 8. lru_gen disabled: idle, then enabled again ------------------------
start_player disabled 6.12 <<'TL'
0 add 42 /system.slice/opensearch.service
0 thrash 42 20000 20000 1
0 enabled 0x0000
20 enabled 0x0007
70 end
TL
start_watch 6.12
finish
if [ "$(events idle)" -eq 1 ] && grep -q 'enabled again' "$D/watch.log" &&
   [ "$(first_cmd)" = "+ 42 0 7" ]; then
	ok "lru_gen disabled: one idle line, resumes when enabled, then ages"
else
	bad disabled "idle handling wrong"
fi

# --- 9. garbled lru_gen: no write in that interval ------------------------
start_player garbled 6.12 <<'TL'
0 add 42 /system.slice/opensearch.service
0 thrash 42 20000 20000 0
0 garble
1 garble
2 garble
3 garble
4 garble
5 garble
6 garble
7 garble
8 garble
9 garble
10 garble
11 garble
12 garble
13 garble
14 garble
15 garble
16 garble
17 garble
18 garble
19 garble
20 end
TL
start_watch 6.12
finish
if [ "$(ncommands)" -eq 0 ] && grep -q 'lru_gen_full garbled at line' "$D/watch.log"; then
	ok "garbled lru_gen: error logged, nothing written"
else
	bad garbled "wrote while lru_gen was garbled"
fi

# --- 10. EPERM from the write (immutable file, as under lockdown) ---------
D=$T/probe-immutable
mkdir -p "$D" && : > "$D/f"
if [ "$(id -u)" = 0 ] && chattr +i "$D/f" 2>/dev/null; then
	chattr -i "$D/f"
	start_player eperm 6.12 <<'TL'
0 immutable 1
0 add 42 /system.slice/opensearch.service
0 thrash 42 20000 20000 0
50 end
TL
	start_watch 6.12
	finish
	chattr -i "$D/debugfs/lru_gen" 2>/dev/null
	if [ "$(accepted)" -eq 0 ] &&
	   grep -q '"event":"age_failed".*"error":"Operation not permitted"' "$D/watch.log" &&
	   grep -q 'lockdown' "$D/watch.log" &&
	   [ "$(grep -c 'write refused' "$D/watch.log")" -eq 1 ] &&
	   [ "$(events age_failed)" -le 4 ]; then
		ok "EPERM on write: one refused write, lockdown explained, then none"
	else
		bad eperm "EPERM handling wrong"
	fi
else
	skipped eperm "needs root and a filesystem with chattr +i under ${TMPDIR:-/tmp}"
fi

# --- 11. SIGHUP reloads the config ----------------------------------------
start_player sighup 6.12 <<'TL'
0 add 42 /system.slice/opensearch.service
0 thrash 42 20000 20000 0
60 end
TL
printf 'watch = {\n  min_turnover_pct = 1000;\n};\n' > "$D/policy.conf"
"$W" --debugfs-root "$D/debugfs" --sysfs-root "$D/sys" --cgroup-root "$D/cg" \
	--kernel 6.12 --log-format json --interval-ms 300 \
	--config "$D/policy.conf" > "$D/watch.log" 2> "$D/watch.err" &
WATCH_PID=$!
sleep 2
n_before=$(ncommands)
printf 'watch = {\n  min_turnover_pct = 50;\n  max_agings_per_min = 4;\n};\n' > "$D/policy.conf"
kill -HUP "$WATCH_PID"
finish
if [ "$n_before" -eq 0 ] && grep -q 'configuration reloaded' "$D/watch.log" &&
   [ "$(ncommands)" -eq 4 ] && [ "$(events age)" -eq 1 ]; then
	ok "SIGHUP: min_turnover_pct 1000 -> 50 reloaded, then one burst of four"
else
	bad sighup "reload did not take effect (before: $n_before)"
fi

# --- 12. startup errors: clear message, non-zero exit ---------------------
D=$T/errors
mkdir -p "$D/empty" "$D/nolrugen" "$D/sys" "$D/cg/memory"
: > "$D/nolrugen/other"
: > "$D/cg/memory/memory.stat"
"$W" --once --debugfs-root "$D/empty" --sysfs-root "$D/sys" --cgroup-root "$D/cg" 2> "$D/e1"; r1=$?
"$W" --once --debugfs-root "$D/nolrugen" --sysfs-root "$D/sys" --cgroup-root "$D/cg" 2> "$D/e2"; r2=$?
printf 'version = 1;\nwatch = {\n  interval_ms = 0;\n};\n' > "$D/bad.conf"
"$W" --once --config "$D/bad.conf" 2> "$D/e3"; r3=$?
printf 'watch = {\n  persit = 2;\n};\n' > "$D/typo.conf"
"$W" --once --config "$D/typo.conf" 2> "$D/e4"; r4=$?
if [ $r1 -eq 1 ] && grep -q 'mount -t debugfs none' "$D/e1" &&
   [ $r2 -eq 1 ] && grep -q 'CONFIG_LRU_GEN' "$D/e2" &&
   [ $r3 -eq 2 ] && grep -q "bad.conf:3: watch.interval_ms" "$D/e3" &&
   [ $r4 -eq 2 ] && grep -q 'typo.conf:2: watch: unknown key "persit" (expected interval_ms, dry_run,' "$D/e4"; then
	ok "errors: debugfs not mounted, no CONFIG_LRU_GEN, config file:line"
else
	bad errors "startup errors ($r1 $r2 $r3 $r4): $(cat "$D"/e1 "$D"/e2 "$D"/e3 "$D"/e4)"
fi

# Bad option values and an unreadable config: one line each, exit 2,
# the same wording as the config file's errors, never a line 0.
"$W" --once --min-turnover-pct 0 2> "$D/e7"; r7=$?
"$W" --once --max-agings-per-min 65 2> "$D/e8"; r8=$?
"$W" --once --cgroup system.slice 2> "$D/e9"; r9=$?
"$W" --once --config "$D/missing.conf" 2> "$D/e10"; r10=$?
if [ $r7 -eq 2 ] && [ "$(cat "$D/e7")" = "advshim-watch: --min-turnover-pct: 0 is out of range (expected 1 to 1000)" ] &&
   [ $r8 -eq 2 ] && grep -q -- '--max-agings-per-min: 65 is out of range (expected 1 to 64)' "$D/e8" &&
   [ $r9 -eq 2 ] && grep -q -- "--cgroup: \"system.slice\" must start with '/'" "$D/e9" &&
   [ $r10 -eq 2 ] && [ "$(cat "$D/e10")" = "advshim-watch: $D/missing.conf: cannot read: No such file or directory" ]; then
	ok "bad option values and a missing config: clear message, exit 2"
else
	bad options "($r7 $r8 $r9 $r10): $(cat "$D"/e7 "$D"/e8 "$D"/e9 "$D"/e10)"
fi

# This machine's own kernel (no lru_gen here): a real, honest refusal.
"$W" --once > /dev/null 2> "$D/e5"; r5=$?
if [ -e /sys/kernel/debug/lru_gen ]; then
	skipped host "this host has lru_gen; the refusal path is not exercised"
elif [ $r5 -eq 1 ] && grep -Eq 'mount -t debugfs|CONFIG_LRU_GEN|must run as root' "$D/e5"; then
	ok "host kernel without lru_gen: $(cat "$D/e5" | cut -c1-90)"
else
	bad host "unexpected result on the host kernel ($r5): $(cat "$D/e5")"
fi

# Not root: refused unless pointed at a fixture tree.
if [ "$(id -u)" = 0 ] && command -v setpriv > /dev/null; then
	setpriv --reuid=65534 --regid=65534 --clear-groups "$W" --once \
		> /dev/null 2> "$D/e6"; r6=$?
	if [ $r6 -eq 1 ] && grep -q 'must run as root' "$D/e6"; then
		ok "non-root without --debugfs-root: refused"
	else
		bad nonroot "non-root not refused ($r6): $(cat "$D/e6")"
	fi
else
	skipped nonroot "needs root and setpriv to drop privileges"
fi

echo "watch integration: $pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
