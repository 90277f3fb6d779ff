# SPDX-License-Identifier: MIT
#
# table.awk - one Lucene lab arm's files -> one TSV line of the report's
# figures, before and after the cold read.  Usage:
#   awk -v arm=NAME -f table.awk ARM/cold.tsv ARM/samples.tsv ARM/load.tsv ARM/rr.txt
# Output: arm qps_before qps_after worst_qps p99_ms_before p99_ms_after
#   majflt_q_before majflt_q_after mib_before mib_after recover_s rr_files hash
#
# Times are CLOCK_MONOTONIC ms (advshim-lucene's and advshim-load's
# mono_ms, the sampler's /proc/uptime).  "before": the 15 s up to the
# start of the cold read; "after": from its end to the end of the arm.
# queries/s and major faults per query come from the JVM's own rows (its
# faults only), MiB read from the memcg's io.stat (the cold reader is idle
# in both windows).  recover: seconds from the end of the cold read to the
# first row from which 3 rows have <= 100 major faults/s and the median
# queries/s of 5 rows is >= 80% of before ("never" when no such row).

# The cumulative bytes read at time t (the last sample at or before t).
function rbytes_at(t,    i, v) {
	v = ns ? sb[1] : 0
	for (i = 1; i <= ns; i++)
		if (st[i] <= t)
			v = sb[i]
	return v
}

FILENAME ~ /cold\.tsv$/ {
	if ($1 == "start" && cs == "")
		cs = $3
	if ($1 == "end")
		ce = $3
	next
}
FILENAME ~ /samples\.tsv$/ {
	if (FNR > 1 && $5 != "-") {
		ns++
		st[ns] = $1
		sb[ns] = $5
	}
	next
}
FILENAME ~ /load\.tsv$/ {
	if ($0 ~ /^# result-hash: /) {
		hash = $3
		next
	}
	if ($1 !~ /^[0-9]+$/ || NF != 10)
		next
	n++
	el[n] = $1; mono[n] = $2; q[n] = $3; qps[n] = $4; p99[n] = $8; mf[n] = $9; mfs[n] = $10
	dt[n] = (n > 1 ? $1 - el[n - 1] : $1) / 1000
	next
}
FILENAME ~ /rr\.txt$/ {
	seen++
	if ($1 == "rr") {
		f = $2
		sub(/.*\//, "", f)
		sub(/^_[0-9]+_[A-Za-z0-9]+_[0-9]+\./, ".", f)
		sub(/^_[0-9]+\./, ".", f)
		rr = rr (rr == "" ? "" : ",") f
	}
	next
}

END {
	if (cs == "" || ce == "" || n == 0) {
		printf "%s\tFAILED\n", arm
		exit
	}
	for (i = 1; i <= n; i++) {
		if (mono[i] > cs - 15000 && mono[i] <= cs) {
			bq += q[i]; bt += dt[i]; bm += mf[i]; bp[++nbp] = p99[i]
		}
		if (mono[i] > cs && (worst == "" || qps[i] < worst))
			worst = qps[i]
		if (mono[i] - dt[i] * 1000 >= ce) {
			aq += q[i]; at += dt[i]; am += mf[i]; ap[++nap] = p99[i]
			if (first_after == "")
				first_after = i
		}
	}
	before = bt > 0 ? bq / bt : 0
	rec = "never"
	for (i = first_after; i != "" && i <= n - 2; i++) {
		ok = mfs[i] <= 100 && mfs[i + 1] <= 100 && mfs[i + 2] <= 100
		k = 0
		for (j = i; j <= n && j < i + 5; j++)
			w[++k] = qps[j]
		if (ok && k >= 3 && median(w, k) >= 0.8 * before) {
			r = (mono[i] - dt[i] * 1000 - ce) / 1000
			rec = sprintf("%.1f", r < 0 ? 0 : r)
			break
		}
	}
	last = ns ? st[ns] : ce
	printf "%s\t%.1f\t%.1f\t%.1f\t%.0f\t%.0f\t%.1f\t%.1f\t%.1f\t%.1f\t%s\t%s\t%s\n", arm,
		before, (at > 0 ? aq / at : 0), worst, median(bp, nbp) / 1000, median(ap, nap) / 1000,
		(bq > 0 ? bm / bq : 0), (aq > 0 ? am / aq : 0),
		(rbytes_at(cs) - rbytes_at(cs - 15000)) / 1048576, (rbytes_at(last) - rbytes_at(ce)) / 1048576,
		rec, (rr != "" ? rr : seen ? "none" : "unknown"), (hash == "" ? "-" : hash)
}
