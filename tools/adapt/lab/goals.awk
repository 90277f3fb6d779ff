# SPDX-License-Identifier: MIT
#
# goals.awk - make lab's goals (docs/adaptive.md, "make lab"), each met or
# not, from a run's summary.tsv (report.awk's rows):
#   awk -f tools/lab/median.awk -f goals.awk RUNDIR/summary.tsv
# An arm's figure is its median over its runs (arm NAME.rK); a recovery
# that never came counts as longer than any time.  The arms: fits-* and
# nofit-* of lab.arms (random = no fix, normal = the rewrite, adaptive,
# adapt-watch).
BEGIN { FS = "\t"; INF = 1e9 }
NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
$2 == "FAILED" { next }
{
	arm = $1; sub(/\.r[0-9]+$/, "", arm)
	k = ++n[arm]
	rs[arm, k] = $c["steady_rs"]; mib[arm, k] = $c["mib_read"]
	tl[arm, k] = $c["tail_pct"] == "n/a" ? "" : $c["tail_pct"]
	rec[arm, k] = ($c["recover_s"] == "never" || $c["recover_s"] == "n/a") ? INF : $c["recover_s"]
	wu[arm, k] = $c["warmup_s"] == "never" ? INF : $c["warmup_s"]
	sw[arm] += $c["switches"] == "-" ? 0 : $c["switches"]
}
function med(tab, arm,    i, m, a) {
	m = 0
	for (i = 1; i <= n[arm]; i++) if (tab[arm, i] != "") a[++m] = tab[arm, i]
	return m ? median(a, m) : ""
}
function secs(v) { return v >= INF ? "never" : sprintf("%.1f s", v) }
function goal(text, ok) { printf "%s %s\n", ok ? "goal met:    " : "goal NOT met:", text }
END {
	if (!("nofit-random" in n) || !("fits-normal" in n)) { print "goals: not a make lab run (no fits-normal / nofit-random arm)"; exit }
	r = med(rs, "nofit-random"); a = med(rs, "nofit-adaptive")
	goal(sprintf("does not fit: adaptive reads/s >= 0.95x RANDOM (%.2fx)", a / r), a >= 0.95 * r)
	r = med(mib, "nofit-random"); a = med(mib, "nofit-adaptive")
	goal(sprintf("does not fit: adaptive MiB read <= 1.1x RANDOM (%.2fx)", a / r), a <= 1.1 * r)
	t = med(tl, "nofit-adapt-watch")
	goal(sprintf("does not fit: with the watcher, tail >= 95%% (%s%%)", t), t != "" && t >= 95)
	a = med(rec, "fits-adaptive"); r = med(rec, "fits-normal")
	goal(sprintf("fits: recovery <= normal + 1 s (%s vs %s)", secs(a), secs(r)), a <= r + 1)
	a = med(rs, "fits-adaptive"); r = med(rs, "fits-normal")
	goal(sprintf("fits: steady reads/s >= 0.95x normal (%.3fx)", a / r), a >= 0.95 * r)
	a = med(wu, "fits-adaptive"); r = med(wu, "fits-normal")
	goal(sprintf("fits: warm-up <= normal + 10%% (%s vs %s)", secs(a), secs(r)), a <= 1.1 * r)
	s = sw["fits-adaptive"] + sw["nofit-adaptive"] + sw["fits-adapt-watch"] + sw["nofit-adapt-watch"]
	goal(sprintf("zero switches after warm-up (%d in the adaptive arms)", s), s == 0)
}
