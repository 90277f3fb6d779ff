#!/bin/sh
# SPDX-License-Identifier: MIT
#
# run.sh BUILD - `advshim run --seccomp` on real programs (make
# check-seccomp), judged by what the kernel shows: the mapping's VmFlags
# in /proc/PID/smaps (rr = MADV_RANDOM in force), exit statuses and
# deaths by signal, errno values, /proc/PID/status.
#   the static probe (tests/seccomp/probe.c): rr gone under the default
#     policy, kept by a `keep` rule, by the adaptive default for a file
#     larger than its memcg (and logged why), and on anonymous memory, EINVAL and
#     ENOMEM as without the filter, its pid, exit code and signal its own,
#     per-process decisions (`processes`, also across an exec in place),
#     fadvise64 trapped only when a
#     rule acts on it, fail open when the filter cannot be installed, and
#     ENOSYS (no hang) once the supervisor is killed;
#   a multi-threaded Go program forking children (tests/seccomp/gofork,
#     built offline when go is there): rr gone in parent and children;
#   tools/programs' advshim-bolt (bbolt, static Go): rr gone.
set -u
B=${1:-build}
A=$B/advshim
P=$B/tests/seccomp/probe
BOLT=$B/advshim-bolt
T=$(mktemp -d "${TMPDIR:-/tmp}/advshim-seccomp.XXXXXX")
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
	for f in "$T/out" "$T/err"; do
		[ -s "$f" ] && sed 's/^/    | /' "$f" | head -n 20
	done
}
skipped() { skip=$((skip + 1)); echo "SKIP $1: $2"; }
has() { grep -qF -- "$1" "$T/out"; }
has_err() { grep -qF -- "$1" "$T/err"; }

# run ARGS...: advshim run ARGS, stdout in $T/out, stderr in $T/err,
# status in RC; waits for the supervisor's last line when logging.
run() {
	timeout 20 "$A" run "$@" >"$T/out" 2>"$T/err"
	RC=$?
}

# wait_log FILE WORD: up to 10 s for the supervisor to write WORD.
wait_log() {
	i=0
	while [ $i -lt 100 ] && ! grep -qF -- "$2" "$1" 2>/dev/null; do
		sleep 0.1; i=$((i + 1))
	done
}

if [ ! -x "$P" ] || [ ! -x "$A" ]; then
	echo "FAIL check-seccomp: $P or $A not built"
	exit 1
fi
head -c 4194304 /dev/urandom >"$T/data.bin"
cp "$T/data.bin" "$T/keep-data.bin"

# 0. Without the filter the kernel sets rr (else nothing below means much).
"$P" rr "$T/data.bin" >"$T/out" 2>"$T/err"
if has "madvise=0 errno=0 rr=1"; then
	ok "plain: the static probe's raw madvise(MADV_RANDOM) leaves rr"
else
	bad plain "$(cat "$T/out")"
fi

# 1. The default policy: rr gone, the call reports success.
run --seccomp -l info -- "$P" rr "$T/data.bin"
wait_log "$T/err" "calls trapped"
if [ $RC -eq 0 ] && has "madvise=0 errno=0 rr=0" &&
   has_err "$T/data.bin: dropped (default: adaptive, normal"; then
	ok "--seccomp, default policy: rr gone, madvise returned 0, the log names the file and the adaptive verdict"
else
	bad default "rc $RC"
fi

# 1b. The default policy where the file does not fit the process's memcg:
# the adaptive rule keeps RANDOM (rr stays), and the info log says so,
# with the figures (a 16 MiB file in an 8 MiB memcg, v2 or v1: the
# soak's memcg_create).
. "$(dirname "$0")/../../tools/lucene/soak/memcg.sh"
head -c 16777216 /dev/urandom >"$T/big.bin"
if CG=$(memcg_create "advshim-seccomp-nofit-$$" $((8 << 20))); then
	timeout 20 sh -c 'echo $$ >"$0/cgroup.procs" && exec "$1" run --seccomp -l info -- "$2" rr "$3"' \
		"$CG" "$A" "$P" "$T/big.bin" >"$T/out" 2>"$T/err"
	RC=$?
	wait_log "$T/err" "calls trapped"
	if [ $RC -eq 0 ] && has "madvise=0 errno=0 rr=1" &&
	   has_err "$T/big.bin: continued (default: adaptive, random; random (does not fit: need 16 MiB"; then
		ok "--seccomp, default policy, a file larger than its memcg: rr kept, the info log says why (adaptive, random, the figures)"
	else
		bad nofit "rc $RC"
	fi
	memcg_remove "$CG"
else
	skipped nofit "$CG"
fi
rm -f "$T/big.bin"

# 2. The program keeps the pid advshim run had (exec, not a child).
timeout 20 sh -c 'echo "sh=$$"; exec "$0" run --seccomp -- "$1" rr "$2"' \
	"$A" "$P" "$T/data.bin" >"$T/out" 2>"$T/err"
shpid=$(sed -n 's/^sh=//p' "$T/out")
if [ -n "$shpid" ] && has "pid=$shpid " && has "rr=0"; then
	ok "the program runs as the pid advshim run was started as ($shpid)"
else
	bad pid "sh pid '$shpid'"
fi

# 2b. Started with stdin and stdout closed: the program gets them closed
# (advshim's own descriptors stay above 2) and is still supervised.
"$A" run --seccomp -- "$P" rr "$T/data.bin" <&- >&- 2>"$T/err"
RC=$?
"$A" run --seccomp -- sh -c 'exec 3>&1; "$0" rr "$1" >&3' "$P" "$T/data.bin" \
	<&- >"$T/out" 2>>"$T/err"
if [ $RC -eq 0 ] && has "rr=0" && [ ! -s "$T/err" ]; then
	ok "stdin and stdout closed at the start: nothing said, the program still supervised"
else
	bad closed-fds "rc $RC"
fi

# 3. Exit status and death by signal pass through.
run --seccomp -- "$P" exit 7 "$T/data.bin"
if [ $RC -eq 7 ]; then
	ok "exit status 7 of the program is advshim run's"
else
	bad exit "rc $RC"
fi
if command -v python3 >/dev/null 2>&1; then
	rc=$(python3 -c 'import subprocess, sys
print(subprocess.run(sys.argv[1:]).returncode)' \
		"$A" run --seccomp -- "$P" signal 15 "$T/data.bin" 2>"$T/err")
	if [ "$rc" = "-15" ]; then
		ok "the program dies of its own SIGTERM (waitpid sees the signal, not an exit code)"
	else
		bad signal "returncode '$rc'"
	fi
else
	skipped signal "no python3 to tell a signal from an exit code"
fi

# 4. Calls that continue keep the kernel's own errors and results.
"$P" errors "$T/data.bin" >"$T/plain" 2>&1
run --seccomp -l debug -- "$P" errors "$T/data.bin"
wait_log "$T/err" "calls trapped"
if has "einval=EINVAL enomem=ENOMEM" && cmp -s "$T/out" "$T/plain" &&
   has_err "the kernel's own answer 2"; then
	ok "unaligned and unmapped ranges: EINVAL and ENOMEM as without the filter"
else
	bad errors "plain: $(cat "$T/plain")"
fi
run --seccomp -- "$P" anon
if has "madvise=0 rr=1"; then
	ok "anonymous memory (no file, no rule): MADV_RANDOM continues, rr set"
else
	bad anon "rc $RC"
fi

# 4b. A log reader that stops reading never holds the program: 20000
# debug lines (~3 MB) into a FIFO whose only reader (this shell, fd 7)
# never reads.  Without a non-blocking log the calls would wait for it.
rm -f "$T/bench.out" "$T/log.fifo"
mkfifo "$T/log.fifo"
exec 7<>"$T/log.fifo"
"$A" run --seccomp -l debug -- "$P" bench 20000 "$T/data.bin" \
	>"$T/bench.out" 2>"$T/log.fifo" 7<&- &
LP=$!
i=0
while [ $i -lt 100 ] && ! grep -q random_ns "$T/bench.out" 2>/dev/null; do
	sleep 0.1; i=$((i + 1))
done
if grep -q random_ns "$T/bench.out" 2>/dev/null; then
	ok "a log FIFO nobody reads: the program's 20000 trapped calls were answered within $((i / 10)) s (log lines dropped)"
else
	bad log-pipe "no result within 10 s while the log's reader did not read"
fi
exec 7<&-
wait "$LP"

# The same with stderr a stream socket nobody reads (journald's, for a
# service): the log goes out with send(MSG_DONTWAIT).
if command -v python3 >/dev/null 2>&1; then
	sk=$(timeout 30 python3 -c 'import socket, subprocess, sys
a, b = socket.socketpair()
r = subprocess.run(sys.argv[1:], stdout=subprocess.PIPE, stderr=b.fileno())
print(r.returncode, r.stdout.decode().split(" ")[0].startswith("random_ns="))' \
		"$A" run --seccomp -l debug -- "$P" bench 20000 "$T/data.bin" 2>&1)
	if [ "$sk" = "0 True" ]; then
		ok "a log socket nobody reads: the program's 20000 trapped calls answered, exit 0"
	else
		bad log-socket "'$sk'"
	fi
else
	skipped log-socket "no python3"
fi

# 5. A rule that keeps RANDOM keeps rr; the next rule drops it.
cat >"$T/keep.conf" <<EOF
version = 1;
rules = (
  { name = "keepers"; match = [ "**/keep-*" ]; random = "keep"; },
  { name = "rest"; match = [ "**" ]; random = "normal"; }
);
EOF
run --seccomp --policy "$T/keep.conf" -- "$P" rr "$T/keep-data.bin"
k=$(cat "$T/out")
run --seccomp --policy "$T/keep.conf" -- "$P" rr "$T/data.bin"
if echo "$k" | grep -q "rr=1" && has "rr=0"; then
	ok "a rule that keeps RANDOM keeps rr (keep-data.bin), random = normal drops it"
else
	bad keep "keep: $k"
fi

# 6. Per process: children inherit the filter; `processes` decides for
# each by its own executable.
cp "$P" "$T/other"
cat >"$T/procs.conf" <<EOF
version = 1;
processes = [ "probe" ];
rules = ( { name = "all"; match = [ "**" ]; random = "normal"; } );
EOF
run --seccomp --policy "$T/procs.conf" -- "$P" spawn "$T/other" "$T/data.bin"
if [ "$(grep -c 'rr=1' "$T/out")" = 1 ] && [ "$(grep -c 'rr=0' "$T/out")" = 1 ] &&
   head -n 1 "$T/out" | grep -q "rr=1"; then
	ok "per process: the forked child 'other' (not in processes) keeps rr, the parent 'probe' loses it"
else
	bad processes "rc $RC"
fi

# The same process execs another executable after a trapped call: the
# next call is decided for the new one (its maps read anew, its name).
run --seccomp --policy "$T/procs.conf" -- "$P" reexec "$T/other" "$T/data.bin"
p1=$(sed -n '1s/^pid=\([0-9]*\) .*/\1/p' "$T/out")
p2=$(sed -n '2s/^pid=\([0-9]*\) .*/\1/p' "$T/out")
if [ -n "$p1" ] && [ "$p1" = "$p2" ] && sed -n 1p "$T/out" | grep -q "rr=0" &&
   sed -n 2p "$T/out" | grep -q "rr=1"; then
	ok "exec in place: pid $p1 as 'probe' loses rr, then as 'other' (not in processes) keeps it"
else
	bad reexec "rc $RC"
fi

# 7. fadvise64 RANDOM is trapped only when a rule acts on it.
cat >"$T/fadv.conf" <<EOF
version = 1;
rules = ( { name = "f"; match = [ "**" ]; fadvise = { random = "skip"; }; } );
EOF
run --seccomp --policy "$T/fadv.conf" -l debug -- "$P" fadv "$T/data.bin"
wait_log "$T/err" "calls trapped"
f1=$(grep -c "fadvise64(3, 0, 0, random) $T/data.bin: dropped (f: skip)" "$T/err")
fo=$(cat "$T/out")
run --seccomp -l debug -- "$P" fadv "$T/data.bin"
wait_log "$T/err" "calls trapped"
if [ "$f1" = 1 ] && [ "$fo" = "fadvise=0 errno=0" ] && has "fadvise=0 errno=0" &&
   has_err "0 calls trapped"; then
	ok "fadvise64(RANDOM): dropped under fadvise random = skip, not trapped under the default policy"
else
	bad fadvise "under skip: '$fo', logged $f1"
fi

# 7a. A file target: the supervisor's lines there start with the UTC time
# (stderr's do not: the lines of 7 above are checked without one).
cat >"$T/file.conf" <<EOF
version = 1;
log = { level = "info"; target = "$T/sup.log"; };
rules = ( { name = "all"; match = [ "**" ]; random = "normal"; } );
EOF
rm -f "$T/sup.log"
t0=$(date -u +%s)
run --seccomp --policy "$T/file.conf" -- "$P" rr "$T/data.bin"
wait_log "$T/sup.log" "calls trapped"
t1=$(date -u +%s)
stamped=$(grep -cE '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z advshim-seccomp(\[[0-9]+\])?: ' "$T/sup.log" 2>/dev/null)
first=$(date -u -d "$(head -n 1 "$T/sup.log" | cut -c1-19)" +%s 2>/dev/null)
if [ "$stamped" -ge 2 ] && [ "$stamped" = "$(wc -l <"$T/sup.log")" ] &&
   [ -n "$first" ] && [ "$first" -ge "$t0" ] && [ "$first" -le "$t1" ] &&
   grep -q "madvise(0x[0-9a-f]*, [0-9]*, random) $T/data.bin: " "$T/sup.log" &&
   ! grep -q '^[0-9]' "$T/err"; then
	ok "file target: each supervisor line starts with the UTC time of the call ($stamped lines)"
else
	bad file-target "lines $stamped, first at ${first:-?} ($t0-$t1): $(head -n 3 "$T/sup.log" 2>/dev/null)"
fi

# 8. Fail open: the filter cannot be installed (the kernel's limit on the
# total length of stacked filters is reached): one warning, run plain.
timeout 20 "$P" stack "$A" run --seccomp -- "$P" rr "$T/data.bin" >"$T/out" 2>"$T/err"
RC=$?
if [ $RC -eq 0 ] && has "rr=1" &&
   [ "$(grep -c '^advshim run: --seccomp: filter not installed (Cannot allocate memory); running' "$T/err")" = 1 ]; then
	ok "fail open: seccomp() refused (ENOMEM), one warning, the program ran plain"
else
	bad failopen "rc $RC"
fi

# 8b. One listener per filter chain (kernel/seccomp.c has_duplicate_listener):
# a program that wants a seccomp listener of its own gets EBUSY under
# --seccomp, as docs/seccomp.md says.
"$P" listen >"$T/plain" 2>&1
run --seccomp -- "$P" listen
if grep -q "listener=0" "$T/plain" && has "listener=EBUSY"; then
	ok "a program's own seccomp listener: 0 plain, EBUSY under --seccomp (one listener per chain)"
else
	bad listener "plain: $(cat "$T/plain")"
fi

# 9. The supervisor dies: the program's trapped calls fail with ENOSYS
# and do not hang; no_new_privs and the filter are in its status.
rm -f "$T/out" "$T/err"
"$A" run --seccomp --verbose -- "$P" after 2 "$T/data.bin" >"$T/out" 2>"$T/err" &
RUNP=$!
PIDS="$PIDS $RUNP"
wait_log "$T/err" "supervisor pid"
sup=$(sed -n 's/.*supervisor pid \([0-9]*\).*/\1/p' "$T/err")
nnp=$(awk '/^NoNewPrivs:/ { n = $2 } /^Seccomp_filters:/ { f = $2 } END { print n "/" f }' "/proc/$RUNP/status" 2>/dev/null)
[ -n "$sup" ] && kill -9 "$sup"
wait "$RUNP"
RC=$?
if [ -n "$sup" ] && [ $RC -eq 0 ] && has "madvise=-1 errno=ENOSYS rr=0" &&
   [ "$nnp" = "1/1" ] && has_err "no_new_privs set"; then
	ok "supervisor killed: the later madvise(MADV_RANDOM) failed with ENOSYS at once, rr not set; NoNewPrivs 1, one filter"
else
	bad supervisor-death "rc $RC sup '$sup' status $nnp"
fi

# 9a. The supervisor dies while a call waits for it (stopped first, the
# program's call made, then SIGKILL): the kernel answers the pending call
# with ENOSYS (seccomp_notify_detach).
rm -f "$T/out" "$T/err"
"$A" run --seccomp --verbose -- "$P" after 2 "$T/data.bin" >"$T/out" 2>"$T/err" &
RUNP=$!
PIDS="$PIDS $RUNP"
wait_log "$T/err" "supervisor pid"
sup=$(sed -n 's/.*supervisor pid \([0-9]*\).*/\1/p' "$T/err")
[ -n "$sup" ] && kill -STOP "$sup"
# Up to 10 s for the probe to be waiting in madvise (system call 28).
i=0 sc=
while [ $i -lt 100 ] && [ "${sc%% *}" != 28 ]; do
	sleep 0.1; i=$((i + 1))
	sc=$(cat "/proc/$RUNP/syscall" 2>/dev/null)
done
sleep 0.5
st=$(awk '/^State:/ { print $2 }' "/proc/$RUNP/status" 2>/dev/null)
sc=$(cat "/proc/$RUNP/syscall" 2>/dev/null)
out=$(cat "$T/out")
[ -n "$sup" ] && kill -9 "$sup"
wait "$RUNP"
RC=$?
if [ -n "$sup" ] && [ "$st" = S ] && [ "${sc%% *}" = 28 ] && [ -z "$out" ] && [ $RC -eq 0 ] &&
   has "madvise=-1 errno=ENOSYS rr=0"; then
	ok "supervisor stopped: the call waits (state S in madvise, no output); killed: that pending call returns ENOSYS"
else
	bad pending-death "rc $RC sup '$sup' state '$st' syscall '$sc' out before '$out'"
fi

# 9b. advshim doctor tells a supervised process (text and --json).
"$A" run --seccomp -- "$P" after 3 "$T/data.bin" >/dev/null 2>&1 &
DP=$!
PIDS="$PIDS $DP"
sleep 0.5
"$A" doctor --pid "$DP" --sample-ms 0 >"$T/out" 2>"$T/err"
dj=$("$A" doctor --pid "$DP" --sample-ms 0 --json 2>/dev/null |
	python3 -c 'import json, sys
p = json.load(sys.stdin)["processes"][0]
print(p["seccomp_supervisor"] > 0, p["shim"]["why_not"].startswith("under advshim run --seccomp"))' 2>&1)
"$A" doctor --pid "$$" --sample-ms 0 --json 2>/dev/null >"$T/self.json"
kill "$DP" 2>/dev/null
wait "$DP" 2>/dev/null
if has "shim: not active: under advshim run --seccomp: its supervisor applies the policy" &&
   [ "$dj" = "True True" ] && grep -q '"seccomp_supervisor":0' "$T/self.json"; then
	ok "advshim doctor: a process under --seccomp is named so (text, --json seccomp_supervisor); one outside it has 0"
else
	bad doctor "json: $dj"
fi

# 10. A multi-threaded Go program forking children.
if command -v go >/dev/null 2>&1 &&
   (cd tests/seccomp/gofork && GOPROXY=off GOTOOLCHAIN=local CGO_ENABLED=0 \
	go build -o "$T/gofork" .) >"$T/go.err" 2>&1; then
	"$T/gofork" parent "$T/data.bin" 4 >"$T/plain" 2>&1
	run --seccomp -- "$T/gofork" parent "$T/data.bin" 4
	th=$(sed -n 's/^parent .*threads=\([0-9]*\).*/\1/p' "$T/out")
	if grep -q "rr=4/4" "$T/plain" && has "rr=0/4" &&
	   [ "$(grep -c '^child pid=[0-9]* rr=0$' "$T/out")" = 4 ] &&
	   [ "${th:-0}" -gt 1 ]; then
		ok "Go, $th threads, 4 goroutines and 4 forked children: rr on every mapping without, on none under --seccomp"
	else
		bad go "plain: $(head -n 1 "$T/plain")"
	fi
else
	skipped go "go build failed or go absent: $(tail -n 1 "$T/go.err" 2>/dev/null)"
fi

# 11. bbolt (static Go, raw madvise): its data file's mapping loses rr.
if [ -x "$BOLT" ] && "$BOLT" load "$T/bolt.db" 8 >/dev/null 2>&1; then
	"$A" run --seccomp -- "$BOLT" read -t 1 -d 3 "$T/bolt.db" >/dev/null 2>"$T/err" &
	BP=$!
	PIDS="$PIDS $BP"
	fl=
	i=0
	while [ $i -lt 30 ] && [ -z "$fl" ]; do
		sleep 0.1; i=$((i + 1))
		fl=$(awk -v f="$T/bolt.db" '/^[0-9a-f]+-[0-9a-f]+ / { m = ($NF == f) }
			m && /^VmFlags:/ { sub(/^VmFlags: */, ""); print; exit }' "/proc/$BP/smaps" 2>/dev/null)
	done
	"$A" inspect "$BP" >"$T/out" 2>"$T/err"
	ij=$("$A" inspect --json "$BP" 2>/dev/null | python3 -c 'import json, sys
s = json.load(sys.stdin)["seccomp"]
f = s["files"][0]
print(s["trapped"] >= 1, s["dropped"] == s["trapped"], f["path"].endswith("bolt.db"), f["rule"], f["why"])' 2>&1)
	kill "$BP" 2>/dev/null
	wait "$BP" 2>/dev/null
	if has "under advshim run --seccomp: supervisor" &&
	   grep -q "^    dropped [0-9]*, continued 0: $T/bolt.db (default: adaptive, normal)" "$T/out" &&
	   [ "$ij" = "True True True default adaptive, normal" ]; then
		ok "advshim inspect on bbolt: the supervisor's counters and its file (text and --json)"
	else
		bad inspect "json: $ij"
	fi
	case " $fl " in
	*" rr "*) bad bolt "VmFlags '$fl'" ;;
	"  ") bad bolt "bbolt's mapping not found in smaps" ;;
	*) ok "bbolt (advshim-bolt) under --seccomp: its mapping has no rr ('$fl')" ;;
	esac
else
	skipped bolt "$BOLT not built (no go toolchain or module proxy)"
fi

echo "check-seccomp: $pass passed, $fail failed, $skip skipped${failed:+ (failed:$failed)}"
[ $fail -eq 0 ]
