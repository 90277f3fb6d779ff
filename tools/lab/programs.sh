# SPDX-License-Identifier: MIT
#
# programs.sh - make lab-programs (sourced by lab.sh after experiments.sh):
# real programs as the stall scenario's readers (issue 19), each with the
# arms of experiments/programs.arms, LAB_REPEAT runs of each in one boot.
#
#   LAB_PROGRAMS="fio lmdb bolt load"   the workloads (default all); one
#                 whose program is missing here is left out, loudly
#   LAB_REPEAT=N  runs of every arm (default 3), round by round
#   LAB_RECORD=1  every arm records frames.txt etc. (guest/record.sh) for
#                 tools/lab/replay.sh; off by default, it slows recovery
#   LAB_ARMS="none lru-off"   only these arms of each workload (default all;
#                 the rfc-on and rfc-off arms only on LAB_KERNEL=*-rfc)
#
# Results: build/lab/runs/programs-KERNEL-DATE/ (programs-latest and
# programs-KERNEL-latest point at the newest): runs.tsv (one row per arm
# and run, experiments.sh report's columns), summary.tsv (one row per
# workload x arm over the runs, repeat.awk), the timelines and plot.

LAB_PROGRAMS_ARMS=${LAB_PROGRAMS_ARMS:-$LAB_SRC/experiments/programs.arms}

# program_missing WORKLOAD: why WORKLOAD cannot run here (nothing if it can).
program_missing() {
	case $1 in
	fio) command -v fio >/dev/null 2>&1 || echo "fio is not installed (Debian package fio)" ;;
	lmdb) [ -x "$BUILD/advshim-lmdb" ] || echo "$BUILD/advshim-lmdb is not built (liblmdb-dev)" ;;
	bolt) [ -x "$BUILD/advshim-bolt" ] || echo "$BUILD/advshim-bolt is not built (go, the Go module proxy)" ;;
	load) [ -x "$BUILD/advshim-load" ] || echo "$BUILD/advshim-load is not built" ;;
	opensearch) [ -n "${LAB_JOB_FILES:-}" ] || echo "the node comes with make lab-opensearch" ;;
	lucene) [ -n "${LAB_JOB_FILES:-}" ] || echo "the JVM and the index come with make lab-lucene" ;;
	*) echo "unknown workload (known: fio lmdb bolt load opensearch lucene)" ;;
	esac
}

# programs_arms OUT: the arms of the workloads asked for that can run.
programs_arms() {
	local out=$1 w why keep=
	for w in ${LAB_PROGRAMS:-fio lmdb bolt load}; do
		why=$(program_missing "$w")
		if [ -n "$why" ]; then
			note "workload $w left out: $why"
			continue
		fi
		keep="$keep $w"
	done
	[ -n "$keep" ] || die "no workload of '${LAB_PROGRAMS:-fio lmdb bolt load}' can run"
	# Arms with RFC= need the lab's RFC kernel (LAB_KERNEL=*-rfc).
	local rfc=0
	case $LAB_KERNEL in *-rfc) rfc=1 ;; esac
	awk -v keep="$keep" -v arms="${LAB_ARMS:-}" -v rfc=$rfc '
		BEGIN { n = split(keep, k, " "); for (i = 1; i <= n; i++) want["WORKLOAD=" k[i]] = 1
			n = split(arms, a, " "); for (i = 1; i <= n; i++) arm[a[i]] = 1 }
		/^[ \t]*(#|$)/ { next }
		!rfc && / RFC=/ { next }
		{ name = $1; sub(/^[^-]*-/, "", name); if (arms != "" && !(name in arm)) next
		  for (i = 2; i <= NF; i++) if ($i in want) { print; next } }' "$LAB_PROGRAMS_ARMS" >"$out"
	[ -s "$out" ] || die "no arm of '${LAB_ARMS:-}' in $LAB_PROGRAMS_ARMS for '$keep'"
}

# The scenario of make lab-programs; another workload's runner (make
# lab-opensearch) sets its own, a run name and an arm's set-up guest s.
: "${LAB_SCENARIO:=MEMCG_MB=128 VEC_MB=120 COLD_MB=40 THREADS=4 THETA=0.8}"
: "${LAB_RUN_NAME:=programs}" "${LAB_ARM_SETUP_S:=25}"

exp_programs() {
	local start rc=0 arms repeat n tmo
	start=$(date +%s)
	repeat=${LAB_REPEAT:-3}
	arms=$(mktemp "${TMPDIR:-/tmp}/programs.arms.XXXXXX")
	programs_arms "$arms"
	n=$(wc -l <"$arms")
	# An arm is DURATION guest s and LAB_ARM_SETUP_S of set-up; the
	# loaders and the boot ~120 s.
	tmo=${LAB_TIMEOUT:-$(( n * repeat * (${LAB_DURATION:-80} + LAB_ARM_SETUP_S) + 300 ))}
	echo "lab $LAB_RUN_NAME: $(awk '{ print $1 }' "$arms" | tr '\n' ' ')x $repeat on Debian's $LAB_KERNEL kernel ($((n * repeat)) arms, limit $tmo guest s)"
	# shellcheck disable=SC2086
	RUN=$(run_arms "$LAB_RUN_NAME-$LAB_KERNEL" "$arms" "$tmo" $LAB_SCENARIO \
		DURATION="${LAB_DURATION:-80}" COLD_AT="${LAB_COLD_AT:-20}" \
		RECORD="${LAB_RECORD:-0}" \
		LAB_REPEAT="$repeat") || rc=$?
	cp "$arms" "$RUN/arms"
	rm -f "$arms"
	ln -sfn "$(basename "$RUN")" "$LAB_DIR/runs/$LAB_RUN_NAME-latest"
	[ "$rc" = 0 ] || note "the guest job failed (exit $rc): the tables show what ran"
	programs_report "$RUN" || rc=1
	[ "${LAB_QPS_TABLE:-0}" = 1 ] && { qps_report "$RUN" || rc=1; }
	echo "lab $LAB_RUN_NAME: done in $(( $(date +%s) - start )) s; results in $RUN (summary.tsv)"
	return $rc
}

# programs_report RUNDIR: the timelines and per-run summary (runs.tsv),
# then the summary over the runs (summary.tsv).
programs_report() {
	SUMMARY_TSV=runs.tsv report "$1" || return 1
	repeat_report "$1" "$1/runs.tsv" "$1/summary.tsv"
}

# qps_report RUNDIR: a query workload's arms in the bug report's columns
# (qps.awk: queries/s, p50/p90/p99 ms, major faults per query, MiB read,
# before and after the cold read, the files mapped rr when the workload
# captured them in rr.txt, the result hash) into RUNDIR/qps-runs.tsv, and over the
# runs (qps-repeat.awk) into RUNDIR/qps.tsv, printed as a table.
qps_report() {
	local run=$1 d rr=()
	{
		awk -v header=1 -f "$LAB_SRC/median.awk" -f "$LAB_SRC/qps.awk"
		for d in "$run"/out/arms/*/; do
			d=${d%/}
			[ -f "$d/ok" ] || { printf '%s\tFAILED\n' "$(basename "$d")"; continue; }
			rr=()
			[ -f "$d/rr.txt" ] && rr=("$d/rr.txt")
			awk -v arm="$(basename "$d")" -f "$LAB_SRC/median.awk" -f "$LAB_SRC/qps.awk" \
				"$d/arm.env" "$d/samples.tsv" "$d/load.tsv" "${rr[@]}"
		done
	} >"$run/qps-runs.tsv"
	qps_over_runs "$run" "before: 15 s up to the cold read, after: from its end; median (min-max) over the runs"
}

# qps_over_runs DIR WHAT: DIR/qps-runs.tsv over the runs (qps-repeat.awk)
# into DIR/qps.tsv, printed as a table headed by WHAT.
qps_over_runs() {
	awk -f "$LAB_SRC/median.awk" -f "$LAB_SRC/qps-repeat.awk" "$1/qps-runs.tsv" >"$1/qps.tsv"
	echo
	echo "== the report's columns (qps.tsv; $2)"
	column -t -s "$(printf '\t')" "$1/qps.tsv" 2>/dev/null || cat "$1/qps.tsv"
}

# exp_merge OUT RUNDIR...: the runs of several boots as one table: their
# runs.tsv rows (arm NAME.rK, K counting each arm's runs over all of them)
# into OUT/runs.tsv, and the summary over them in OUT/summary.tsv; their
# qps-runs.tsv (a query workload's) likewise into OUT/qps-runs.tsv and
# OUT/qps.tsv.
exp_merge() {
	local out=${1:?usage: lab.sh merge OUT RUNDIR...} d files=()
	shift
	[ $# -gt 0 ] || die "usage: lab.sh merge OUT RUNDIR..."
	for d in "$@"; do
		[ -s "$d/runs.tsv" ] || die "$d: no runs.tsv (not a programs run?)"
		files+=("$d/runs.tsv")
	done
	mkdir -p "$out"
	renumber_runs "${files[@]}" >"$out/runs.tsv.tmp" && mv "$out/runs.tsv.tmp" "$out/runs.tsv"
	printf '%s\n' "$@" >"$out/merged-from"
	repeat_report "$out" "$out/runs.tsv" "$out/summary.tsv"
	# A query workload's table too, when every run has one.
	files=()
	for d in "$@"; do
		[ -s "$d/qps-runs.tsv" ] || return 0
		files+=("$d/qps-runs.tsv")
	done
	renumber_runs "${files[@]}" >"$out/qps-runs.tsv"
	qps_over_runs "$out" "over the merged runs"
}

# renumber_runs TSV...: the rows of per-run tables (a header, then one row
# per arm and run, the arm first) as one table, arm NAME.rK with K counting
# each arm's runs over all of them.
renumber_runs() {
	awk -F'\t' -v OFS='\t' '
		FNR == 1 { if (NR == 1) print; next }
		{ name = $1; sub(/\.r[0-9]+$/, "", name); $1 = name ".r" (++n[name]); print }' "$@"
}
