#!/bin/sh
# SPDX-License-Identifier: MIT
#
# run.sh NAME ARMS [VAR=VALUE...] - boot the lab once (tools/lab/lab.sh
# arms) and run the arms listed in the file ARMS (tools/adapt/lab/*.arms)
# with the lab's one arm script (tools/lab/guest/arm.sh, workload load)
# and this directory's sampler hook (probe.sh: what the adaptive advice
# would see, each second); VAR=VALUE set the scenario for every arm
# (VEC_MB MEMCG_MB COLD_MB COLD_AT THREADS THETA DURATION).  The cold
# reader runs without the shim (COLD_SHIM=off) unless an arm says
# otherwise.  Results go to $BUILD/lab/runs/adapt-NAME-KERNEL-DATE/
# out/arms/*, the summary (report.awk) to summary.tsv there, its compact
# table (table.awk) to table.md and stdout, make lab's goals (goals.awk)
# to goals.txt.
# ARMS_MATCH=REGEX runs only the arms whose name matches (grep -E), to
# keep one boot under LAB_TIMEOUT.  LAB_REPEAT=N (default 1) runs every
# arm N times, round by round; the report then adds one row per arm over
# its runs (tools/lab/repeat.awk: stalled k/N, medians and ranges) in
# repeats.tsv.
#   tools/adapt/lab/run.sh report RUNDIR   re-renders a finished run
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
BUILD=${BUILD:-build}
case $BUILD in /*) ;; *) BUILD=$top/$BUILD ;; esac
export BUILD

report() {
	rundir=$1
	first=1
	for d in "$rundir"/out/arms/*/; do
		if [ ! -f "$d/ok" ]; then
			printf '%s\tFAILED\n' "$(basename "$d")"
			continue
		fi
		set -- "$d/arm.env" "$d/load.tsv" "$d/samples.tsv"
		for f in load.err watch.log; do
			[ -f "$d/$f" ] && set -- "$@" "$d/$f"
		done
		awk -v header=$first -f "$here/report.awk" "$@"
		first=0
	done >"$rundir/summary.tsv"
	awk -f "$here/table.awk" "$rundir/summary.tsv" | tee "$rundir/table.md"
	# make lab's goals, when the run has its arms (goals.awk).
	if grep -q -E '^nofit-random(\.r[0-9]+)?	' "$rundir/summary.tsv"; then
		echo
		awk -f "$top/tools/lab/median.awk" -f "$here/goals.awk" "$rundir/summary.tsv" |
			tee "$rundir/goals.txt"
	fi
	grep -q -E '^[^	]*\.r[0-9]+	' "$rundir/summary.tsv" || return 0
	lab=$top/tools/lab
	awk -v col_start=recover_start_s -v col_mib=mib_after -f "$lab/median.awk" \
		-f "$lab/repeat.awk" "$rundir/summary.tsv" >"$rundir/repeats.tsv"
	echo
	echo "repeated runs (repeats.tsv):"
	LAB_SRC=$lab bash -c '. "$LAB_SRC/experiments.sh"; repeat_table "$1"' sh "$rundir/repeats.tsv"
}

if [ "${1:-}" = report ]; then
	report "${2:?usage: run.sh report RUNDIR}"
	exit 0
fi
name=${1:?usage: run.sh NAME ARMS [VAR=VALUE...]}
arms=${2:?usage: run.sh NAME ARMS [VAR=VALUE...]}
shift 2
make -C "$top" --no-print-directory "BUILD=$BUILD" "$BUILD/advshim-load" "$BUILD/adapt-probe" >&2
stage=$(mktemp -d "${TMPDIR:-/tmp}/adapt-lab.XXXXXX")
trap 'rm -rf "$stage"' EXIT
awk -v re="${ARMS_MATCH:-.}" '/^[ \t]*(#|$)/ || $1 ~ re' "$arms" >"$stage/$name.arms"
rc=0
run=$(LAB_REPEAT=${LAB_REPEAT:-1} \
	LAB_JOB_FILES="$here/probe.sh $here/adaptive.conf $here/rewrite.conf $BUILD/adapt-probe" \
	bash "$top/tools/lab/lab.sh" arms "adapt-$name" "$stage/$name.arms" \
	WORKLOAD=load VEC_MB=120 COLD_SHIM=off SAMPLE_EXTRA=0 SAMPLE_HOOK=/lab/job/probe.sh "$@") || rc=$?
[ -d "$run" ] || { echo "run.sh: the lab left no run directory" >&2; exit 1; }
cp "$stage/$name.arms" "$run/arms"
echo "run: $run (guest exit $rc)"
report "$run"
exit $rc
