# SPDX-License-Identifier: MIT
#
# qps.awk - one arm of a query workload (guest/arm.sh, a reader that prints
# advshim-load's TSV with queries and latencies: advshim-opensearch,
# advshim-lucene) -> one TSV row of the bug report's figures, before and
# after the cold read.
#   awk -v arm=NAME -f median.awk -f qps.awk ARM/arm.env ARM/samples.tsv ARM/load.tsv [ARM/rr.txt]
# Output: arm qps_before qps_after worst_qps p50_ms_before p50_ms_after
#   p90_ms_before p90_ms_after p99_ms_before p99_ms_after majflt_q_before
#   majflt_q_after mib_before mib_after recover_s rr_files hash
#
# Times are ms from the reader's first line (load.tsv's elapsed_ms;
# arm.env's cold_start_ms and cold_end_ms; the sampler's t_ms less
# sampler_offset_ms).  "before": the 15 s up to the start of the cold
# read; "after": from its end to the end of the arm.  queries/s and major
# faults per query come from the reader's rows (the node's own faults),
# p50/p90/p99 are the medians of the rows' percentiles, MiB read the
# memcg's io.stat (the cold reader is idle in both windows).  recover:
# seconds from the end of the cold read to the first row from which 3 rows
# have <= 100 major faults/s and queries/s >= 80% of before ("never" when
# no such row).  rr_files: the index files the reader had mapped
# MADV_RANDOM ("rr" in VmFlags) before the cold read, from rr.txt (lines
# "rr PATH" or "- PATH", the workload's capture), as suffixes (.vec,.vex);
# "none" when no file was, "unknown" when rr.txt is empty (the smaps
# could not be read), "-" without rr.txt (not captured).

function rbytes_at(t,    i, v) {
	v = ns ? sb[1] : 0
	for (i = 1; i <= ns; i++)
		if (st[i] <= t)
			v = sb[i]
	return v
}

function med(a, n) { return n ? sprintf("%.1f", median(a, n) / 1000) : "-" }

# -v header=1: only the header line (the output's column names).
BEGIN {
	if (header) {
		print "arm\tqps_before\tqps_after\tworst_qps\tp50_ms_before\tp50_ms_after\tp90_ms_before\tp90_ms_after" \
			"\tp99_ms_before\tp99_ms_after\tmajflt_q_before\tmajflt_q_after\tmib_before\tmib_after" \
			"\trecover_s\trr_files\thash"
		exit
	}
	for (i = 1; i < ARGC; i++)
		if (ARGV[i] ~ /rr\.txt$/)
			rr_given = 1
}

FILENAME ~ /arm\.env$/ {
	for (i = 1; i <= NF; i++) {
		split($i, kv, "=")
		env[kv[1]] = kv[2]
	}
	next
}
FILENAME ~ /samples\.tsv$/ {
	if (FNR > 1 && $6 ~ /^[0-9]+$/) {
		ns++
		st[ns] = $1 - env["sampler_offset_ms"]
		sb[ns] = $6
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
	el[n] = $1; q[n] = $3; qps[n] = $4; mf[n] = $9; mfs[n] = $10
	p50[n] = $6; p90[n] = $7; p99[n] = $8
	dt[n] = (n > 1 ? $1 - el[n - 1] : $1) / 1000
	next
}
FILENAME ~ /rr\.txt$/ {
	seen++
	if ($1 == "rr") {
		f = $2
		sub(/.*\//, "", f)
		# _0_Lucene99HnswVectorsFormat_0.vec and _0.fdt: .vec, .fdt
		sub(/^_[0-9a-z]+_[A-Za-z0-9]+_[0-9]+\./, ".", f)
		sub(/^_[0-9a-z]+\./, ".", f)
		if (!(f in rrseen))
			rr = rr (rr == "" ? "" : ",") f
		rrseen[f] = 1
	}
	next
}

END {
	if (header)
		exit
	cs = env["cold_start_ms"]; ce = env["cold_end_ms"]
	if (cs == "" || ce == "" || n == 0) {
		printf "%s\tFAILED\n", arm
		exit
	}
	for (i = 1; i <= n; i++) {
		if (el[i] > cs - 15000 && el[i] <= cs) {
			bq += q[i]; bt += dt[i]; bm += mf[i]
			b50[++nb] = p50[i]; b90[nb] = p90[i]; b99[nb] = p99[i]
		}
		if (el[i] > cs && (worst == "" || qps[i] < worst))
			worst = qps[i]
		if (el[i] - dt[i] * 1000 >= ce) {
			aq += q[i]; at += dt[i]; am += mf[i]
			a50[++na] = p50[i]; a90[na] = p90[i]; a99[na] = p99[i]
			if (first_after == "")
				first_after = i
		}
	}
	before = bt ? bq / bt : 0
	rec = "never"
	for (i = first_after; first_after != "" && i + 2 <= n; i++) {
		ok = 1
		for (j = i; j <= i + 2; j++)
			if (mfs[j] > 100 || qps[j] < 0.8 * before)
				ok = 0
		if (ok) {
			rec = sprintf("%.1f", (el[i] - ce) / 1000)
			break
		}
	}
	rrf = !rr_given ? "-" : rr != "" ? rr : seen ? "none" : "unknown"
	printf "%s\t%.1f\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%.1f\t%.1f\t%s\t%s\t%s\n", arm,
		before, at ? sprintf("%.1f", aq / at) : "-", worst == "" ? "-" : worst,
		med(b50, nb), med(a50, na), med(b90, nb), med(a90, na), med(b99, nb), med(a99, na),
		bq ? sprintf("%.2f", bm / bq) : "-", aq ? sprintf("%.2f", am / aq) : "-",
		(rbytes_at(cs) - rbytes_at(cs - 15000)) / 1048576,
		(rbytes_at(el[n]) - rbytes_at(ce)) / 1048576, rec, rrf, hash == "" ? "-" : hash
}
