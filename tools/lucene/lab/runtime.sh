#!/bin/sh
# runtime.sh BUILD - the Java runtime the lab guest runs advshim-lucene on:
# a jlink image of the JDK that built it, holding only the modules
# advshim-lucene and lucene-core need (jdeps says: java.base, java.logging,
# jdk.incubator.vector; jdk.management, which lucene-core uses when it is
# there), with a CDS archive so that the guest's JVM starts without
# parsing the JDK's classes under emulation.  Writes
#   BUILD/lucene/runtime/        the image (bin/java, lib/...)
#   BUILD/lucene/syslib/         the host's shared libraries the image needs
#                                that a busybox guest may lack (libdl...)
#   BUILD/lucene/runtime.size    its size in KiB
# Rebuilt only when the jars or the JDK are newer than the image.
set -eu
build=$(cd "${1:-build}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
out=$build/lucene/runtime
jar=$build/advshim-lucene.jar

[ -f "$jar" ] || { echo "lucene-runtime: $jar not built (make $jar)" >&2; exit 1; }
jdk=$(sh "$here/../find-jdk.sh") || { echo "lucene-runtime: $jdk" >&2; exit 1; }
[ -x "$jdk/bin/jlink" ] && [ -x "$jdk/bin/jdeps" ] ||
	{ echo "lucene-runtime: $jdk has no jlink/jdeps" >&2; exit 1; }

# One builder at a time: two labs started together (one per kernel) would
# both find the image stale and dump its CDS archive over each other.
mkdir -p "$build/lucene"
exec 9>"$build/lucene/.runtime.lock"
flock 9
if [ -f "$out/.done" ] && [ -z "$(find "$jar" "$build/lucene/lib" "$jdk/release" -newer "$out/.done" 2>/dev/null)" ]; then
	exit 0
fi
# The modules: what jdeps finds in the jars, plus lucene-core's optional
# "requires static jdk.management" (without it Lucene warns that it
# "cannot optimize algorithms or calculate object sizes" on this JVM).
feature=$(sed -n 's/^JAVA_VERSION="\([0-9]*\).*/\1/p' "$jdk/release")
mods=$("$jdk/bin/jdeps" --multi-release "$feature" --print-module-deps --ignore-missing-deps \
	"$build"/lucene/lib/*.jar "$jar")
[ -n "$mods" ] && mods=$mods,jdk.management
[ -n "$mods" ] || { echo "lucene-runtime: jdeps found no modules" >&2; exit 1; }
sh "$here/../../jvm/jlink-runtime.sh" "$jdk" "$mods" "$out" "$build/lucene/syslib" \
	"$build/lucene/runtime-cds.log" || { echo "lucene-runtime: no runtime" >&2; exit 1; }
du -sk "$out" | cut -f1 >"$build/lucene/runtime.size"
touch "$out/.done"
echo "lucene-runtime: $out: modules $mods, $(($(cat "$build/lucene/runtime.size") / 1024)) MiB (JDK $feature, $jdk)"
