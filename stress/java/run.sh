#!/bin/sh
# run.sh BUILD SECONDS - the JVM under the shim for a sustained run.
#
# MadviseLoop (Lucene's FFM pattern: FileChannel.map into a MemorySegment,
# posix_madvise from Linker.nativeLinker().defaultLookup()) loops
# map/advise/read/unmap on 16 threads for SECONDS, once without the shim
# and once under BUILD/libadvshim.so (embedded default policy: RANDOM on
# files -> normal).  Passes when both runs exit 0 with no JVM crash, print
# the same results (checksums, return values per advice, no errors), and
# `rr` is in force after RANDOM without the shim and never with it.
# Needs Temurin 25 (FFM) at /usr/lib/jvm/temurin-25-jdk-amd64: without it
# the test is SKIPPED, loudly (an optional component, not a failure).
set -u
build=$1
secs=$2
jdk=${ADVSHIM_STRESS_JDK:-/usr/lib/jvm/temurin-25-jdk-amd64}
here=$(cd "$(dirname "$0")" && pwd)
lib=$(cd "$build" && pwd)/libadvshim.so
out=$build/stress/java
if [ ! -x "$jdk/bin/javac" ]; then
	echo "stress[jvm]: SKIPPED: no Temurin 25 JDK at $jdk (optional; FFM needs JDK 22+)"
	exit 0
fi
if ldd "$lib" 2>/dev/null | grep -q 'lib[at]san\.so'; then
	echo "stress[jvm]: SKIPPED: $lib is built with a sanitizer; a sanitizer runtime preloaded into HotSpot is not a meaningful test"
	exit 0
fi
mkdir -p "$out"
if ! "$jdk/bin/javac" -d "$out" "$here/MadviseLoop.java" 2>"$out/javac.log"; then
	cat "$out/javac.log"
	echo "stress[jvm]: FAILED: javac"
	exit 1
fi
tmp=$(mktemp -d /tmp/advshim-jvm-stress.XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
for i in 0 1 2 3 4 5 6 7; do
	dd if=/dev/urandom of="$tmp/_$i.vec" bs=64k count=$((4 + i)) status=none
done
run() {
	"$jdk/bin/java" -Xmx256m -XX:ErrorFile="$tmp/hs_err_%p.log" \
		--enable-native-access=ALL-UNNAMED -cp "$out" MadviseLoop \
		"$secs" 16 "$tmp"/_*.vec
}
run >"$out/plain.out" 2>"$out/plain.err"
rc_plain=$?
LD_PRELOAD=$lib run >"$out/shim.out" 2>"$out/shim.err"
rc_shim=$?
fail=0
echo "stress[jvm]: without shim: exit $rc_plain, $(grep '^info' "$out/plain.out" | tr '\n' ' ')"
echo "stress[jvm]: with shim:    exit $rc_shim, $(grep '^info' "$out/shim.out" | tr '\n' ' ')"
if [ $rc_plain -ne 0 ] || [ $rc_shim -ne 0 ] || ls "$tmp"/hs_err_* >/dev/null 2>&1; then
	echo "stress[jvm]: FAILED: a JVM exited non-zero or crashed"
	cat "$out/shim.err" "$tmp"/hs_err_* 2>/dev/null | head -n 30
	fail=1
fi
grep -v '^info' "$out/plain.out" >"$out/plain.cmp"
grep -v '^info' "$out/shim.out" >"$out/shim.cmp"
if ! grep -q '^errors 0$' "$out/shim.cmp" || ! cmp -s "$out/plain.cmp" "$out/shim.cmp"; then
	echo "stress[jvm]: FAILED: results differ with the shim:"
	diff "$out/plain.cmp" "$out/shim.cmp" | head -n 20
	fail=1
fi
if ! grep -q '^info rr after random \[rr\]$' "$out/plain.out"; then
	echo "stress[jvm]: FAILED: without the shim RANDOM did not leave rr"
	fail=1
fi
if ! grep -q '^info rr after random \[none\]$' "$out/shim.out"; then
	echo "stress[jvm]: FAILED: with the shim rr was seen after RANDOM"
	fail=1
fi
[ $fail -eq 0 ] && echo "stress[jvm]: ok ($secs s x 2 runs, 16 threads; same results with and without the shim)"
exit $fail
