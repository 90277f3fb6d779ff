#!/bin/sh
# runtime.sh BUILD - the Java runtime the lab guest runs the OpenSearch node
# and its client on: a jlink image of the JDK that built them, holding the
# Java SE modules and the JDK modules OpenSearch, netty and Lucene use, with
# a base CDS archive dumped with the launcher's module options, as
# tools/lucene/lab/runtime.sh does for advshim-lucene.  Writes
#   BUILD/opensearch/runtime/   the image
#   BUILD/opensearch/syslib/    host libraries the image needs that a
#                               busybox guest may lack
# Rebuilt only when the jars or the JDK are newer than the image.
set -eu
build=$(cd "${1:-build}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
os=$build/opensearch
out=$os/runtime
jar=$os/advshim-opensearch.jar

[ -f "$jar" ] || { echo "opensearch-runtime: $jar not built (make)" >&2; exit 1; }
jdk=$(sh "$here/../../lucene/find-jdk.sh") || { echo "opensearch-runtime: $jdk" >&2; exit 1; }
# One builder at a time: two labs started together (one per kernel) would
# both find the image stale and dump its CDS archive over each other.
exec 9>"$os/.runtime.lock"
flock 9
if [ -f "$out/.done" ] && [ -z "$(find "$jar" "$os/lib" "$jdk/release" -newer "$out/.done" 2>/dev/null)" ]; then
	exit 0
fi
feature=$(sed -n 's/^JAVA_VERSION="\([0-9]*\).*/\1/p' "$jdk/release")
# jdeps cannot resolve the node's jars (some are modular with modules
# missing from the class path), so a fixed set: Java SE plus the JDK
# modules OpenSearch, netty and Lucene use when present.
mods=java.se,jdk.unsupported,jdk.management,jdk.incubator.vector,jdk.crypto.ec,jdk.net,jdk.zipfs
sh "$here/../../jvm/jlink-runtime.sh" "$jdk" "$mods" "$out" "$os/syslib" "$os/runtime-cds.log" ||
	{ echo "opensearch-runtime: no runtime" >&2; exit 1; }
echo "opensearch-runtime: $out: modules $mods, $(du -sm "$out" | cut -f1) MiB (JDK $feature)"
