#!/bin/sh
# SPDX-License-Identifier: MIT
#
# report.sh RUNDIR - the tables of a lab-lucene run (re-runnable on a
# finished run): the guest and sizes, JVM start-up plain vs shim, and the
# report's table, one column per arm, before and after the cold read.
# Exits 1 when an arm failed or the arms' result hashes differ.
set -u
run=${1:?usage: report.sh RUNDIR}
here=$(cd "$(dirname "$0")" && pwd)
out=$run/out
rc=0

[ -d "$out/arms" ] || { echo "lab-lucene: no arm results in $out"; exit 1; }
echo
echo "== guest: $(tr '\n' ' ' <"$out/guest.info" 2>/dev/null)"
sed 's/^/   /' "$out/lucene.env" 2>/dev/null
if [ -s "$out/startup.tsv" ]; then
	awk -F'\t' 'NR > 1 { v[$2] = v[$2] " " $3 }
		END { printf "== JVM start-up in the guest (index open, 1 query, exit; guest ms): plain%s; shim%s\n", v["plain"], v["shim"] }' \
		"$out/startup.tsv"
fi
tsv=$run/summary.tsv
printf 'arm\tqps_before\tqps_after\tworst_qps\tp99_ms_before\tp99_ms_after\tmajflt_q_before\tmajflt_q_after\tmib_before\tmib_after\trecover_s\trr_files\thash\n' >"$tsv"
for d in "$out"/arms/*/; do
	a=$(basename "$d")
	if [ ! -f "$d/ok" ]; then
		printf '%s\tFAILED\n' "$a" >>"$tsv"
		rc=1
		continue
	fi
	awk -v arm="$a" -f "$here/../../lab/median.awk" -f "$here/table.awk" "$d/cold.tsv" "$d/samples.tsv" "$d/load.tsv" "$d/rr.txt" >>"$tsv"
done
# One row per figure, one column per arm (the report's layout).
awk -F'\t' '
	NR == 1 { next }
	{ n++; arm[n] = $1; for (i = 2; i <= NF; i++) v[n, i] = $i; failed[n] = ($2 == "FAILED") }
	END {
		split("queries/s before|queries/s after|worst queries/s|p99 ms before|p99 ms after|major faults/query before|major faults/query after|MiB read, 15 s before|MiB read after|recovered after (s)|rr on index files|result hash", lab, "|")
		printf "%-28s", ""
		for (j = 1; j <= n; j++) printf " %18s", arm[j]
		printf "\n"
		for (i = 2; i <= 13; i++) {
			printf "%-28s", lab[i - 1]
			for (j = 1; j <= n; j++) printf " %18s", failed[j] ? (i == 2 ? "FAILED" : "") : v[j, i]
			printf "\n"
		}
	}' "$tsv"
echo "  before: the 15 s before the cold read; after: from its end to the end of the arm"
echo "  recovered: from the end of the cold read until 3 intervals <= 100 faults/s and a 5-interval"
echo "    median >= 80% of before; rr: index files mapped MADV_RANDOM 5 s before the cold read
    (unknown: the JVM's smaps could not be read)"
if grep -q -E '^[^	]*\.r[0-9]+	' "$tsv"; then
	lab=$here/../../lab
	awk -v col_mib=mib_after -f "$lab/median.awk" -f "$lab/repeat.awk" "$tsv" >"$run/repeats.tsv"
	echo "== repeated runs (repeats.tsv; no tail here: stalled counts none)"
	LAB_SRC=$lab bash -c '. "$LAB_SRC/experiments.sh"; repeat_table "$1"' sh "$run/repeats.tsv"
fi
hashes=$(awk -F'\t' 'NR > 1 && $2 != "FAILED" { print $13 }' "$tsv" | sort -u)
train=$(sed -n 's/.*train_hash=\([0-9a-f]*\).*/\1/p' "$out/lucene.env" 2>/dev/null)
if [ "$(echo "$hashes" | wc -l)" = 1 ] && [ -n "$hashes" ] && [ "$hashes" = "${train:-$hashes}" ]; then
	echo "ok   the same result hash in every arm (and the training run): $hashes"
else
	echo "FAIL result hashes differ between arms: $(echo "$hashes" | tr '\n' ' ') (training run: ${train:-?})"
	rc=1
fi
exit $rc
