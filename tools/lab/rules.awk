# SPDX-License-Identifier: MIT
#
# rules.awk - compares what guest/rules.sh saw (rules.tsv) with what
# advshim-watch assumes (experiments/rules.expect).  Usage:
#   awk -F'\t' -v rel=KERNEL_RELEASE -f rules.awk rules.expect rules.tsv
# Prints one line per check; exits 1 when a check contradicts its rule.

function vnum(s,    a) {
	split(s, a, ".")
	return a[1] * 1000 + a[2]
}

function in_range(r, v,    a) {
	if (r == "all")
		return 1
	split(r, a, "-")
	return v >= vnum(a[1]) && (a[2] == "" || v <= vnum(a[2]))
}

function matches(want, got,    alts, i, n) {
	if (want == "any" || want == "-")
		return 1
	n = split(want, alts, "|")
	for (i = 1; i <= n; i++)
		if (alts[i] == got)
			return 1
	return 0
}

BEGIN { v = vnum(rel) }

FNR == NR {
	if ($0 ~ /^#/ || $0 ~ /^[ \t]*$/)
		next
	n = split($0, f, /[ \t]+/)
	if (!in_range(f[2], v))
		next
	want[f[1]] = f[3]
	wmove[f[1]] = f[4]
	text = f[5]
	for (i = 6; i <= n; i++)
		text = text " " f[i]
	why[f[1]] = text
	next
}

{
	c = $1
	if (!(c in want)) {
		status = "recorded"
	} else if (matches(want[c], $2) && matches(wmove[c], $3)) {
		status = want[c] == "any" ? "recorded" : "verified"
	} else {
		status = "DIFFERS (assumed " want[c] " " wmove[c] ")"
		bad++
	}
	printf "%-15s %-9s %-9s %s\n    %s%s\n", c, $2, $3, status, $4,
	       c in why ? "\n    rule: " why[c] : ""
	seen[c] = 1
}

END {
	for (c in want)
		if (!(c in seen)) {
			printf "%-15s %-9s %-9s %s\n", c, "-", "-", "NOT RUN"
			bad++
		}
	printf "%s: %d checks contradict the watcher's rules\n", rel, bad
	exit bad > 0
}
