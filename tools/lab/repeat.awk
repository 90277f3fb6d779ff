# SPDX-License-Identifier: MIT
#
# repeat.awk - repeated runs of each arm -> one row per workload x arm.
#   awk -v workloads="fio lmdb bolt load" -f median.awk -f repeat.awk RUNDIR/runs.tsv
# Input: the lab's per-run summary (experiments.sh report: arm,
# recover_s, recover_from_start_s, tail_pct, read_mib_after, workload;
# the arm column is NAME or NAME.rR, NAME = WORKLOAD-ARM or ARM).  A
# FAILED row has no workload column: a name that starts with one of
# @workloads and "-" belongs to it.  Other summaries name two columns
# otherwise: -v col_start=recover_start_s -v col_mib=mib_after
# (tools/adapt/lab/report.awk's).
# Output (TSV, header first): workload arm runs stalled recover_median_s
# recover_max_s tail_median_pct mib_after_median, then recover_min_s,
# recover_start_median_s, recover_start_min_s, recover_start_max_s,
# tail_min_pct, tail_max_pct, mib_after_min, mib_after_max.
# stalled = k/N runs whose tail is below 80% and that never recovered.
# "never" counts as longer than any time: a median is "never" when it is
# (or, for an even count, half of it is) a run that never recovered, a
# maximum when one did not; "n/a"
# runs (the cold read ended too late to judge) are left out of the times,
# and so is a column the summary does not have ("-").

# q(a, n, which): "min", "max" or "med" of a[1..n] where a value is a
# number or "never"; "-" when n is 0.
function q(a, n, which,    i, b, m, nv, v) {
	if (n == 0)
		return "-"
	nv = 0; m = 0
	for (i = 1; i <= n; i++)
		if (a[i] == "never") nv++; else b[++m] = a[i] + 0
	if (which == "max")
		return nv ? "never" : fmt(top(b, m))
	if (which == "min")
		return m ? fmt(bottom(b, m)) : "never"
	if (nv * 2 >= n)
		return "never"
	# the never runs sit above every number: the median of the numbers
	# with nv values above them
	for (i = 1; i <= nv; i++) b[++m] = 1e18
	v = median(b, m)
	return v >= 1e18 ? "never" : fmt(v)
}
function top(b, m,    i, v) { v = b[1]; for (i = 2; i <= m; i++) if (b[i] > v) v = b[i]; return v }
function bottom(b, m,    i, v) { v = b[1]; for (i = 2; i <= m; i++) if (b[i] < v) v = b[i]; return v }
function fmt(v) { return (v == int(v)) ? sprintf("%d", v) : sprintf("%.1f", v) }

BEGIN {
	FS = OFS = "\t"; nwl = split(workloads, wls, " ")
	if (col_start == "") col_start = "recover_from_start_s"
	if (col_mib == "") col_mib = "read_mib_after"
}
NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
{
	name = $1
	sub(/\.r[0-9]+$/, "", name)
	wl = ("workload" in c && $c["workload"] != "") ? $c["workload"] : ""
	for (i = 1; wl == "" && i <= nwl; i++)
		if (index(name, wls[i] "-") == 1)
			wl = wls[i]
	if (wl == "")
		wl = "load"
	arm = name
	if (index(arm, wl "-") == 1)
		arm = substr(arm, length(wl) + 2)
	k = wl SUBSEP arm
	if (!(k in runs)) { order[++nk] = k; kw[k] = wl; ka[k] = arm }
	runs[k]++
	if ($2 == "FAILED") { failed[k]++; next }
	rec = $c["recover_s"]
	rec0 = (col_start in c) ? $c[col_start] : "-"
	tail = ("tail_pct" in c) ? $c["tail_pct"] : "-"
	if (rec != "n/a" && rec != "-") R[k, ++nr[k]] = rec
	if (rec0 != "n/a" && rec0 != "-") S[k, ++ns[k]] = rec0
	if (tail != "-" && tail != "n/a") T[k, ++nt[k]] = tail
	if ((col_mib in c) && $c[col_mib] != "-") M[k, ++nm[k]] = $c[col_mib]
	if (rec == "never" && tail != "-" && tail + 0 < 80)
		stalled[k]++
}
END {
	print "workload", "arm", "runs", "stalled", "recover_median_s", "recover_max_s", "tail_median_pct",
		"mib_after_median", "recover_min_s", "recover_start_median_s", "recover_start_min_s",
		"recover_start_max_s", "tail_min_pct", "tail_max_pct", "mib_after_min", "mib_after_max", "failed"
	for (i = 1; i <= nk; i++) {
		k = order[i]
		split("", r); split("", s); split("", t); split("", m)
		for (j = 1; j <= nr[k]; j++) r[j] = R[k, j]
		for (j = 1; j <= ns[k]; j++) s[j] = S[k, j]
		for (j = 1; j <= nt[k]; j++) t[j] = T[k, j]
		for (j = 1; j <= nm[k]; j++) m[j] = M[k, j]
		print kw[k], ka[k], runs[k], (stalled[k] + 0) "/" runs[k],
			q(r, nr[k] + 0, "med"), q(r, nr[k] + 0, "max"), q(t, nt[k] + 0, "med"),
			q(m, nm[k] + 0, "med"), q(r, nr[k] + 0, "min"), q(s, ns[k] + 0, "med"),
			q(s, ns[k] + 0, "min"), q(s, ns[k] + 0, "max"), q(t, nt[k] + 0, "min"),
			q(t, nt[k] + 0, "max"), q(m, nm[k] + 0, "min"), q(m, nm[k] + 0, "max"),
			failed[k] + 0
	}
}
