#!/bin/sh
# SPDX-License-Identifier: MIT
#
# lab-lucene.sh BUILD - make lab-lucene: real Lucene in the MGLRU lab
# (Debian's kernel under qemu TCG, instruction-counted guest time).  Builds
# an HNSW index on this machine (once per size), ships it with
# advshim-lucene and a jlink'd runtime (runtime.sh) as the job's files,
# and runs the arms of tools/lab/experiments/lucene.arms through the lab's
# one arm script (guest/arm.sh, workload guest/wl-lucene.sh), LAB_REPEAT
# rounds; then the report's columns (qps.tsv), the one-time figures
# (lucene.env: the JVM's anonymous memory, the memcg, the training run's
# result hash; startup.tsv: JVM start-up plain and under the shim), and a
# check that every arm's result hash is the training run's.
#
# The scenario: 4 query threads of one JVM (ADVISE_BY_CONTEXT) for
# LAB_DURATION guest s, in a memcg sized to the JVM's anonymous memory +
# the index + 12 MiB (measured in the guest; LUCENE_LAB_MEMCG_MB instead);
# a cold file the index's size (at least 32 MiB; LUCENE_LAB_COLD_MB) read
# twice through a normal mmap from LAB_COLD_AT (30) s.
#
# Guest time is instruction-counted (LAB_ICOUNT=3, lab.sh's default): a
# JVM under real-time TCG on a shared host measured 3-10x fewer queries
# per guest second than under icount, and noisily (tools/lucene/README.md).
#
# Environment: LUCENE_LAB_VECTORS (100000), LUCENE_LAB_DIMS (64),
# LUCENE_LAB_MEMCG_MB, LUCENE_LAB_COLD_MB, LAB_DURATION (80), LAB_COLD_AT
# (30), LAB_REPEAT (3), LAB_ARMS (which arms: none shim watch shim-watch
# lru-off), LAB_KERNEL, lab.sh's other LAB_*.  Results:
# build/lab/runs/lucene-KERNEL-DATE/ (qps.tsv: the report's columns).
set -eu
build=$(cd "${1:-build}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)

for b in advshim-lucene advshim-lucene.jar libadvshim.so advshim-watch advshim-load; do
	[ -e "$build/$b" ] || { echo "lab-lucene: $build/$b is missing (make; Maven and a JDK 21+ for advshim-lucene)" >&2; exit 1; }
done
sh "$here/runtime.sh" "$build"

# The index: built once on this machine (deterministic), copied in.
vectors=${LUCENE_LAB_VECTORS:-100000}
dims=${LUCENE_LAB_DIMS:-64}
idx=$build/lucene/lab-idx-$vectors-$dims
if ! grep -q 'segments=1 ' "$idx.log" 2>/dev/null; then
	echo "lab-lucene: building the index ($vectors x $dims) once into $idx"
	rm -rf "$idx" "$idx.log"
	"$build/advshim-lucene" index "$idx" --vectors "$vectors" --dims "$dims" >"$idx.tmp" 2>/dev/null &&
		mv "$idx.tmp" "$idx.log" || { echo "lab-lucene: index build failed" >&2; exit 1; }
fi
idx_mib=$(du -sm "$idx" | cut -f1)
cold_mb=${LUCENE_LAB_COLD_MB:-$(( idx_mib > 32 ? idx_mib : 32 ))}

stage=$build/lucene/lab-stage
rm -rf "$stage"
mkdir -p "$stage/app/lucene" "$stage/idx"
trap 'rm -rf "$stage"' EXIT
cp "$build/advshim-lucene" "$build/advshim-lucene.jar" "$stage/app/"
cp -r "$build/lucene/lib" "$stage/app/lucene/"
cp "$idx"/* "$stage/idx/"

# MEMCG_MB is wl-lucene.sh's to set (the measured size); VEC_MB: the
# load workload's file, unused here.  An arm's set-up: the JVM's start
# (~8 guest s) and the drop of the caches; the one-time runs (~60 guest s:
# training, four timed starts) come out of the same allowance.
rc=0
BUILD=$build LAB_RUN_NAME=lucene LAB_PROGRAMS=lucene LAB_QPS_TABLE=1 \
	LAB_PROGRAMS_ARMS=$top/tools/lab/experiments/lucene.arms \
	LAB_JOB_FILES="$stage/app $build/lucene/runtime $build/lucene/syslib $stage/idx" \
	LAB_SCENARIO="MEMCG_MB=256 VEC_MB=1 COLD_MB=$cold_mb THREADS=4 THETA=0.8 SLACK_MB=12 HASH_QUERIES=200${LUCENE_LAB_MEMCG_MB:+ LUCENE_MEMCG_MB=$LUCENE_LAB_MEMCG_MB}" \
	LAB_COLD_AT=${LAB_COLD_AT:-30} LAB_ARM_SETUP_S=${LAB_ARM_SETUP_S:-40} \
	bash "$top/tools/lab/lab.sh" programs || rc=$?

# The one-time figures and the result hashes (lab.sh's run of this name,
# the newest).
run=$build/lab/runs/lucene-latest
[ -n "${LAB_DIR:-}" ] && run=$LAB_DIR/runs/lucene-latest
out=$run/out
echo
echo "== lucene (out/lucene.env):"
sed 's/^/   /' "$out/lucene.env" 2>/dev/null || echo "   none (the one-time runs did not finish)"
[ -s "$out/startup.tsv" ] && awk -F'\t' 'NR > 1 { v[$2] = v[$2] " " $3 }
	END { printf "== JVM start-up in the guest (index open, 1 query, exit; guest ms): plain%s; shim%s\n", v["plain"], v["shim"] }' \
	"$out/startup.tsv"
train=$(sed -n 's/.*train_hash=\([0-9a-f]*\).*/\1/p' "$out/lucene.env" 2>/dev/null || true)
hashes=$(awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "hash") h = i; next }
	$2 != "FAILED" && h { print $h }' "$run/qps-runs.tsv" 2>/dev/null | sort -u)
if [ -n "$train" ] && [ "$hashes" = "$train" ]; then
	echo "ok   the training run's result hash in every arm: $train"
else
	echo "FAIL result hashes: arms $(echo "$hashes" | tr '\n' ' ')(training run: ${train:-?})"
	rc=1
fi
exit "$rc"
