#!/bin/sh
# SPDX-License-Identifier: MIT
#
# test_report.sh - the lab's host-side arithmetic on recorded text (make
# check-lab-report): repeat.awk's medians and ranges over repeated runs
# (never, n/a, a failed run, a summary without a workload column) against
# rows checked by hand, fio-rows.awk turning fio 3.33's terse status
# lines into the lab's reads per interval, and qps.awk / qps-repeat.awk
# (the report's columns of a query workload: make lab-opensearch) on an
# arm whose figures were worked out by hand (tests/fixtures/lab/qps: 100
# q/s before, 81.5 after, recovered 4.0 s after the cold read, 15 and 20
# MiB read; rr on .fdt and two segments' .vec/.vex: ".fdt,.vec,.vex"),
# lab.sh merge summing two boots' rows into the same tables, and make
# lab's report.awk and goals.awk on a recorded run.
set -u
top=$(cd "$(dirname "$0")/../../.." && pwd)
lab=$top/tools/lab
fix=$top/tests/fixtures/lab
fails=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

awk -v workloads="bolt fio lmdb load" -f "$lab/median.awk" -f "$lab/repeat.awk" \
	"$fix/runs.tsv" >"$tmp/summary.tsv"
if cmp -s "$tmp/summary.tsv" "$fix/runs.expect"; then
	echo "ok   repeat.awk: stalled k/N, never-aware medians and ranges, failed runs counted"
else
	echo "FAIL repeat.awk differs from tests/fixtures/lab/runs.expect:"
	diff "$fix/runs.expect" "$tmp/summary.tsv" | sed 's/^/    /'
	fails=$((fails + 1))
fi

# fio's lines a third of a second apart (the converter skips lines closer
# than 0.2 s: fio's final summary right after its last status line),
# through the guest's awk (busybox: it reads a pipe as lines arrive; mawk
# would wait for a full buffer).
{
	echo "# fio vec pid=1 mono_ms=0"
	while read -r l; do
		echo "$l"
		sleep 0.3
	done <"$fix/fio-terse.txt"
} | busybox awk -F';' -v bs_kib=4 -f "$lab/guest/fio-rows.awk" >"$tmp/fio.tsv"
got=$(awk -F'\t' '$1 ~ /^[0-9]+$/ { printf "%s ", $3 }' "$tmp/fio.tsv")
if [ "$got" = "22664 485927 62008 " ] && head -n 1 "$tmp/fio.tsv" | grep -q '^# fio vec pid=1' &&
	sed -n 2p "$tmp/fio.tsv" | grep -q '^elapsed_ms	mono_ms	queries	qps	reads_s'; then
	echo "ok   fio-rows.awk: reads per interval from the KiB read (22664 485927 62008)"
else
	echo "FAIL fio-rows.awk: reads per interval '$got' (want '22664 485927 62008 '):"
	sed 's/^/    /' "$tmp/fio.tsv"
	fails=$((fails + 1))
fi
q=$fix/qps
awk -v arm=t -f "$lab/median.awk" -f "$lab/qps.awk" "$q/arm.env" "$q/samples.tsv" "$q/load.tsv" \
	"$q/rr.txt" >"$tmp/qps.tsv"
if cmp -s "$tmp/qps.tsv" "$q/arm.expect"; then
	echo "ok   qps.awk: queries/s, percentiles, faults per query and MiB before and after the cold read, recovery, rr files"
else
	echo "FAIL qps.awk differs from tests/fixtures/lab/qps/arm.expect:"
	diff "$q/arm.expect" "$tmp/qps.tsv" | sed 's/^/    /'
	fails=$((fails + 1))
fi
# rr_files without rr.txt (not captured: -) and with an empty one (the
# smaps could not be read: unknown); the other columns as before.
: >"$tmp/rr.txt"
awk -v arm=t -f "$lab/median.awk" -f "$lab/qps.awk" "$q/arm.env" "$q/samples.tsv" "$q/load.tsv" >"$tmp/no-rr.tsv"
awk -v arm=t -f "$lab/median.awk" -f "$lab/qps.awk" "$q/arm.env" "$q/samples.tsv" "$q/load.tsv" \
	"$tmp/rr.txt" >"$tmp/empty-rr.tsv"
want_no=$(awk -F'\t' -v OFS='\t' '{ $16 = "-"; print }' "$q/arm.expect")
want_empty=$(awk -F'\t' -v OFS='\t' '{ $16 = "unknown"; print }' "$q/arm.expect")
if [ "$(cat "$tmp/no-rr.tsv")" = "$want_no" ] && [ "$(cat "$tmp/empty-rr.tsv")" = "$want_empty" ]; then
	echo "ok   qps.awk: rr_files '-' without rr.txt, 'unknown' with an empty one"
else
	echo "FAIL qps.awk's rr_files without rr.txt / with an empty one:"
	sed 's/^/    /' "$tmp/no-rr.tsv" "$tmp/empty-rr.tsv"
	fails=$((fails + 1))
fi
hn=$(awk -v header=1 -f "$lab/median.awk" -f "$lab/qps.awk" | awk -F'\t' '{ print NF }')
rn=$(awk -F'\t' '{ print NF; exit }' "$q/arm.expect")
if [ "$hn" = "$rn" ]; then
	echo "ok   qps.awk: its header names the $rn columns of its rows"
else
	echo "FAIL qps.awk: header of $hn columns, rows of $rn"
	fails=$((fails + 1))
fi
awk -f "$lab/median.awk" -f "$lab/qps-repeat.awk" "$q/rows.tsv" >"$tmp/qps-rep.tsv"
if cmp -s "$tmp/qps-rep.tsv" "$q/rows.expect"; then
	echo "ok   qps-repeat.awk: stalled k/N, median (min-max), a median that falls on never, a failed run, shared or mixed rr files and hash"
else
	echo "FAIL qps-repeat.awk differs from tests/fixtures/lab/qps/rows.expect:"
	diff "$q/rows.expect" "$tmp/qps-rep.tsv" | sed 's/^/    /'
	fails=$((fails + 1))
fi
# make lab's report (tools/adapt/lab): report.awk's row of a recorded arm
# of the one arm script with the probe hook's columns (6.12, does not fit,
# adaptive + watcher: steady 17599 reads/s, the median of the 15 s before
# the cold read, and recovered 2.5 s after it, 3 intervals >= 14079 from
# 45.0 s: both checked by hand), and goals.awk's verdicts on that run.
ad=$fix/adapt
a=$ad/nofit-adapt-watch
awk -v header=1 -f "$top/tools/adapt/lab/report.awk" "$a/arm.env" "$a/load.tsv" "$a/samples.tsv" \
	"$a/load.err" "$a/watch.log" >"$tmp/adapt-row.tsv"
if cmp -s "$tmp/adapt-row.tsv" "$ad/row.expect"; then
	echo "ok   report.awk: a make lab arm's row (steady, recovery, residency, faults, probe costs, agings)"
else
	echo "FAIL report.awk differs from tests/fixtures/lab/adapt/row.expect:"
	diff "$ad/row.expect" "$tmp/adapt-row.tsv" | sed 's/^/    /'
	fails=$((fails + 1))
fi
awk -f "$lab/median.awk" -f "$top/tools/adapt/lab/goals.awk" "$ad/summary.tsv" >"$tmp/goals.txt"
if cmp -s "$tmp/goals.txt" "$ad/goals.expect" && [ "$(grep -c '^goal met' "$tmp/goals.txt")" = 6 ]; then
	echo "ok   goals.awk: make lab's seven goals on a recorded run (6 met, fits reads/s 0.924x not)"
else
	echo "FAIL goals.awk differs from tests/fixtures/lab/adapt/goals.expect:"
	diff "$ad/goals.expect" "$tmp/goals.txt" | sed 's/^/    /'
	fails=$((fails + 1))
fi

# lab.sh merge: two boots' runs as one table.  The fixtures' rows split in
# two run directories (an arm's runs in both), merged: the same tables as
# the rows in one file, the arms renumbered across the runs.
mkdir -p "$tmp/m1" "$tmp/m2"
for t in runs.tsv:runs.tsv qps/rows.tsv:qps-runs.tsv; do
	src=$fix/${t%%:*} dst=${t##*:}
	n=$(( ($(wc -l <"$src") + 1) / 2 ))
	head -n "$n" "$src" >"$tmp/m1/$dst"
	{ head -n 1 "$src"; tail -n +"$((n + 1))" "$src"; } >"$tmp/m2/$dst"
done
BUILD=$tmp/build bash "$lab/lab.sh" merge "$tmp/merged" "$tmp/m1" "$tmp/m2" >"$tmp/merge.out" 2>&1
arms=$(cut -f1 "$tmp/merged/qps-runs.tsv" | tr '\n' ' ')
if cmp -s "$tmp/merged/summary.tsv" "$fix/runs.expect" && cmp -s "$tmp/merged/qps.tsv" "$q/rows.expect" &&
	[ "$arms" = "arm a.r1 a.r2 a.r3 b.r1 c.r1 c.r2 d.r1 d.r2 d.r3 " ]; then
	echo "ok   lab.sh merge: runs.tsv and qps-runs.tsv of two boots, arms renumbered ($arms)"
else
	echo "FAIL lab.sh merge: the merged tables differ from one file's (arms: $arms):"
	diff "$fix/runs.expect" "$tmp/merged/summary.tsv" | sed 's/^/    /'
	diff "$q/rows.expect" "$tmp/merged/qps.tsv" | sed 's/^/    /'
	sed 's/^/    | /' "$tmp/merge.out"
	fails=$((fails + 1))
fi
# programs.arms' rfc arms: only on the lab's RFC kernel (a stock kernel has
# no lru_gen_age_on_thrash, so the arm would die), and LAB_ARMS picks them
# by the name after the workload (rfc-on).  fio's lines need fio installed.
if command -v fio >/dev/null 2>&1; then
	pick() {
		LAB_SRC=$lab BUILD=$tmp/build LAB_KERNEL=$1 LAB_PROGRAMS=fio LAB_ARMS=$2 bash -c '
			note() { :; }; die() { echo "die: $*"; exit 1; }
			. "$LAB_SRC/programs.sh"; programs_arms "$0" && awk "{ print \$1 }" "$0" | tr "\n" " "' "$tmp/arms.$1"
	}
	stock=$(pick 6.12 ""); stock73=$(pick 7.3 ""); rfc=$(pick 6.12-rfc "none rfc-on")
	rfc73=$(pick 7.3-rfc "rfc-off watch")
	case "$stock $stock73" in *rfc*|die*|' ') ok=0 ;; *) ok=1 ;; esac
	if [ "$ok" = 1 ] && [ "$rfc" = "fio-none fio-rfc-on " ] &&
	   [ "$rfc73" = "fio-watch fio-rfc-off " ]; then
		echo "ok   programs.sh: rfc arms left out on 6.12 and 7.3, picked on 6.12-rfc ($rfc) and 7.3-rfc ($rfc73)"
	else
		echo "FAIL programs.sh arms: on 6.12 '$stock', 7.3 '$stock73', on 6.12-rfc with LAB_ARMS='none rfc-on' '$rfc', on 7.3-rfc with 'rfc-off watch' '$rfc73'"
		fails=$((fails + 1))
	fi
else
	echo "skip programs.sh rfc arms: fio is not installed"
fi
[ "$fails" = 0 ]
