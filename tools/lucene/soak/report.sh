#!/bin/sh
# report.sh RUNDIR REF_HASH JVM_STATUS WALL_S - the soak's figures and
# verdict from RUNDIR (soak.sh's outputs); exit 1 on any failure.
set -u
d=$1
ref=$2
rc=$3
wall=$4
fail=0
no() { echo "soak: FAILED: $*"; fail=1; }
# val FILE KEY - the value of KEY=... on FILE's first line holding it.
val() { sed -n "s/.* $2=\([^ ]*\).*/\1/p" "$1" 2>/dev/null | head -n 1; }

sum=$d/soak.out
grep '^# summary ' "$sum" >"$d/summary.line" 2>/dev/null
grep '^# churn ' "$sum" >"$d/churn.line" 2>/dev/null
grep '^# checks ' "$sum" >"$d/checks.line" 2>/dev/null
queries=$(val "$d/summary.line" queries)
qps=$(val "$d/summary.line" qps)
hash=$(sed -n 's/^# result-hash: \([0-9a-f]*\).*/\1/p' "$sum")
checked=$(val "$d/checks.line" cycle_checked)
repeat_bad=$(val "$d/checks.line" cycle_mismatches)
commits=$(val "$d/churn.line" commits)
merges=$(val "$d/churn.line" merges)
forced=$(val "$d/churn.line" force_merges)
resets=$(val "$d/churn.line" resets)
cq=$(val "$d/churn.line" queries)
verified=$(val "$d/churn.line" verified)
churn_bad=$(val "$d/churn.line" mismatches)
insp=$d/inspect.txt
[ -s "$insp" ] || insp=$d/inspect.live
switches=$(sed -n 's/.* \([0-9]*\) switches, \([0-9]*\) held.*/\1/p' "$insp" 2>/dev/null | head -n 1)
held=$(sed -n 's/.* \([0-9]*\) switches, \([0-9]*\) held.*/\2/p' "$insp" 2>/dev/null | head -n 1)
to_random=$(grep -c 'adaptive: normal -> random' "$d/shim.log" 2>/dev/null)
to_normal=$(grep -c 'adaptive: random -> normal' "$d/shim.log" 2>/dev/null)
mmaps=$(sed -n 's/.*file mappings live [0-9]*, total \([0-9]*\);.*/\1/p' "$insp" 2>/dev/null | head -n 1)
calls=$(sed -n 's/.*madvise calls: \(.*\); fadvise.*/\1/p' "$insp" 2>/dev/null | head -n 1)
caps=$(sed -n 's/.*capacity \([0-9]*\) MiB.*/\1/p' "$d/shim.log" 2>/dev/null | sort -n | sed -n '1p;$p' | tr '\n' ' ')
san_files=$(find "$d/asan" -type f 2>/dev/null | wc -l)
san_lines=$(cat "$d/soak.err" "$d/asan"/* 2>/dev/null |
	    grep -c 'ERROR: AddressSanitizer\|ERROR: LeakSanitizer\|runtime error:\|SUMMARY: .*Sanitizer')
# The JVM's own (non-page-cache) memory: 30 s in, and the most seen.
mem0=$(awk '$1 >= 30 { print int($2 / 1048576); exit }' "$d/memcg.log" 2>/dev/null)
memmax=$(awk '$2 > m { m = $2 } END { print int(m / 1048576) }' "$d/memcg.log" 2>/dev/null)
crashes=$(find "$d" -maxdepth 1 -name 'hs_err_*' 2>/dev/null | wc -l)

echo "soak: $wall s wall, run in $d"
echo "soak: queries ${queries:-?} (${qps:-?}/s), repeats checked ${checked:-?}, mismatches ${repeat_bad:-?}"
echo "soak: result hash (first queries) ${hash:-none}, plain run without the shim $ref"
echo "soak: churn commits ${commits:-?}, merges ${merges:-?} (${forced:-?} forced), resets ${resets:-?}, queries ${cq:-?}, hits verified ${verified:-?}, mismatches ${churn_bad:-?}"
echo "soak: adaptive switches ${switches:-?} (held ${held:-?}; log: ${to_random} to random, ${to_normal} to normal; capacity ${caps:-?}MiB min max)"
echo "soak: shim madvise calls: ${calls:-?}; file mappings ${mmaps:-?}"
echo "soak: JVM memory other than page cache ${mem0:-?} MiB at 30 s, at most ${memmax:-?} MiB"
echo "soak: sanitizer report files $san_files, report lines $san_lines; JVM crash files $crashes; JVM exit $rc"

[ "$rc" -eq 0 ] || no "the JVM exited with status $rc (stderr: $d/soak.err)"
[ "$crashes" -eq 0 ] || no "JVM crash: $(ls "$d"/hs_err_* | head -n 1)"
[ "$san_files" -eq 0 ] && [ "$san_lines" -eq 0 ] || no "sanitizer reports in $d/asan or $d/soak.err"
[ -n "$hash" ] && [ "$hash" = "$ref" ] || no "result hash ${hash:-none} differs from the plain run's $ref"
[ "${repeat_bad:-1}" = 0 ] && [ "${checked:-0}" -gt 0 ] || no "repeated queries: ${repeat_bad:-?} mismatches of ${checked:-?}"
[ "${churn_bad:-1}" = 0 ] && [ "${verified:-0}" -gt 0 ] || no "churn index: ${churn_bad:-?} mismatches of ${verified:-?} hits"
[ "${merges:-0}" -gt 0 ] || no "no merge happened during the searches"
[ "${switches:-0}" -gt 0 ] || no "the adaptive choice never switched (see $d/shim.log)"
[ $fail -eq 0 ] && echo "soak: ok"
exit $fail
