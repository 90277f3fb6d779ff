# SPDX-License-Identifier: MIT
#
# report.awk - one summary row per arm of tools/adapt/lab (issue 13).
#   awk -f report.awk ARMDIR/arm.env ARMDIR/load.tsv ARMDIR/samples.tsv \
#       [ARMDIR/load.err] [ARMDIR/watch.log]
# With -v header=1 prints the column names first.
#
# Throughput comes from the reader's own rows (load.tsv, exact intervals);
# the signals from the sampler's rows (samples.tsv), shifted onto the
# reader's clock.  Windows (seconds of the reader's run):
#   steady: the 15 s before the cold read (or the switch; or the last 20 s
#           when neither happens)
#   warm-up: seconds until the end of the first of 3 intervals in a row
#           that reach 80% of the steady median (from a cold cache: every
#           arm drops caches first)
#   cold:   the cold read itself (first start .. last end): median as % of
#           steady ("dip"), and the lowest interval
#   after:  recover = first second after the cold read ends from which 3
#           intervals reach 80% of steady (recover_start: the same counted
#           from the cold read's start); tail = median from 5 s after the
#           cold read to the end, % of steady; both n/a when the cold read
#           ended less than 8 s before the readers (nothing to judge)
#   shim:   switches = the adaptive choice's switches in the shim's log
#           (load.err; the first decision is not a switch)
#   watch:  agings = aging steps advshim-watch wrote (max_seq A -> B in
#           its JSON log counts B - A), agings_per_min = the most in any
#           60 s, first_age_s = its first aging from the cold read's start
#           on, counted from the cold read's end (negative: before it
#           ended, e.g. during the second, cached pass); the watcher's
#           clock is moved onto the reader's by its start time
#   switch: settle = seconds from the (first) switch until 3 intervals in
#           a row are within 10% of the median of the last 10 s; level =
#           that median as % of the median of the 10 s before the switch
function median(a, n,    i, j, t) {
	if (n == 0) return -1
	for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
function med_window(from, to,    i, n, a) {
	n = 0
	for (i = 1; i <= nl; i++) if (lt[i] > from && lt[i] <= to && lr[i] != "") a[++n] = lr[i]
	return median(a, n)
}
# seconds from @from to the end of the first of 3 intervals in a row
# (all ending after @from) with lo <= reads <= hi
function first_run(from, lo, hi,    i) {
	for (i = 1; i + 2 <= nl; i++) {
		if (lt[i] <= from) continue
		if (lr[i] >= lo && lr[i] <= hi && lr[i+1] >= lo && lr[i+1] <= hi && lr[i+2] >= lo && lr[i+2] <= hi)
			return lt[i] - from
	}
	return "never"
}
function smed(col, from, to,    i, n, a) {
	n = 0
	for (i = 1; i <= ns; i++) if (st[i] > from && st[i] <= to && S[i, col] != "-" && S[i, col] != "") a[++n] = S[i, col]
	return median(a, n)
}
# rate of a cumulative sampler column over (from, to], per second
function srate(col, from, to,    i, f, l, tf, tl) {
	f = ""
	for (i = 1; i <= ns; i++) if (st[i] > from && st[i] <= to && S[i, col] != "-") {
		if (f == "") { f = S[i, col]; tf = st[i] } l = S[i, col]; tl = st[i] }
	if (f == "" || tl <= tf) return -1
	return (l - f) / (tl - tf)
}
BEGIN { FS = "\t" }
FILENAME ~ /arm.env$/ { n = split($0, w, " "); for (i = 1; i <= n; i++) if (split(w[i], kv2, "=") == 2) env[kv2[1]] = kv2[2]; next }
FILENAME ~ /load.tsv$/ && /^# switch/ { if (sw_t == "") { split($0, w, " "); split(w[3], q, "="); sw_t = q[2] / 1000; split(w[5], q, "="); sw_to = q[2] } next }
FILENAME ~ /load.tsv$/ && $1 ~ /^[0-9]+$/ { nl++; lt[nl] = $1 / 1000; lr[nl] = $5; lf[nl] = $10; next }
FILENAME ~ /samples.tsv$/ && FNR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
FILENAME ~ /samples.tsv$/ { ns++; st[ns] = ($1 - env["sampler_offset_ms"]) / 1000; for (i = 1; i <= NF; i++) S[ns, i] = $i; next }
FILENAME ~ /load.err$/ && /adaptive: (normal|random) -> / { switches++; next }
FILENAME ~ /watch.log$/ && /"event":"age"/ && match($0, /max_seq [0-9]+ -> [0-9]+/) {
	split(substr($0, RSTART, RLENGTH), w, " ")
	if (match($0, /"ts_ms":[0-9]+/)) { na++; at[na] = substr($0, RSTART + 8, RLENGTH - 8) / 1000; an[na] = w[4] - w[2]; agings += an[na] }
	next
}
END {
	cs = env["cold_start_ms"] != "" ? env["cold_start_ms"] / 1000 : ""
	ce = env["cold_end_ms"] != "" ? env["cold_end_ms"] / 1000 : ""
	end = lt[nl]
	if (cs != "") { sf = cs - 15; stt = cs } else if (sw_t != "") { sf = sw_t - 15; stt = sw_t } else { sf = end - 20; stt = end }
	if (sf < 0) sf = 0
	steady = med_window(sf, stt)
	warm = first_run(0, 0.8 * steady, 1e18)
	dip = "-"; worst = "-"; rec = "-"; tail = "-"
	if (cs != "" && ce != "") {
		dip = sprintf("%.0f", 100 * med_window(cs, ce) / steady)
		worst = 1e18; for (i = 1; i <= nl; i++) if (lt[i] > cs && lr[i] < worst) worst = lr[i]
		rec = first_run(ce, 0.8 * steady, 1e18)
		tail = sprintf("%.0f", 100 * med_window(ce + 5, end) / steady)
		# the cold read outlasted the readers: nothing after it to judge
		if (ce + 8 > end) { rec = "n/a"; tail = "n/a" }
	}
	rec0 = (rec == "-" || rec == "never" || rec == "n/a") ? rec : sprintf("%.1f", ce - cs + rec)
	age_n = "-"; age_min = "-"; age_first = "-"
	if (env["watch_offset_ms"] != "") {
		age_n = agings + 0; age_min = 0
		for (i = 1; i <= na; i++) at[i] += env["watch_offset_ms"] / 1000
		for (i = 1; i <= na; i++) {
			n = 0
			for (j = 1; j <= na; j++) if (at[j] >= at[i] && at[j] < at[i] + 60) n += an[j]
			if (n > age_min) age_min = n
			if (age_first == "-" && cs != "" && at[i] >= cs) age_first = sprintf("%.1f", at[i] - ce)
		}
	}
	sw_n = env["shim"] ~ /adaptive/ ? switches + 0 : "-"
	settle = "-"; level = "-"
	if (sw_t != "") {
		before = med_window(sw_t - 10, sw_t); after = med_window(end - 10, end)
		settle = first_run(sw_t, 0.9 * after, 1.1 * after)
		level = sprintf("%.0f", 100 * after / before)
	}
	c_rb = col["rbytes"]; rb = 0; rb_cs = 0
	for (i = 1; i <= ns; i++) { if (S[i, c_rb] != "-") rb = S[i, c_rb]; if (cs != "" && st[i] <= cs && S[i, c_rb] != "-") rb_cs = S[i, c_rb] }
	# signals in the steady window and in the tail
	sig_to = stt; sig_from = sf; tf = (ce != "" ? ce + 5 : end - 20)
	lim = smed(col["limit"], sig_from, sig_to); use = smed(col["usage"], sig_from, sig_to)
	file = smed(col["file"], sig_from, sig_to); anon = smed(col["anon"], sig_from, sig_to)
	pages = smed(col["pages"], sig_from, sig_to)
	res = smed(col["resident"], sig_from, sig_to); sres = smed(col["resident_sampled"], sig_from, sig_to)
	res_t = smed(col["resident"], tf, end)
	pmf = smed(col["proc_majflt_s"], sig_from, sig_to); pmf_t = smed(col["proc_majflt_s"], tf, end)
	ref = srate(col["refault"], sig_from, sig_to); ref_t = srate(col["refault"], tf, end)
	cap = lim - (use - file)
	ratio = (cap > 0) ? pages * 4096 / cap : -1
	swdesc = (sw_t != "") ? sprintf("%g=%s", sw_t, sw_to) : "-"
	if (header)
		printf "arm\tadvice\tvec_mb\tmemcg_mb\tneed_cap\tsteady_rs\twarmup_s\tdip_pct\tworst_rs\trecover_s\ttail_pct\tswitch\tsettle_s\tlevel_pct\tmib_read\tmib_after\tresident_pct\tsampled_pct\tresident_tail_pct\tmajflt_s\tmajflt_s_tail\trefault_s\trefault_s_tail\tusage_pct\tanon_mib\tread_us\tmincore_us\tsampled_us\trecover_start_s\tswitches\tagings\tagings_per_min\tfirst_age_s\n"
	printf "%s\t%s\t%s\t%s\t%.2f\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%.0f\t%.0f\t%.0f\t%.0f\t%.0f\t%.0f\t%.0f\t%.0f\t%.0f\t%.0f\t%.1f\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n",
		env["name"], env["advice"], env["vec_mb"], env["memcg_mb"],
		ratio, steady, warm, dip, worst, rec, tail, swdesc, settle, level,
		rb / 1048576, (rb - rb_cs) / 1048576,
		100 * res / pages, 100 * sres / pages, 100 * res_t / pages, pmf, pmf_t, ref, ref_t,
		100 * use / lim, anon / 1048576,
		smed(col["read_us"], sig_from, sig_to), smed(col["mincore_us"], sig_from, sig_to),
		smed(col["sampled_us"], sig_from, sig_to),
		rec0, sw_n, age_n, age_min, age_first
}
