#!/bin/sh
# SPDX-License-Identifier: MIT
#
# http.sh BUILD - advshim-watch's --metrics-listen and --metrics-file,
# judged from outside: the real binary against a played 6.12 stall
# (tests/integration/watch/player.c), scraped with curl while it runs.
#  - GET /metrics: 200, the exposition content type, the aging counters
#    of the memcg it aged; HEAD: headers only; / names /metrics; 404; 405;
#  - a client that connects and sends nothing holds one slot only: the
#    watcher keeps ticking and other scrapes are answered;
#  - the textfile is whole at every read (rename) and no PATH.tmp stays;
#  - a bad ADDR:PORT is a usage error (exit 2), a port in use exit 1.
set -u
B=${1:-build}
W=$B/advshim-watch
P=$B/tests/watch_player
T=$(mktemp -d "${TMPDIR:-/tmp}/advshim-http.XXXXXX")
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
	[ -f "$D/watch.log" ] && sed 's/^/    | /' "$D/watch.log" | tail -n 15
	[ -f "$D/watch.err" ] && sed 's/^/    ! /' "$D/watch.err" | tail -n 5
}
[ -x "$W" ] && [ -x "$P" ] || { echo "build $W and $P first" >&2; exit 1; }
command -v curl >/dev/null || { echo "SKIP http: no curl"; exit 0; }

D=$T/stall
mkdir -p "$D"
cat > "$D/timeline" <<'TL'
0 add 1 /
0 healthy 1 100 100
0 add 42 /system.slice/opensearch.service
0 thrash 42 20000 20000 2
200 end
TL
"$P" "$D" "$D/timeline" 100 6.12 2> "$D/player.err" &
PIDS="$PIDS $!"
i=0
while [ ! -f "$D/ready" ] && [ $i -lt 500 ]; do sleep 0.02; i=$((i + 1)); done

"$W" --debugfs-root "$D/debugfs" --sysfs-root "$D/sys" --cgroup-root "$D/cg" \
	--kernel 6.12 --log-format json --interval-ms 300 \
	--metrics-listen 127.0.0.1:0 --metrics-file "$D/m.prom" \
	> "$D/watch.log" 2> "$D/watch.err" &
WPID=$!
PIDS="$PIDS $WPID"
url=
i=0
while [ -z "$url" ] && [ $i -lt 200 ]; do
	url=$(sed -n 's/.*metrics at \(http:[^ "]*\).*/\1/p' "$D/watch.log" | head -n 1)
	sleep 0.05; i=$((i + 1))
done
[ -n "$url" ] && ok "start line names the bound address: $url" || bad addr "no 'metrics at' line"
base=${url%/metrics}

# wait for the aging (the fixture's burst of four steps)
i=0
while ! curl -fsS "$url" 2>/dev/null | grep -q '^advshim_watch_agings_total{memcg="/system.slice/opensearch.service",node="0"} 4$' &&
      [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done

curl -sS -D "$D/h" -o "$D/body" "$url"
if grep -q '^HTTP/1.1 200' "$D/h" &&
   grep -qi '^Content-Type: text/plain; version=0.0.4' "$D/h" &&
   grep -q '^# TYPE advshim_watch_agings_total counter' "$D/body" &&
   grep -q '^advshim_watch_agings_total{memcg="/system.slice/opensearch.service",node="0"} 4$' "$D/body"; then
	ok "GET /metrics: 200, exposition format 0.0.4, agings_total 4 for the aged memcg"
else
	bad get "$(head -n 3 "$D/h")"
fi
if command -v promtool >/dev/null; then
	if promtool check metrics < "$D/body" > "$D/lint" 2>&1; then
		ok "promtool check metrics: no problem in the body"
	else
		bad lint "$(cat "$D/lint")"
	fi
fi
[ "$(curl -sS -I -o /dev/null -w '%{http_code} %{size_download}' "$url")" = "200 0" ] &&
	ok "HEAD /metrics: 200, no body" || bad head "HEAD"
curl -sS "$base/" | grep -q /metrics && ok "GET /: names /metrics" || bad root "GET /"
[ "$(curl -sS -o /dev/null -w '%{http_code}' "$base/nope")" = 404 ] && ok "GET /nope: 404" || bad 404 "404"
[ "$(curl -sS -o /dev/null -w '%{http_code}' -X POST "$base/metrics")" = 405 ] && ok "POST: 405" || bad 405 "405"

# A silent client: the watcher still polls, others still get answers.
polls() { curl -fsS "$url" | sed -n 's/^advshim_watch_polls_total //p'; }
hostport=${base#http://}
python3 - "${hostport%:*}" "${hostport##*:}" "$D/silent.done" <<'PY' &
import socket, sys, time, os
s = [socket.create_connection((sys.argv[1], int(sys.argv[2]))) for _ in range(3)]
time.sleep(2.5)
open(sys.argv[3], "w").close()
time.sleep(1)
PY
SILENT=$!
PIDS="$PIDS $SILENT"
sleep 0.3
p1=$(polls)
sleep 1
p2=$(polls)
if [ -n "$p1" ] && [ -n "$p2" ] && [ "$p2" -gt "$p1" ]; then
	ok "three silent connections open: polls go on ($p1 -> $p2), scrapes answered"
else
	bad silent "polls $p1 -> $p2"
fi
wait $SILENT 2>/dev/null

# The textfile: a whole exposition at every read, no PATH.tmp left over.
whole=1
for n in 1 2 3 4 5 6 7 8 9 10; do
	tail -n 1 "$D/m.prom" | grep -q '^advshim_watch_max_seq' || whole=0
	sleep 0.07
done
[ $whole = 1 ] && ok "textfile whole at each of 10 reads (renamed into place)" || bad textfile "a partial read"
kill -TERM "$WPID"; wait "$WPID"; rc=$?
if [ $rc -eq 0 ] && [ ! -e "$D/m.prom.tmp" ] && grep -q '"event":"stop"' "$D/watch.log"; then
	ok "SIGTERM while serving: exit 0, no m.prom.tmp left"
else
	bad stop "rc $rc"
fi

# Bad address, port in use.
"$W" --debugfs-root "$D/debugfs" --sysfs-root "$D/sys" --cgroup-root "$D/cg" \
	--kernel 6.12 --once --metrics-listen 127.0.0.1:99999 > /dev/null 2> "$D/bad.err"
rc=$?
[ $rc -eq 2 ] && grep -q "want ADDR:PORT" "$D/bad.err" && ok "--metrics-listen 127.0.0.1:99999: exit 2, says why" ||
	bad badspec "rc $rc $(cat "$D/bad.err")"
python3 -c 'import socket,time,sys
s=socket.socket(); s.bind(("127.0.0.1",0)); s.listen(1); print(s.getsockname()[1], flush=True); time.sleep(5)' > "$D/port" &
PIDS="$PIDS $!"
i=0; while [ ! -s "$D/port" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
"$W" --debugfs-root "$D/debugfs" --sysfs-root "$D/sys" --cgroup-root "$D/cg" \
	--kernel 6.12 --once --metrics-listen "127.0.0.1:$(cat "$D/port")" > /dev/null 2> "$D/inuse.err"
rc=$?
[ $rc -eq 1 ] && grep -q "Address already in use" "$D/inuse.err" && ok "a port in use: exit 1, says so" ||
	bad inuse "rc $rc $(cat "$D/inuse.err")"

# Address forms: "localhost:0" binds 127.0.0.1, "[::1]:0" the IPv6 loopback
# (when this host has one).
"$W" --debugfs-root "$D/debugfs" --sysfs-root "$D/sys" --cgroup-root "$D/cg" \
	--kernel 6.12 --once --log-format json --metrics-listen localhost:0 > "$D/lh.log" 2>&1
grep -q 'metrics at http://127\.0\.0\.1:[0-9]*/metrics' "$D/lh.log" &&
	ok "--metrics-listen localhost:0 binds 127.0.0.1" || bad localhost "$(cat "$D/lh.log")"
if python3 -c 'import socket; s=socket.socket(socket.AF_INET6); s.bind(("::1", 0))' 2>/dev/null; then
	"$W" --debugfs-root "$D/debugfs" --sysfs-root "$D/sys" --cgroup-root "$D/cg" \
		--kernel 6.12 --once --log-format json --metrics-listen '[::1]:0' > "$D/v6.log" 2>&1
	grep -q 'metrics at http://\[::1\]:[0-9]*/metrics' "$D/v6.log" &&
		ok "--metrics-listen [::1]:0 binds the IPv6 loopback" || bad ipv6 "$(cat "$D/v6.log")"
fi

echo "watch http: $pass passed, $fail failed${failed:+ (failed:$failed)}"
[ $fail -eq 0 ]
