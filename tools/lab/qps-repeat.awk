# SPDX-License-Identifier: MIT
#
# qps-repeat.awk - qps.awk's rows of repeated runs (arm NAME or NAME.rR)
# -> one row per arm: runs, stalled (queries/s after below 80% of before
# and never recovered), and each figure as "median (min-max)" over the
# runs (the median alone when they agree; major faults per query with two
# decimals, the rest with one; "never" counts as longer than any time: the
# median is "never" when it is, or for an even count half of it is, a run
# that never recovered), and the text columns (rr_files, hash) as the
# value the runs share ("mixed" when they differ).
#   awk -f median.awk -f qps-repeat.awk ROWS.tsv
# Input columns: qps.awk's output, header first.

function rng(k, c,    i, a, m, lo, hi, v, d) {
	m = 0
	for (i = 1; i <= runs[k]; i++) {
		v = val[k, i, c]
		if (v == "" || v == "-" || v == "never")
			continue
		a[++m] = v + 0
	}
	if (!m)
		return nv[k, c] ? "never" : "-"
	lo = hi = a[1]
	for (i = 2; i <= m; i++) {
		if (a[i] < lo) lo = a[i]
		if (a[i] > hi) hi = a[i]
	}
	d = col[c] ~ /^majflt/ ? "%.2f" : "%.1f"
	# a run that never recovered counts as longer than any time (as in
	# repeat.awk): the median is "never" when it falls on such a run
	for (i = 1; i <= nv[k, c]; i++)
		a[++m] = 1e18
	v = nv[k, c] * 2 >= m ? "never" : sprintf(d, median(a, m))
	if (nv[k, c])
		return v " (" sprintf(d, lo) "-never)"
	return lo == hi ? v : v " (" sprintf(d, lo) "-" sprintf(d, hi) ")"
}

BEGIN { FS = OFS = "\t" }
NR == 1 {
	for (i = 1; i <= NF; i++) {
		col[i] = $i
		if ($i == "recover_s") c_rec = i
		if ($i == "rr_files" || $i == "hash") text[i] = 1
	}
	nc = NF
	next
}
{
	k = $1
	sub(/\.r[0-9]+$/, "", k)
	if (!(k in runs)) order[++nk] = k
	r = ++runs[k]
	if ($2 == "FAILED") { failed[k]++; next }
	for (i = 2; i <= nc; i++) {
		val[k, r, i] = $i
		if ($i == "never") nv[k, i]++
		if (i in text) {
			t = ((k, i) in shared) && shared[k, i] != $i ? "mixed" : $i
			shared[k, i] = t
		}
	}
	if ($c_rec == "never" && $3 != "-" && $3 + 0 < 0.8 * $2)
		stalled[k]++
}
END {
	printf "arm\truns\tstalled"
	for (i = 2; i <= nc; i++) printf "\t%s", col[i]
	printf "\n"
	for (j = 1; j <= nk; j++) {
		k = order[j]
		printf "%s\t%d\t%d/%d", k, runs[k], stalled[k] + 0, runs[k] - failed[k]
		for (i = 2; i <= nc; i++)
			printf "\t%s", !(i in text) ? rng(k, i) : ((k, i) in shared) ? shared[k, i] : "-"
		printf "\n"
	}
}
