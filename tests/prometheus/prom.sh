#!/bin/sh
# SPDX-License-Identifier: MIT
#
# prom.sh BUILD - the fleet's metrics end to end, with Debian's real
# Prometheus (2.42) and node-exporter:
#  1. the shipped alert rules pass `promtool check rules` and their tests
#     `promtool test rules`; the Grafana dashboard is JSON;
#  2. advshim-watch on a played 6.12 stall serves /metrics
#     (--metrics-listen); `advshim inspect --prometheus` of a process under
#     the shim and one without is written (temporary name, then renamed)
#     into the directory node-exporter's textfile collector reads;
#  3. Prometheus scrapes both jobs (scrape_interval 1s) with the rules
#     loaded; its HTTP API must return the series with the right labels
#     (job, instance, memcg, node; pid, comm) and values, every rule
#     loaded and healthy, and every dashboard query accepted.
set -u
B=${1:-build}
W=$B/advshim-watch
P=$B/tests/watch_player
A=$B/advshim
AP=$B/tests/shim/adaptprog
LIB=$(cd "$B" && pwd)/libadvshim.so
# A sanitized build: its runtime must come first in LD_PRELOAD.
SAN_RT=$(ldd "$LIB" 2>/dev/null | awk '/lib(asan|tsan|ubsan)\.so/ { print $3; exit }')
PRELOAD=${SAN_RT:+$SAN_RT:}$LIB
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0}
HERE=$(cd "$(dirname "$0")" && pwd)
RULES=$(cd "$HERE/../../packaging/prometheus" && pwd)
DASH=$HERE/../../packaging/grafana/advshim.json
NE=$(command -v prometheus-node-exporter || command -v node_exporter)
T=$(mktemp -d "${TMPDIR:-/tmp}/advshim-prom.XXXXXX")
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
	[ -f "$T/q" ] && head -c 1500 "$T/q" | sed 's/^/    | /' && echo
}
for t in prometheus promtool curl python3; do
	command -v $t > /dev/null || { echo "check-prometheus: $t missing: apt-get install prometheus prometheus-node-exporter curl" >&2; exit 1; }
done
[ -n "$NE" ] || { echo "check-prometheus: node-exporter missing: apt-get install prometheus-node-exporter" >&2; exit 1; }
[ -x "$W" ] && [ -x "$P" ] && [ -x "$A" ] && [ -x "$AP" ] || { echo "build $W $P $A $AP first" >&2; exit 1; }
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# --- 1. rules, their tests, the dashboard ---------------------------------------
(cd "$RULES" && promtool check rules advshim-alerts.yml) > "$T/q" 2>&1 &&
	ok "promtool check rules: $(grep -o '[0-9]* rules found' "$T/q")" || bad check-rules "promtool check rules"
(cd "$RULES" && promtool test rules advshim-alerts.test.yml) > "$T/q" 2>&1 &&
	ok "promtool test rules: every alert fires on its series only after its for, near misses stay silent" ||
	bad test-rules "promtool test rules"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["uid"] and d["panels"]' "$DASH" &&
	ok "the Grafana dashboard parses" || bad dashboard-json "$DASH"

# --- 2. the watcher and the shim's export ------------------------------------------
D=$T/stall
mkdir -p "$D" "$T/textfile"
cat > "$D/timeline" <<'TL'
0 add 1 /
0 healthy 1 100 100
0 add 42 /system.slice/opensearch.service
0 thrash 42 20000 20000 2
600 end
TL
"$P" "$D" "$D/timeline" 100 6.12 2> "$D/player.err" &
PIDS="$PIDS $!"
i=0; while [ ! -f "$D/ready" ] && [ $i -lt 500 ]; do sleep 0.02; i=$((i + 1)); done
WPORT=$(free_port)
"$W" --debugfs-root "$D/debugfs" --sysfs-root "$D/sys" --cgroup-root "$D/cg" \
	--kernel 6.12 --log-format json --interval-ms 300 \
	--metrics-listen "127.0.0.1:$WPORT" > "$D/watch.log" 2> "$D/watch.err" &
PIDS="$PIDS $!"

head -c 3000000 /dev/urandom > "$T/vec.bin"
printf '%s\n' 'version = 1;' 'rules = ( { name = "all"; match = "**"; random = "normal"; } );' > "$T/fixed.conf"
start() {	# start NAME [VAR=VALUE]...: adaptprog on vec.bin; PID in $LAST
	name=$1; shift
	mkfifo "$T/$name.in"
	env "$@" "$AP" "$T/vec.bin" < "$T/$name.in" > "$T/$name.out" 2> "$T/$name.err" &
	LAST=$!
	PIDS="$PIDS $LAST"
	sleep 600 > "$T/$name.in" &
	PIDS="$PIDS $!"
	i=0; while ! grep -q ready "$T/$name.out" 2>/dev/null && [ $i -lt 300 ]; do sleep 0.05; i=$((i + 1)); done
}
start plain; PLAIN=$LAST
start shim ADVSHIM_CONFIG="$T/fixed.conf" LD_PRELOAD="$PRELOAD"; SHIM=$LAST
# as advshim-shim-metrics.service does it
"$A" inspect --prometheus > "$T/textfile/advshim-shim.prom.tmp" &&
	mv -f "$T/textfile/advshim-shim.prom.tmp" "$T/textfile/advshim-shim.prom" &&
	ok "advshim inspect --prometheus written into the textfile directory" ||
	bad export "inspect --prometheus failed"

NPORT=$(free_port)
"$NE" --collector.disable-defaults --collector.textfile \
	--collector.textfile.directory="$T/textfile" \
	--web.listen-address="127.0.0.1:$NPORT" > "$T/ne.log" 2>&1 &
PIDS="$PIDS $!"

# --- 3. Prometheus ---------------------------------------------------------------------
PPORT=$(free_port)
cp "$RULES/advshim-alerts.yml" "$T/"
cat > "$T/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  evaluation_interval: 1s
rule_files: [ "$T/advshim-alerts.yml" ]
scrape_configs:
  - job_name: advshim-watch
    static_configs: [ { targets: [ "127.0.0.1:$WPORT" ] } ]
  - job_name: node
    static_configs: [ { targets: [ "127.0.0.1:$NPORT" ] } ]
EOF
prometheus --config.file="$T/prometheus.yml" --storage.tsdb.path="$T/data" \
	--web.listen-address="127.0.0.1:$PPORT" > "$T/prometheus.log" 2>&1 &
PIDS="$PIDS $!"
API=http://127.0.0.1:$PPORT/api/v1
# q PROMQL: the instant query's JSON in $T/q
q() { curl -sS -G --data-urlencode "query=$1" "$API/query" > "$T/q" 2>&1; }
# py CODE: CODE with d = the JSON in $T/q; exit status is its verdict
py() { python3 -c "import json, sys
d = json.load(open('$T/q'))
$1" 2>>"$T/py.err"; }

i=0
until curl -sS "$API/targets" > "$T/q" 2>/dev/null &&
      py 'a = d["data"]["activeTargets"]; sys.exit(0 if len(a) == 2 and all(t["health"] == "up" for t in a) else 1)' ||
      [ $i -ge 150 ]; do sleep 0.2; i=$((i + 1)); done
py 'a = d["data"]["activeTargets"]; sys.exit(0 if len(a) == 2 and all(t["health"] == "up" for t in a) else 1)' &&
	ok "prometheus $(prometheus --version 2>&1 | sed -n '1s/prometheus, version \([^ ]*\).*/\1/p'): both targets up (advshim-watch /metrics, node-exporter textfile)" ||
	bad targets "$(tail -n 5 "$T/prometheus.log")"

# The watcher's aging of the stalled memcg, with its labels.
i=0
until q 'advshim_watch_agings_total{memcg="/system.slice/opensearch.service"}' &&
      py 'r = d["data"]["result"]; sys.exit(0 if r and r[0]["value"][1] == "4" else 1)' ||
      [ $i -ge 100 ]; do sleep 0.2; i=$((i + 1)); done
py "r = d['data']['result']; m = r[0]['metric']
assert len(r) == 1 and r[0]['value'][1] == '4', r
assert m == {'__name__': 'advshim_watch_agings_total', 'job': 'advshim-watch', 'instance': '127.0.0.1:$WPORT',
             'memcg': '/system.slice/opensearch.service', 'node': '0'}, m" &&
	ok "advshim_watch_agings_total{job=advshim-watch,instance,memcg=/system.slice/opensearch.service,node=0} = 4" ||
	bad watch-series "agings_total"
q 'advshim_watch_polls_total'
py "r = d['data']['result']; assert len(r) == 1 and int(r[0]['value'][1]) > 0 and 'memcg' not in r[0]['metric']" &&
	ok "advshim_watch_polls_total: one global series, > 0" || bad polls "polls_total"

# The shim's export through node-exporter.
i=0
until q "advshim_shim_active{pid=\"$SHIM\"}" && py 'sys.exit(0 if d["data"]["result"] else 1)' || [ $i -ge 100 ]; do
	sleep 0.2; i=$((i + 1)); done
py "r = d['data']['result']; m = r[0]['metric']
assert len(r) == 1 and r[0]['value'][1] == '1', r
assert m['job'] == 'node' and m['instance'] == '127.0.0.1:$NPORT' and m['comm'] == 'adaptprog' and m['pid'] == '$SHIM', m" &&
	ok "advshim_shim_active{job=node,instance,pid=$SHIM,comm=adaptprog} = 1" || bad shim-active "shim_active"
q "advshim_shim_rewritten_total{pid=\"$SHIM\"}"
py "r = d['data']['result']; assert len(r) == 1 and r[0]['value'][1] == '1', r" &&
	ok "advshim_shim_rewritten_total{pid=$SHIM} = 1 (its one RANDOM rewritten to normal)" || bad rewritten "rewritten_total"
q "advshim_shim_random_vmas{pid=\"$PLAIN\"} and on (instance, pid) (advshim_shim_active == 0)"
py "r = d['data']['result']; assert len(r) == 1 and r[0]['value'][1] == '1' and r[0]['metric']['comm'] == 'adaptprog', r" &&
	ok "the process without the shim: random_vmas 1 and active 0, joined on (instance, pid) as the alert does" ||
	bad plain "random_vmas"

# The rules loaded and healthy; every dashboard query accepted.
curl -sS "$API/rules" > "$T/q"
py "g = [g for g in d['data']['groups'] if g['name'] == 'advshim']
assert len(g) == 1, d
names = sorted(r['name'] for r in g[0]['rules'])
assert names == ['AdvshimAgingFailing', 'AdvshimKillSwitchOn', 'AdvshimShimInactive',
                 'AdvshimStallPersisting', 'AdvshimWatcherLockedDown'], names
assert all(r['health'] == 'ok' for r in g[0]['rules']), g[0]['rules']" &&
	ok "the five alert rules loaded, every one health ok" || bad rules-loaded "api/v1/rules"
bad_q=
for e in $(python3 -c 'import json, sys, urllib.parse
d = json.load(open(sys.argv[1]))
for p in d["panels"]:
    for t in p.get("targets", []):
        print(urllib.parse.quote(t["expr"]))' "$DASH"); do
	curl -sS "$API/query?query=$e" > "$T/q"
	py 'sys.exit(0 if d["status"] == "success" else 1)' || bad_q="$bad_q $e"
done
[ -z "$bad_q" ] && ok "every dashboard query is accepted by the Prometheus API" || bad dashboard-queries "$bad_q"

echo "check-prometheus: $pass passed, $fail failed${failed:+ (failed:$failed)}"
[ $fail -eq 0 ]
