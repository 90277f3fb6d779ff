# SPDX-License-Identifier: MIT
#
# summarize.awk - one lab arm's samples -> a seed-style timeline and a
# summary line.  Usage:
#   awk -v mode=table|summary -v step=5 -f summarize.awk ARMDIR/arm.env ARMDIR/samples.tsv
# (watch decisions are passed as -v watch_acts=N).
#
# Times are seconds since the reader started.  The pre-cold median is taken
# over the 15 s before the cold read (after a 3 s warm-up).  Recovery is
# judged by faults and throughput: the arm has recovered at the end of the
# first interval i after the cold read ended such that intervals i..i+2
# have <= 100 major faults/s (or twice the pre-cold median rate, if that
# is more) and the median reads/s of intervals i..i+4 is >= 80% of the
# pre-cold median.  (Under TCG on a shared host single
# intervals swing 2-3x with zero faults; the median of 5 rides that out.)
# Recovery is also given from the start of the cold read (what a user
# sees: the cold read itself lasts longer under the stall).
# "settle" is the faults part alone: a kernel-side figure that host load
# does not distort.  "tail" is the median reads/s from 5 s after the cold
# read to the end, as % of pre ("-" when the cold read ended too late).

function fmt_k(v) {
	if (v == "-")
		return "-"
	return sprintf("%d", v + 0.5)
}

FNR == NR {
	# arm.env: key=value words
	for (i = 1; i <= NF; i++) {
		split($i, kv, "=")
		env[kv[1]] = substr($i, length(kv[1]) + 2)
	}
	next
}

FNR == 1 { next }	# samples.tsv header

{
	n++
	t[n] = ($1 - env["sampler_offset_ms"]) / 1000
	rd[n] = $2
	mf[n] = $3; rf[n] = $4; ac[n] = $5; rb[n] = $6
	minseq[n] = $8; maxseq[n] = $9; byseq[n] = $11
	# residency and generations (newer samplers): "-" when absent
	vmb[n] = NF >= 13 ? $13 : "-"; cmb[n] = NF >= 14 ? $14 : "-"
	gens[n] = NF >= 15 ? $15 : ""
}

END {
	cs = env["cold_start_ms"] / 1000
	ce = env["cold_end_ms"] / 1000
	if (env["cold_start_ms"] == "")
		cs = env["cold_at"]
	if (env["cold_end_ms"] == "")
		ce = cs
	np = 0
	for (i = 2; i <= n; i++) {
		dt = t[i] - t[i - 1]
		if (dt <= 0)
			dt = 1
		mfs[i] = (mf[i] - mf[i - 1]) / dt
		rfs[i] = (rf[i] - rf[i - 1]) / dt
		acs[i] = (ac[i] - ac[i - 1]) / dt
		rbs[i] = (rb[i] - rb[i - 1]) / dt / 1048576
		if (rd[i] != "-" && t[i] >= 3 && t[i] >= cs - 15 && t[i] <= cs) {
			pre[++np] = rd[i]
			pref[np] = mfs[i]
		}
	}
	premed = median(pre, np)
	# The fault bound: 100/s, or twice the pre-cold median when the
	# working set does not quite fit and faults never stop (fio's, LMDB's
	# and bbolt's readers with their own memory: 150-400/s before the
	# cold read).
	maxf = 2 * median(pref, np)
	if (maxf < 100)
		maxf = 100
	worst = -1
	rec = -1
	settle = -1
	nt = 0
	for (i = 2; i <= n; i++) {
		if (t[i] > cs && rd[i] != "-" && (worst < 0 || rd[i] + 0 < worst))
			worst = rd[i] + 0
		if (t[i] >= ce + 5 && rd[i] != "-")
			tail[++nt] = rd[i]
		if (rec < 0 && t[i] - 1 >= ce && i + 2 <= n) {
			ok = 1
			for (j = i; j <= i + 2; j++)
				if (mfs[j] > maxf)
					ok = 0
			if (ok && settle < 0)
				settle = t[i] - ce
			nw = 0
			for (j = i; j <= i + 4 && j <= n; j++)
				if (rd[j] != "-")
					win[++nw] = rd[j]
			if (ok && nw >= 3 && median(win, nw) >= 0.8 * premed)
				rec = t[i] - ce
		}
	}
	tailmed = median(tail, nt)
	# A cold read that ends less than 8 s before the run does leaves no
	# room to judge recovery (it needs 5 intervals): "n/a", not "never".
	never = t[n] - ce >= 8 ? "never" : "n/a"
	# MiB read over the run and after the cold read started.
	first = 0
	for (i = 1; i <= n; i++)
		if (t[i] <= cs)
			first = i
	total_mib = (rb[n] - rb[1]) / 1048576
	after_mib = first ? (rb[n] - rb[first]) / 1048576 : total_mib
	mf_after = first ? mf[n] - mf[first] : mf[n] - mf[1]
	# Generations the kernel (or the watcher) added: max_seq moves.
	s0 = ""; agings = 0
	for (i = 1; i <= n; i++)
		if (maxseq[i] != "-" && maxseq[i] != "") {
			if (s0 == "")
				s0 = maxseq[i]
			agings = maxseq[i] - s0
		}
	b0 = ""; bmoves = "-"
	for (i = 1; i <= n; i++)
		if (byseq[i] != "-" && byseq[i] != "") {
			if (b0 == "")
				b0 = byseq[i]
			bmoves = byseq[i] - b0
		}

	if (mode == "table") {
		printf "arm %s: %s\n", env["name"], (env["workload"] != "" ? env["workload"] " " : "") \
		       env["advice"] " " env["shim"] " " env["cold_shim"] " " env["lru_gen"] " " env["watch"]
		printf "cold read %.1f-%.1f s\n", cs, ce
		printf "%5s %10s %9s %9s %9s %7s %7s %7s %7s  %s\n", "t", "reads/s", "majflt/s", "refault/s",
		       "activ/s", "MiB/s", "vec_MB", "cold_MB", "gens", "seq:file pages"
		last = -step
		for (i = 2; i <= n; i++) {
			if (t[i] - last < step - 0.5 && i < n)
				continue
			last = t[i]
			printf "%5d %10s %9d %9d %9d %7.1f %7s %7s %7s  %s\n", t[i] + 0.5, fmt_k(rd[i]),
			       mfs[i], rfs[i], acs[i], rbs[i], vmb[i], cmb[i], minseq[i] "-" maxseq[i], gens[i]
		}
		print ""
	} else {
		# name pre worst recover settle tail% MiB MiB_after majflt_after
		# agings bystander watch_acts cold_end cold_start recover_from_start
		# workload
		printf "%s\t%d\t%d\t%s\t%s\t%s\t%.0f\t%.0f\t%d\t%d\t%s\t%s\t%.1f\t%.1f\t%s\t%s\n", env["name"], premed,
		       worst < 0 ? 0 : worst, rec < 0 ? never : sprintf("%.1f", rec),
		       settle < 0 ? never : sprintf("%.1f", settle),
		       premed && nt ? sprintf("%.0f", 100 * tailmed / premed) : "-",
		       total_mib, after_mib, mf_after,
		       agings, bmoves, watch_acts == "" ? "-" : watch_acts, ce, cs,
		       rec < 0 ? never : sprintf("%.1f", rec + ce - cs),
		       env["workload"] != "" ? env["workload"] : "load"
	}
}
