#!/bin/sh
# run.sh BUILD [SANITIZER] - the JVM test: Lucene's route to posix_madvise.
#
# Compiles MadviseProbe with the JDK's own javac into BUILD/tests/java and
# runs it without and with the shim.  The probe maps a file with
# FileChannel.map, finds posix_madvise through the FFM default lookup (a
# dlsym on the JDK's libsyslookup.so handle, which never sees LD_PRELOAD
# objects unless the shim's dlsym steps in), calls it with RANDOM and reads
# the JVM's own /proc/self/smaps: `rr` must be in force without the shim
# and gone with it.  Temurin 25 (FFM) when present, else JDK 17's
# jdk.incubator.foreign.
set -u
build=${1:-build}
san=${2:-}
here=$(cd "$(dirname "$0")" && pwd)
lib=$(cd "$build" && pwd)/libadvshim.so
out=$build/tests/java
fail=0

if [ -n "$san" ]; then
	echo "SKIP JVM test under SANITIZER=$san: a sanitizer runtime preloaded into java is not a meaningful test (HotSpot's own signal handling and reservations)"
	exit 0
fi
jdk=
# ADVSHIM_TEST_JDK=DIR forces one JDK (e.g. to exercise the JDK 17 probe).
for d in ${ADVSHIM_TEST_JDK:-} /usr/lib/jvm/temurin-25-jdk-amd64 /usr/lib/jvm/java-17-openjdk-amd64; do
	if [ -x "$d/bin/javac" ]; then jdk=$d; break; fi
done
if [ -z "$jdk" ]; then
	echo "FAIL JVM test: no JDK with javac (temurin-25 or openjdk-17-jdk-headless); run make deps"
	exit 1
fi
case $jdk in
*temurin-25*) src=$here/ffm; opts= ;;
*) src=$here/incubator17; opts="--add-modules jdk.incubator.foreign" ;;
esac
mkdir -p "$out"
# shellcheck disable=SC2086
if ! "$jdk/bin/javac" $opts -d "$out" "$src/MadviseProbe.java" 2>"$out/javac.log"; then
	grep -v '^warning\|^Note' "$out/javac.log"
	echo "FAIL JVM test: javac failed"
	exit 1
fi
tmp=$(mktemp /tmp/advshim-jvm.XXXXXX)
trap 'rm -f "$tmp"' EXIT INT TERM
dd if=/dev/urandom of="$tmp" bs=64k count=16 status=none

probe() {
	# shellcheck disable=SC2086
	"$jdk/bin/java" -Xshare:auto -Xmx64m $opts --enable-native-access=ALL-UNNAMED \
		-cp "$out" MadviseProbe "$tmp" 2>&1 | grep -v 'WARNING'
}

echo "JDK: $jdk"
plain=$(probe)
shim=$(LD_PRELOAD=$lib ADVSHIM_LOG=info probe)
echo "without shim: $plain"
echo "with shim:    $(echo "$shim" | grep result)"
if echo "$plain" | grep -q 'result java call=0 rr=1'; then
	echo "ok   JVM without shim: posix_madvise(RANDOM) leaves rr in force"
else
	echo "FAIL JVM without shim: expected rr=1"; fail=1
fi
if echo "$shim" | grep -q 'result java call=0 rr=0'; then
	echo "ok   JVM with shim: rr gone (FFM defaultLookup got the shim's posix_madvise)"
else
	echo "FAIL JVM with shim: expected rr=0"; echo "$shim"; fail=1
fi
if echo "$shim" | grep -q "adaptive $tmp: random -> normal"; then
	echo "ok   JVM with shim: the adaptive choice logged for the mapped file"
else
	echo "FAIL JVM with shim: no adaptive log line for $tmp"; fail=1
fi
exit $fail
