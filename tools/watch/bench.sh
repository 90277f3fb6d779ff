#!/bin/sh
# advshim-watch benchmarks (make bench): per-poll CPU over 1,000 memcgs,
# the real daemon's CPU share at a 1 s interval, and detection latency in
# intervals measured on played timelines.  Numbers, not pass/fail: the
# machine is shared, so read them as ratios from one run.
#
# usage: tools/watch/bench.sh BUILD_DIR
set -u
B=${1:-build}
W=$B/advshim-watch
T=$(mktemp -d "${TMPDIR:-/tmp}/advshim-watch-bench.XXXXXX")
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$T"' EXIT INT TERM

echo "== one poll, CPU (watch_tick: read lru_gen_full, parse, detect)"
"$B/bench/watch_poll" "$T/poll" 1000 81 || exit 1
"$B/bench/watch_poll" "$T/poll50" 50 81 | sed -n '1p;3p'

# cpu_ns PID: time the task has spent on a CPU (schedstat, ns resolution)
cpu_ns() { cut -d' ' -f1 "/proc/$1/schedstat"; }

idle_share() {
	dir=$1; secs=$2; shift 2
	"$W" --debugfs-root "$dir/debugfs" --sysfs-root "$dir/sys" \
		--cgroup-root "$dir/cg" --kernel 6.12 --interval-ms 1000 \
		"$@" > /dev/null 2>&1 &
	pid=$!
	sleep 1.5			# skip the start-up poll
	c0=$(cpu_ns $pid); t0=$(date +%s%N)
	sleep "$secs"
	c1=$(cpu_ns $pid); t1=$(date +%s%N)
	kill -TERM $pid; wait $pid
	awk -v c=$((c1 - c0)) -v t=$((t1 - t0)) 'BEGIN {
		printf "%.4f%% of a core (%.2f ms CPU per second)", 100 * c / t, 1000 * c / t }'
}

echo "== the daemon at --interval-ms 1000 (fixture left by the poll bench)"
if [ -r /proc/self/schedstat ]; then
	echo "1000 memcgs, all watched:   $(idle_share "$T/poll" 10)"
	echo "1000 memcgs, one --cgroup:  $(idle_share "$T/poll" 10 --cgroup /kubepods.slice/pod-0500.slice/app-0500.scope)"
	echo "50 memcgs, all watched:     $(idle_share "$T/poll50" 10)"
else
	echo "SKIP: /proc/PID/schedstat not available"
fi

echo "== detection latency: polls from the first thrashing interval to the write"
latency() {
	name=$1; shift
	D=$T/$name
	mkdir -p "$D"
	cat > "$D/timeline"
	"$B/tests/watch_player" "$D" "$D/timeline" 100 6.12 &
	ppid=$!
	while [ ! -f "$D/ready" ]; do sleep 0.02; done
	"$W" --debugfs-root "$D/debugfs" --sysfs-root "$D/sys" \
		--cgroup-root "$D/cg" --kernel 6.12 --log-format json \
		--interval-ms 200 "$@" > "$D/log" 2>/dev/null &
	wpid=$!
	wait $ppid
	kill -TERM $wpid; wait $wpid
	awk -v name="$name" '
		/"event":"thrash"/ && !first { first = 1; split($0, a, "\"ts_ms\":"); t0 = a[2] + 0 }
		/"event":"thrash".*"verdict":"age"/ && !done { done = 1; split($0, a, "\"ts_ms\":"); t1 = a[2] + 0 }
		END {
			if (!done) { printf "%-28s no aging happened\n", name; exit }
			printf "%-28s first thrashing poll at %5d ms, write at %5d ms: %d polls later (the rule needs a second look at a window)\n",
				name, t0, t1, (t1 - t0) / 200 + 0.5
		}' "$D/log"
}
latency named-target --cgroup /app.slice/search.service <<'TL'
0 add 5 /app.slice/search.service
0 idle 5
30 thrash 5 20000 20000 0
70 end
TL
latency all-memcgs-after-quiet <<'TL'
0 add 5 /app.slice/search.service
0 healthy 5 10 10
30 thrash 5 20000 20000 0
80 end
TL
