#!/bin/sh
# SPDX-License-Identifier: MIT
#
# lab-opensearch.sh BUILD - make lab-opensearch: the bug report's scenario
# with the real OpenSearch k-NN node in the MGLRU lab (Debian's kernel
# under qemu TCG, instruction-counted guest time).  Builds a node home
# with a k-NN index on this machine (once per size), ships it with a
# jlink'd runtime (runtime.sh) as the job's files, and runs the arms of
# tools/lab/experiments/opensearch.arms through the lab's one arm script
# (guest/arm.sh, workload guest/wl-opensearch.sh), LAB_REPEAT rounds.
#
# The scenario: the node (heap OS_LAB_HEAP) in a memcg sized, once it is up
# and warm, to what it holds less the cached index plus OS_LAB_CACHE_PCT %
# of the index (the report's: 2.8 GiB of page cache for 2.9 GiB);
# OS_LAB_THREADS (4) client threads for LAB_DURATION (95) guest s; a cold
# file of OS_LAB_COLD_MB read twice through a normal mmap from LAB_COLD_AT
# (35) s: 30 s of steady search at least before it (the median before the
# cold read is taken over them).
#
# Environment: OS_LAB_VECTORS (40000), OS_LAB_DIMS (128), OS_LAB_THREADS, OS_LAB_HEAP
# (256m), OS_LAB_CACHE_PCT (96), OS_LAB_COLD_MB (40), LAB_REPEAT (3),
# LAB_ARMS (which arms), LAB_KERNEL, lab.sh's other LAB_*.  Results:
# build/lab/runs/opensearch-KERNEL-DATE/ (qps.tsv: the report's columns).
set -eu
build=$(cd "${1:-build}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
os=$build/advshim-opensearch

[ -x "$os" ] || { echo "lab-opensearch: $os is missing (make; Maven and a JDK 21+)" >&2; exit 1; }
sh "$here/runtime.sh" "$build"

# The node's home with the index: loaded once on this machine, copied in.
vectors=${OS_LAB_VECTORS:-40000}
dims=${OS_LAB_DIMS:-128}
home=$build/opensearch/lab-home-$vectors-$dims
if [ ! -f "$home/loaded" ]; then
	echo "lab-opensearch: loading the index ($vectors x $dims) once into $home"
	rm -rf "$home"
	"$os" start "$home" >/dev/null
	"$os" load "$home" --vectors "$vectors" --dims "$dims" >"$home/load.log" 2>&1 || {
		"$os" stop "$home"; echo "lab-opensearch: load failed (see $home/load.log)" >&2; exit 1; }
	"$os" stop "$home"
	touch "$home/loaded"
fi
stage=$build/opensearch/lab-stage.$$
rm -rf "$stage"
mkdir -p "$stage/app/opensearch" "$stage/home"
trap 'rm -rf "$stage"' EXIT
cp "$os" "$stage/app/"
cp -r "$build/opensearch/advshim-opensearch.jar" "$build/opensearch/lib" "$build/opensearch/knn" \
	"$build/opensearch/config" "$stage/app/opensearch/"
# Only the guest's platform of netty's QUIC natives.
rm -f "$stage"/app/opensearch/lib/netty-codec-native-quic-*-osx-* \
	"$stage"/app/opensearch/lib/netty-codec-native-quic-*-windows-* \
	"$stage"/app/opensearch/lib/netty-codec-native-quic-*-aarch_64.jar
cp -r "$home/data" "$stage/home/"
cp "$top/examples/opensearch-knn.conf" "$stage/"

# A start takes ~120-150 guest s under TCG; with the warm-up and the stop
# an arm's set-up is ~300 guest s.
BUILD=$build LAB_RUN_NAME=opensearch LAB_PROGRAMS=opensearch LAB_QPS_TABLE=1 \
	LAB_PROGRAMS_ARMS=$top/tools/lab/experiments/opensearch.arms \
	LAB_JOB_FILES="$stage/app $build/opensearch/runtime $build/opensearch/syslib $stage/home $stage/opensearch-knn.conf" \
	LAB_SCENARIO="MEMCG_MB=1536 VEC_MB=1 COLD_MB=${OS_LAB_COLD_MB:-40} THREADS=${OS_LAB_THREADS:-4} THETA=0.8 OS_HEAP=${OS_LAB_HEAP:-256m} OS_CACHE_PCT=${OS_LAB_CACHE_PCT:-96}" \
	LAB_ARM_SETUP_S=${LAB_ARM_SETUP_S:-300} LAB_MEM_MB=${LAB_MEM_MB:-3072} \
	LAB_COLD_AT=${LAB_COLD_AT:-35} LAB_DURATION=${LAB_DURATION:-95} \
	bash "$top/tools/lab/lab.sh" programs
