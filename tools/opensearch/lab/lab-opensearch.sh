#!/bin/sh
# SPDX-License-Identifier: MIT
#
# lab-opensearch.sh BUILD - make lab-opensearch, step one: the real
# OpenSearch k-NN node in the MGLRU lab guest (tools/lab/lab.sh job:
# Debian's MGLRU kernel under qemu TCG with instruction-counted time).
# Builds a node home with a k-NN index on this machine (once), ships it
# with a jlink'd runtime (runtime.sh) and times the node's start-up and a
# short search in the guest (guest-start.sh).  The report's arms (no fix,
# shim, watcher, shim + watcher, lru_gen off) need the node to start in
# reasonable guest time first; this says whether it does.
#
# Environment: OS_LAB_VECTORS (20000), OS_LAB_DIMS (64), OS_LAB_STARTS (2),
# LAB_TIMEOUT (3000 guest s), LAB_KERNEL (lab.sh's default), lab.sh's
# other LAB_*.  Results: BUILD/opensearch/lab-runs/.
set -eu
build=$(cd "${1:-build}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
vectors=${OS_LAB_VECTORS:-20000}
dims=${OS_LAB_DIMS:-64}
start=$(date +%s)
os=$build/advshim-opensearch

[ -x "$os" ] || { echo "lab-opensearch: $os is missing (make; Maven and a JDK 21+)" >&2; exit 1; }
sh "$here/runtime.sh" "$build"

home=$build/opensearch/lab-home-$vectors-$dims
if [ ! -f "$home/loaded" ]; then
	echo "lab-opensearch: loading the index ($vectors x $dims) once into $home"
	rm -rf "$home"
	"$os" start "$home" >/dev/null
	"$os" load "$home" --vectors "$vectors" --dims "$dims" >"$home/load.log" 2>&1 || {
		"$os" stop "$home"; echo "lab-opensearch: load failed" >&2; exit 1; }
	"$os" stop "$home"
	touch "$home/loaded"
fi
stage=$build/opensearch/lab-stage
rm -rf "$stage"
mkdir -p "$stage/app/opensearch" "$stage/home"
cp "$os" "$stage/app/"
cp -r "$build/opensearch/advshim-opensearch.jar" "$build/opensearch/lib" "$build/opensearch/knn" \
	"$build/opensearch/config" "$stage/app/opensearch/"
# Only the guest's platform of netty's QUIC natives.
rm -f "$stage"/app/opensearch/lib/netty-codec-native-quic-*-osx-* \
	"$stage"/app/opensearch/lib/netty-codec-native-quic-*-windows-* \
	"$stage"/app/opensearch/lib/netty-codec-native-quic-*-aarch_64.jar
cp -r "$home/data" "$stage/home/"

run=$build/opensearch/lab-runs/start-$(date +%Y%m%d-%H%M%S)
mkdir -p "$run"
{
	echo '#!/bin/sh'
	echo "export STARTS=${OS_LAB_STARTS:-2}"
	echo 'exec /lab/job/guest-start.sh'
} >"$run/job.sh"
rc=0
BUILD=$build LAB_TIMEOUT=${LAB_TIMEOUT:-3000} bash "$top/tools/lab/lab.sh" job "$run" "$run/job.sh" \
	"$stage/app" "$build/opensearch/runtime" "$build/opensearch/syslib" "$stage/home" \
	"$here/guest-start.sh" || rc=$?
rm -rf "$stage"
[ "$rc" = 0 ] || echo "lab-opensearch: the guest job failed (exit $rc)"
[ -f "$run/out/startup.tsv" ] && cat "$run/out/startup.tsv"
echo "lab-opensearch: done in $(( $(date +%s) - start )) s; results in $run"
exit "$rc"
