#!/bin/sh
# run.sh BUILD [SANITIZER] - a real OpenSearch 3.6 node with the k-NN
# plugin (advshim-opensearch) plain and under the shim.
#
# One k-NN index (HNSW, engine lucene, separate files) is loaded once into
# a node whose data path is this test's directory (not /var/lib/opensearch);
# then the node is restarted three times on it, as an operator restarts a
# node: plain, under the shim's embedded default policy, and under
# examples/opensearch-knn.conf as shipped (no path rewritten: it must be
# right for any path.data).  In each, the same k-NN queries run twice (the
# first warms the JIT; the second is the warm figure) and, with the node
# live, the verdict comes from the kernel: VmFlags of the index files' VMAs
# in the node's /proc/PID/smaps, and advshim inspect PID.  Checks:
#   - plain: rr on .vec and .vex (OpenSearch 3.6's ADVISE_BY_CONTEXT): the
#     precondition, and the control: the shimmed arms' rr check, run on the
#     plain node, fails (so the check can fail);
#   - shimmed: no index file keeps rr; the shim's log names the .vec and
#     .vex files it advised normal; inspect shows the shim active;
#   - every arm's advice per file in inspect matches smaps;
#   - every run returns the same result hash.
# Printed, not asserted: the rr/sr files per extension, start-up time and
# warm queries/s shim/plain.
set -u
here=$(cd "$(dirname "$0")" && pwd)
# build, san (from BUILD [SANITIZER]), top, lib; ok, no, jvm_tool_ready.
. "$here/../jvm-tool.sh"
os=$build/advshim-opensearch
vectors=${OS_TEST_VECTORS:-3000}
dims=${OS_TEST_DIMS:-32}
queries=${OS_TEST_QUERIES:-200}
jvm_tool_ready OpenSearch "$san" "$os" "$build/opensearch/advshim-opensearch.jar" "$build/opensearch/mvn.log"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/advshim-opensearch.XXXXXX")
home=$tmp/node
# Small nodes: C1 only; the advice path is the same.
export OPENSEARCH_HEAP=256m OPENSEARCH_JAVA_OPTS="-XX:TieredStopAtLevel=1"
cleanup() {
	[ -s "$home/node.pid" ] && "$os" stop "$home" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

now_ms() { date +%s%3N; }

# start NAME POLICY: the node (none, default or a policy file); NAME.start_ms.
start() {
	t0=$(now_ms)
	if ! (
		if [ "$2" != none ]; then
			export LD_PRELOAD="$lib" ADVSHIM_LOG=info
			[ "$2" = default ] || export ADVSHIM_CONFIG="$2"
		fi
		exec "$os" start "$home" >/dev/null 2>"$tmp/$1.start.err"
	); then
		no "$1: the node did not start" "$(grep -v "^advshim\[" "$tmp/$1.start.err" | tail -n 5)"
		return 1
	fi
	echo $(($(now_ms) - t0)) >"$tmp/$1.start_ms"
	pid=$(cat "$home/node.pid")
}

stop() {
	"$os" stop "$home" || no "$1: the node did not stop within 30 s"
	cp "$home/logs/console.log" "$tmp/$1.console"
}

# index_vmas PID: "FILE VMAS RR_VMAS SR_VMAS" per index file PID maps.
index_vmas() {
	awk '
		/^[0-9a-f]+-[0-9a-f]+ / { f = ($6 ~ /\/indices\/[^/]+\/[0-9]+\/index\//) ? $6 : "" }
		/^VmFlags:/ && f != "" { n[f]++; r[f] += / rr/; s[f] += / sr/ }
		END { for (f in n) print f, n[f], r[f], s[f] }' "/proc/$1/smaps" | sort
}

# ext FILE: the Lucene extension (segments_N for segments_3).
ext_of() { sed 's|.*/||; s/^segments_[0-9]*$/segments_N/; s/^[^.]*\././'; }

# flags_by_ext NAME FLAG: the extensions whose files have a FLAG VMA.
flags_by_ext() {
	col=3
	[ "$2" = sr ] && col=4
	awk -v c=$col '$c > 0 { print $1 }' "$tmp/$1.vmas" | ext_of | sort -u | tr '\n' ' ' | sed 's/ $//'
}

# search NAME: two query runs; NAME.out (the warm one), NAME.vmas, NAME.inspect.
search() {
	"$os" search "$home" --threads 2 --queries "$queries" >"$tmp/$1.warmup" 2>"$tmp/$1.err" &&
		"$os" search "$home" --threads 2 --queries "$queries" >"$tmp/$1.out" 2>>"$tmp/$1.err" ||
		{ no "$1: the k-NN client failed" "$(tail -n 3 "$tmp/$1.err")"; return 1; }
	index_vmas "$pid" >"$tmp/$1.vmas"
	"$build/advshim" inspect "$pid" >"$tmp/$1.inspect" 2>&1
	"$build/advshim" inspect --json "$pid" >"$tmp/$1.json" 2>&1
}

# mapped_once NAME: inspect --json's mapped_kib of each index file is its
# size rounded up to pages, however many VMAs map it; prints the files
# mapped more than once.
mapped_once() {
	python3 - "$tmp/$1.json" <<-'PY'
	import json, sys
	d = json.load(open(sys.argv[1]))
	bad, twice = [], []
	for f in d["files"]:
	    if "/index/" not in f["path"] or f["file_kib"] < 0:
	        continue
	    pages_kib = -(-f["file_kib"] * 1024 // 4096) * 4
	    if not (f["file_kib"] <= f["mapped_kib"] <= pages_kib + 4):
	        bad.append("%s: mapped_kib %d, file %d KiB" % (f["path"], f["mapped_kib"], f["file_kib"]))
	    if f["vma_kib"] > f["mapped_kib"]:
	        twice.append(f["path"].rsplit("/", 1)[1])
	print(" ".join(twice) if not bad else "\n".join(bad))
	sys.exit(1 if bad or not twice else 0)
	PY
}

hash_of() { sed -n 's/^# result-hash: //p' "$tmp/$1"; }
qps_of() { sed -n 's/^# summary .* qps=\([0-9.]*\) .*/\1/p' "$tmp/$1.out"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.3f", a / b; else print "?" }'; }

# rr_free NAME: index files mapped, none with an rr VMA.
rr_free() {
	[ -s "$tmp/$1.vmas" ] && awk '$3 > 0 { bad = 1 } END { exit bad }' "$tmp/$1.vmas"
}

# inspect_matches NAME: inspect's ADVICE and VMAS per index file = smaps'.
inspect_matches() {
	awk 'NR == FNR { a = $3 == $2 ? "rr" : ($4 == $2 ? "sr" : ($3 + $4 == 0 ? "-" : "mixed"))
			 want[$1] = a " " $2; next }
	     $NF in want { got[$NF] = $1 " " $5 }
	     END { for (f in want) if (got[f] != want[f]) { print f ": smaps " want[f] ", inspect " got[f]; bad = 1 }
		   exit bad }' "$tmp/$1.vmas" "$tmp/$1.inspect"
}

# The index: loaded by a plain node, then the node is stopped.
t_all=$(now_ms)
start load none || exit 1
if ! "$os" load "$home" --vectors "$vectors" --dims "$dims" >"$tmp/load.out" 2>"$tmp/load.err"; then
	cat "$tmp/load.err"
	echo "FAIL OpenSearch test: loading the k-NN index"
	exit 1
fi
stop load
ok "index: $vectors x $dims vectors, $(grep -c '^# segment' "$tmp/load.out") segment, $(ls "$home"/data/nodes/0/indices/*/0/index | wc -l) files under $home/data"

conf=$top/examples/opensearch-knn.conf
for arm in plain shim knn; do
	case $arm in
	plain) pol=none ;;
	shim) pol=default ;;
	knn) pol=$conf ;;
	esac
	start "$arm" "$pol" || continue
	search "$arm"
	stop "$arm"
done
[ -s "$tmp/plain.vmas" ] || { echo "FAIL OpenSearch test: no plain run"; exit 1; }

printf '%-6s %-26s %-44s %s\n' arm "rr (by extension)" "sr (by extension)" "start-up ms, warm queries/s"
for arm in plain shim knn; do
	[ -s "$tmp/$arm.vmas" ] || continue
	printf '%-6s %-26s %-44s %s, %s\n' "$arm" "$(flags_by_ext "$arm" rr)" "$(flags_by_ext "$arm" sr)" \
		"$(cat "$tmp/$arm.start_ms")" "$(qps_of "$arm")"
done

case " $(flags_by_ext plain rr) " in
*" .vec "*) case " $(flags_by_ext plain rr) " in
	*" .vex "*) ok "plain: OpenSearch leaves rr on the vector files (.vec .vex)" ;;
	*) no "plain: no rr on .vex" ;;
	esac ;;
*) no "plain: expected rr on .vec and .vex without the shim, got: $(flags_by_ext plain rr)" ;;
esac
if rr_free plain; then
	no "control: the rr check passed on the plain node; it cannot see rr"
else
	ok "control: the rr check fails on the plain node (shim left out)"
fi

ref=$(hash_of plain.out)
for arm in plain shim knn; do
	[ -s "$tmp/$arm.out" ] || continue
	for run in warmup out; do
		h=$(hash_of "$arm.$run")
		if [ -n "$h" ] && [ "$h" = "$ref" ]; then
			ok "$arm ($run): result hash $h"
		else
			no "$arm ($run): result hash '$h', not $ref"
		fi
	done
	if m=$(mapped_once "$arm"); then
		ok "$arm: inspect's MAPPED counts each file once ($m mapped more than once)"
	else
		no "$arm: inspect's MAPPED is not each file's size" "$m"
	fi
	if m=$(inspect_matches "$arm"); then
		ok "$arm: advshim inspect's advice and VMA count per index file match smaps"
	else
		no "$arm: advshim inspect disagrees with smaps" "$m"
	fi
	[ "$arm" = plain ] && continue
	if rr_free "$arm"; then
		ok "$arm: no index file keeps rr"
	else
		no "$arm: rr survives under the shim: $(flags_by_ext "$arm" rr)"
	fi
	if grep -q 'libadvshim.so loaded' "$tmp/$arm.inspect" && grep -q ', active' "$tmp/$arm.inspect" &&
		grep -Eq 'rewritten [1-9]' "$tmp/$arm.inspect"; then
		ok "$arm: advshim inspect: shim active in the node, $(grep -o 'rewritten [0-9]*' "$tmp/$arm.inspect")"
	else
		no "$arm: advshim inspect: shim not shown active with rewrites" "$(head -n 4 "$tmp/$arm.inspect")"
	fi
	for e in vec vex; do
		if grep -Eq "(adaptive|rewrite) $home/data/nodes/0/indices/[^ ]*\.$e: random -> normal" "$tmp/$arm.console"; then
			ok "$arm: the shim's log names the .$e file it advised normal"
		else
			no "$arm: shim log: no line for .$e" "$(grep advshim "$tmp/$arm.console" | head -n 3)"
		fi
	done
done

for arm in shim knn; do
	[ -s "$tmp/$arm.out" ] || continue
	echo "ratio $arm/plain: start-up $(ratio "$(cat "$tmp/$arm.start_ms")" "$(cat "$tmp/plain.start_ms")")," \
		"warm queries/s $(ratio "$(qps_of "$arm")" "$(qps_of plain)") (one run each; not asserted)"
done

echo "opensearch: $pass passed, $fail failed ($(($(now_ms) - t_all)) ms)"
[ "$fail" -eq 0 ]
