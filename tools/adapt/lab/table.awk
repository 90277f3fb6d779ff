# SPDX-License-Identifier: MIT
#
# table.awk - the compact table of a tools/adapt/lab run (make lab):
#   awk -f table.awk RUNDIR/summary.tsv
# One block per regime (the arm name's part before the first '-', e.g.
# "fits", "nofit"), one row per arm; ratios are to the regime's
# "REGIME-random" arm of the same run (MADV_RANDOM, no fix), when present.
BEGIN { FS = "\t" }
NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
{
	n++; row[n] = $0
	split($c["arm"], w, "-"); reg[n] = w[1]
	if (!(w[1] in seen)) { seen[w[1]] = 1; order[++nr] = w[1] }
	if ($c["arm"] == w[1] "-random") { base_rs[w[1]] = $c["steady_rs"]; base_mib[w[1]] = $c["mib_read"] }
}
function ratio(v, b) { return (b > 0 && v != "") ? sprintf("%.2fx", v / b) : "-" }
function secs(v) { return (v == "never" || v == "-" || v == "n/a") ? v : sprintf("%.1f", v) }
END {
	hdr = "| arm | need/cap | steady reads/s | vs random | warm-up s | dip % | recover s (end / start) | tail % | MiB read | vs random | switches | agings (max/min) | first aging s |"
	for (r = 1; r <= nr; r++) {
		printf "\n%s:\n\n%s\n%s\n", order[r], hdr, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
		for (i = 1; i <= n; i++) {
			if (reg[i] != order[r]) continue
			split(row[i], f, "\t")
			ag = f[c["agings"]] == "-" ? "-" : f[c["agings"]] " (" f[c["agings_per_min"]] ")"
			printf "| %s | %s | %d | %s | %s | %s | %s / %s | %s | %s | %s | %s | %s | %s |\n",
				f[c["arm"]], f[c["need_cap"]], f[c["steady_rs"]],
				ratio(f[c["steady_rs"]], base_rs[reg[i]]), secs(f[c["warmup_s"]]),
				f[c["dip_pct"]], secs(f[c["recover_s"]]), secs(f[c["recover_start_s"]]),
				f[c["tail_pct"]], f[c["mib_read"]],
				ratio(f[c["mib_read"]], base_mib[reg[i]]), f[c["switches"]], ag,
				f[c["first_age_s"]]
		}
	}
}
