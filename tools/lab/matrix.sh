# SPDX-License-Identifier: MIT
#
# matrix.sh - make lab-matrix (sourced by lab.sh after experiments.sh):
# every scenario of experiments/matrix.scenarios on every kernel of
# $LAB_MATRIX_KERNELS, one boot per kernel and scenario, then one table
# kernel x arm and one plot per kernel and scenario.
#
# Layout: build/lab/runs/matrix-DATE/KERNEL-SCENARIO/ is an ordinary run
# directory (lab.sh summary re-renders it); matrix.tsv, matrix.txt and
# plot-KERNEL-SCENARIO.png sit next to them, matrix.log has the wall time
# and host load of each boot.

LAB_MATRIX_KERNELS=${LAB_MATRIX_KERNELS:-$LAB_SERIES}
LAB_MATRIX_SCENARIOS=${LAB_MATRIX_SCENARIOS:-$LAB_SRC/experiments/matrix.scenarios}

# matrix_scenarios: the scenario lines (comments and blanks dropped).
matrix_scenarios() {
	[ -r "$LAB_MATRIX_SCENARIOS" ] || die "no scenario list $LAB_MATRIX_SCENARIOS"
	sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$LAB_MATRIX_SCENARIOS"
}

# matrix_cell DIR KERNEL SCENARIO ARMS VAR=VALUE...: one boot; its report
# goes to DIR/KERNEL-SCENARIO.txt.
matrix_cell() {
	local mdir=$1 k=$2 sc=$3 arms=$4 rc=0 t0 cell
	shift 4
	[ -f "$LAB_SRC/experiments/$arms" ] || die "scenario $sc: no arms file experiments/$arms"
	cell=$mdir/$k-$sc
	t0=$(date +%s)
	echo "matrix: $k / $sc: $(grep -c -v -e '^#' -e '^[[:space:]]*$' "$LAB_SRC/experiments/$arms") arms, $* (load $(cut -d' ' -f1-3 /proc/loadavg))"
	(
		LAB_KERNEL=$k
		LAB_RUNDIR=$cell run_arms "matrix-$k-$sc" "$arms" \
			"${LAB_TIMEOUT:-1800}" "$@" >/dev/null
	) || rc=$?
	printf '%s\t%s\t%d\t%s\t%s\n' "$k" "$sc" "$(( $(date +%s) - t0 ))" \
		"$(cut -d' ' -f1-3 /proc/loadavg)" "$rc" >>"$mdir/matrix.log"
	matrix_cell_report "$mdir" "$k" "$sc" || rc=1
	echo "matrix: $k / $sc done in $(( $(date +%s) - t0 )) s (exit $rc; report $mdir/$k-$sc.txt)"
	return $rc
}

# matrix_cell_report DIR KERNEL SCENARIO: the cell's report and plot.
matrix_cell_report() {
	local mdir=$1 cell=$1/$2-$3 rc=0
	PLOT_TITLE="$(sed -n 's/^kernel //p' "$cell/out/guest.info" 2>/dev/null), $3" \
		report "$cell" >"$mdir/$2-$3.txt" 2>&1 || rc=1
	[ -f "$cell/plot.png" ] && cp "$cell/plot.png" "$mdir/plot-$2-$3.png"
	return $rc
}

# matrix_table DIR: matrix.tsv (one line per kernel x scenario x arm) and
# the table in matrix.txt.
matrix_table() {
	local mdir=$1 cell k sc
	{
		printf 'kernel\tscenario\tarm\trecover_end_s\trecover_start_s\tworst_reads_s\tpre_reads_s\ttail_pct\tmib_after\tmajflt_after\tagings\twatch_acts\tcold_read_s\n'
		while IFS=$(printf '\t') read -r k sc _; do
			cell=$mdir/$k-$sc
			[ -f "$cell/summary.tsv" ] || { printf '%s\t%s\t-\tFAILED\n' "$k" "$sc"; continue; }
			awk -F'\t' -v k="$(sed -n 's/^kernel //p' "$cell/out/guest.info")" -v sc="$sc" '
				NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
				$2 == "FAILED" { printf "%s\t%s\t%s\tFAILED\n", k, sc, $1; next }
				{ printf "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%.1f\n", k, sc, $1,
					$c["recover_s"], $c["recover_from_start_s"], $c["worst_reads_s"],
					$c["pre_reads_s"], $c["tail_pct"], $c["read_mib_after"],
					$c["majflt_after"], $c["agings"], $c["watch_acts"],
					$c["cold_end_s"] - $c["cold_start_s"] }' "$cell/summary.tsv"
		done <"$mdir/matrix.log"
	} >"$mdir/matrix.tsv"
	awk -F'\t' '
		NR == 1 { printf "%-26s %-6s %-8s %6s %9s %9s %9s %6s %9s %8s %7s %6s\n", "kernel", "scen.",
			"arm", "cold s", "rec@end", "rec@start", "worst/s", "tail%", "MiB after", "majflt", "agings", "watch"; next }
		$4 == "FAILED" { printf "%-26s %-6s %-8s %6s %9s\n", $1, $2, $3, "", "FAILED"; next }
		{ printf "%-26s %-6s %-8s %6s %9s %9s %9d %6s %9d %8d %7d %6s\n", $1, $2, $3, $13, $4, $5, $6, $8, $9, $10, $11, $12 }' \
		"$mdir/matrix.tsv" >"$mdir/matrix.txt"
}

exp_matrix() {
	local mdir start k sc arms rc=0 vars
	start=$(date +%s)
	mdir=$LAB_DIR/runs/matrix-$(date +%Y%m%d-%H%M%S)
	mkdir -p "$mdir"
	: >"$mdir/matrix.log"
	echo "lab matrix: kernels $LAB_MATRIX_KERNELS; scenarios: $(matrix_scenarios | awk '{ print $1 }' | tr '\n' ' ')"
	echo "  (host: $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg); one VM at a time, each on one host core)"
	# Every kernel first: a missing one fails before an hour of runs.
	for k in $LAB_MATRIX_KERNELS; do
		(LAB_KERNEL=$k; kernel_series >/dev/null; fetch_kernel >/dev/null) ||
			die "the $k kernel cannot be had (see above)"
	done
	for k in $LAB_MATRIX_KERNELS; do
		while read -r sc arms vars; do
			# shellcheck disable=SC2086
			matrix_cell "$mdir" "$k" "$sc" "$arms" $vars || rc=1
		done < <(matrix_scenarios)
	done
	ln -sfn "$(basename "$mdir")" "$LAB_DIR/runs/matrix-latest"
	matrix_print "$mdir"
	echo "lab matrix: done in $(( $(date +%s) - start )) s wall (load now $(cut -d' ' -f1-3 /proc/loadavg)); results in $mdir"
	return $rc
}

# matrix_print DIR: the table and its legend.
matrix_print() {
	local mdir=$1
	matrix_table "$mdir"
	echo
	cat "$mdir/matrix.txt"
	cat <<-'EOF'
	  cold s: how long the cold read (40 MiB twice) took, guest s
	  rec@end / rec@start: guest s from the end / the start of the cold read to recovery
	    (3 intervals <= 100 major faults/s, median of 5 >= 80% of the pre-cold reads/s)
	  worst: lowest reads/s after the cold read began; tail: median reads/s from 5 s after
	  it to the end, % of pre (n/a, -: the cold read ended too late in the run to judge);
	  MiB after, majflt: read from disk and major faults after it
	  began; agings: max_seq moves of the arm's memcg; watch: the watcher's decisions
	EOF
	echo "plots: $(ls "$mdir"/plot-*.png 2>/dev/null | tr '\n' ' ')"
	awk -F'\t' '{ printf "  boot %s / %s: %d s wall (load %s)\n", $1, $2, $3, $4 }' "$mdir/matrix.log"
}

# matrix-report [DIR]: re-renders a matrix run (reports, plots, table).
exp_matrix-report() {
	local mdir=${1:-$LAB_DIR/runs/matrix-latest} k sc
	[ -f "$mdir/matrix.log" ] || die "$mdir is not a matrix run"
	while IFS=$(printf '\t') read -r k sc _; do
		matrix_cell_report "$mdir" "$k" "$sc" || true
	done <"$mdir/matrix.log"
	matrix_print "$mdir"
}

# fixtures [MATRIX_DIR]: copies the kernel text of the latest lab-rules run
# of each series and of the matrix's stall (no-fix) and recovered (shim)
# arms into tests/fixtures/kernels/SERIES/ (test_watch_kernels.c).
exp_fixtures() {
	local mdir=${1:-$LAB_DIR/runs/matrix-latest} k rules dst arm cell
	for k in $LAB_MATRIX_KERNELS; do
		rules=$LAB_DIR/runs/rules-$k-latest/out
		[ -s "$rules/rules.tsv" ] || die "no lab-rules run of $k (make lab-rules LAB_KERNEL=$k)"
		cell=$(ls -d "$mdir/$k"-*/ 2>/dev/null | head -n 1)
		[ -n "$cell" ] || die "no $k run in $mdir"
		dst=$TOP/tests/fixtures/kernels/$k
		rm -rf "$dst"
		mkdir -p "$dst"
		cp "$rules/rules.tsv" "$dst/"
		for f in version lru_gen lru_gen_full lru_gen_full.busy memory.stat enabled cgroups; do
			cp "$rules/fixtures/$f" "$dst/$f"
		done
		for arm in no-fix shim; do
			[ -d "$cell/out/arms/$arm/capture" ] || die "$cell: arm $arm captured nothing"
			mkdir -p "$dst/$arm"
			cp "$cell/out/arms/$arm/capture/"* "$dst/$arm/"
		done
		chmod -R u+w,a+r "$dst"
		echo "fixtures: $dst ($(cat "$dst/version"))"
	done
}
