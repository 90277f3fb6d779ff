#!/bin/sh
# SPDX-License-Identifier: MIT
#
# lab-lucene.sh BUILD - make lab-lucene: real Lucene in the MGLRU lab.
#
# Boots the lab guest (tools/lab/lab.sh job: Debian's MGLRU kernel under
# qemu, a busybox initramfs with the project's binaries) with a jlink'd
# Java runtime (runtime.sh), advshim-lucene and an HNSW index built on
# this machine, and runs guest-job.sh there: four arms of the report's
# scenario, each in a fresh memcg that holds the JVM and the whole index,
# with a cold file read twice at COLD_AT s:
#   random  MGLRU, ADVISE_BY_CONTEXT (MADV_RANDOM on .vec/.vex), no fix
#           (advshim-watch in dry-run mode says when it would have aged)
#   shim    MGLRU, the same JVM under advshim's default policy
#   watch   MGLRU, MADV_RANDOM kept, advshim-watch ages the memcg
#   clru    lru_gen off (the classic LRU), MADV_RANDOM
# then prints the report's table from the guest's files.
#
# Guest time is instruction-counted (LAB_ICOUNT=3, lab.sh's default): a
# JVM under real-time TCG on a shared host measured 3-10x fewer queries
# per guest second than under icount, and noisily (tools/lucene/README.md).
#
# Environment: LUCENE_LAB_VECTORS (100000), LUCENE_LAB_DIMS (64),
# LUCENE_LAB_DURATION (80), LUCENE_LAB_COLD_AT (30), LUCENE_LAB_ARMS (the
# four), LUCENE_LAB_MEMCG_MB (measured otherwise), LUCENE_LAB_COLD_MB (the
# index's size), LAB_REPEAT (1: runs of every arm; more add a table over
# the runs), LAB_TIMEOUT (1200, +400 a further round: the guest's own limit for the job, in
# guest seconds; a run takes about 470; lab.sh's host side waits
# LAB_WALL_FACTOR times that and kills a guest whose console stays silent),
# and lab.sh's other LAB_* (LAB_KERNEL...).  Results: BUILD/lucene/lab-runs/.
set -eu
build=$(cd "${1:-build}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
vectors=${LUCENE_LAB_VECTORS:-100000}
dims=${LUCENE_LAB_DIMS:-64}
start=$(date +%s)

for b in advshim-lucene advshim-lucene.jar libadvshim.so advshim-watch advshim-load; do
	[ -e "$build/$b" ] || { echo "lab-lucene: $build/$b is missing (make; Maven and a JDK 21+ for advshim-lucene)" >&2; exit 1; }
done
sh "$here/runtime.sh" "$build"

# The index: built once on this machine (deterministic), copied in.
idx=$build/lucene/lab-idx-$vectors-$dims
if ! grep -q 'segments=1 ' "$idx.log" 2>/dev/null; then
	echo "lab-lucene: building the index ($vectors x $dims) once into $idx"
	rm -rf "$idx" "$idx.log"
	"$build/advshim-lucene" index "$idx" --vectors "$vectors" --dims "$dims" >"$idx.tmp" 2>/dev/null &&
		mv "$idx.tmp" "$idx.log" || { echo "lab-lucene: index build failed" >&2; exit 1; }
fi

stage=$build/lucene/lab-stage
rm -rf "$stage"
mkdir -p "$stage/app/lucene" "$stage/idx"
cp "$build/advshim-lucene" "$build/advshim-lucene.jar" "$stage/app/"
cp -r "$build/lucene/lib" "$stage/app/lucene/"
cp "$idx"/* "$stage/idx/"

run=$build/lucene/lab-runs/lucene-$(date +%Y%m%d-%H%M%S)
mkdir -p "$run"
arms=${LUCENE_LAB_ARMS:-"random WATCH=dry
shim SHIM=default WATCH=dry
watch WATCH=live
clru LRU_GEN=n"}
{
	echo '#!/bin/sh'
	echo "export DURATION=${LUCENE_LAB_DURATION:-80} COLD_AT=${LUCENE_LAB_COLD_AT:-30} LAB_REPEAT=${LAB_REPEAT:-1}"
	[ -n "${LUCENE_LAB_MEMCG_MB:-}" ] && echo "export LUCENE_MEMCG_MB=$LUCENE_LAB_MEMCG_MB"
	[ -n "${LUCENE_LAB_COLD_MB:-}" ] && echo "export LUCENE_COLD_MB=$LUCENE_LAB_COLD_MB"
	printf "export ARMS='%s'\n" "$arms"
	echo 'exec /lab/job/guest-job.sh'
} >"$run/job.sh"
rc=0
BUILD=$build LAB_TIMEOUT=${LAB_TIMEOUT:-$((1200 + 400 * (${LAB_REPEAT:-1} - 1)))} bash "$top/tools/lab/lab.sh" job "$run" "$run/job.sh" \
	"$stage/app" "$build/lucene/runtime" "$build/lucene/syslib" "$stage/idx" \
	"$here/guest-job.sh" "$here/guest-arm.sh" || rc=$?
rm -rf "$stage"
[ "$rc" = 0 ] || echo "lab-lucene: the guest job failed (exit $rc); the table shows what ran"
sh "$here/report.sh" "$run" || rc=1
echo "lab-lucene: done in $(( $(date +%s) - start )) s; results in $run"
exit "$rc"
