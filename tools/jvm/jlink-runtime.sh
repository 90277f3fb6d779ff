#!/bin/sh
# SPDX-License-Identifier: MIT
#
# jlink-runtime.sh JDK MODULES OUT SYSLIB CDSLOG - the Java runtime a lab
# guest runs a JVM workload on (tools/lucene/lab/runtime.sh,
# tools/opensearch/lab/runtime.sh): a jlink image of JDK with MODULES (a
# comma list) into OUT, with a base CDS archive so that the guest's JVM
# starts without parsing the JDK's classes under emulation (its dump's
# output in CDSLOG), and into SYSLIB the host's shared libraries the
# image needs that a busybox guest may lack (libdl...).  The image is
# built in OUT.tmp and moved to OUT when whole; OUT/modules.txt names
# its modules, OUT/.done marks it complete.  Prints nothing; on failure
# says why on stderr and exits 1 (OUT then does not exist).
set -eu
jdk=$1 mods=$2 out=$3 syslib=$4 cdslog=$5

[ -x "$jdk/bin/jlink" ] || { echo "$jdk has no jlink" >&2; exit 1; }
rm -rf "$out" "$out.tmp" "$syslib"
"$jdk/bin/jlink" --add-modules "$mods" --strip-debug --no-header-files --no-man-pages \
	--output "$out.tmp" 2>&1 | grep -v 'incubator modules' || true
[ -x "$out.tmp/bin/java" ] || { echo "jlink made no runtime in $out.tmp" >&2; exit 1; }
# The base CDS archive, dumped with the module options both launchers
# pass: one dumped without them (jlink --generate-cds-archive) makes a
# dynamic AppCDS archive on top of it log "Mismatched values for property
# jdk.module.addmods" and turn off the archived module graph.
"$out.tmp/bin/java" --enable-native-access=ALL-UNNAMED --add-modules=jdk.incubator.vector \
	-Xshare:dump >"$cdslog" 2>&1 ||
	{ tail -n 5 "$cdslog" >&2; echo "the CDS dump failed ($cdslog)" >&2; rm -rf "$out.tmp"; exit 1; }
mkdir -p "$syslib"
find "$out.tmp" -type f \( -name '*.so' -o -path '*/bin/*' \) | while read -r f; do
	ldd "$f" 2>/dev/null | awk '/=> \// { print $3 }'
done | sort -u | while read -r lib; do
	case $lib in "$out.tmp"/*) continue ;; esac
	cp -L "$lib" "$syslib/"
done
echo "$mods" >"$out.tmp/modules.txt"
mv "$out.tmp" "$out"
touch "$out/.done"
