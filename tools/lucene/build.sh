#!/bin/sh
# build.sh BUILD [LUCENE_VERSION] - build BUILD/advshim-lucene.jar, its
# lucene-core under BUILD/lucene/lib/ and the launcher BUILD/advshim-lucene.
#
# Without a JDK 21+ or Maven it says so in one line and exits 0 (the rest
# of the project builds without Java).  Maven runs offline first (-o), so
# a machine that resolved once builds without the network; only when that
# fails does it resolve (from Maven Central, into ~/.m2 or LUCENE_M2).
set -u
build=${1:-build}
version=${2:-10.4.0}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$build/lucene"
build=$(cd "$build" && pwd)
out=$build/lucene
log=$out/mvn.log

if ! jdk=$(sh "$here/find-jdk.sh"); then
	echo "advshim-lucene: not built: $jdk"
	exit 0
fi
if ! command -v "${MVN:-mvn}" >/dev/null 2>&1; then
	echo "advshim-lucene: not built: Maven (mvn) not found; make deps installs it"
	exit 0
fi
case $version in
10.*) ;;
*) echo "advshim-lucene: LUCENE_VERSION=$version: only 10.x is supported (MMapDirectory's read advice API)" >&2
   exit 1 ;;
esac

# mvn ARGS... - quiet, batch, this pom, our output directory.
mvn_run() {
	# shellcheck disable=SC2086
	JAVA_HOME=$jdk "${MVN:-mvn}" -B -q -f "$here/pom.xml" \
		${LUCENE_M2:+-Dmaven.repo.local=$LUCENE_M2} \
		-Dlucene.version="$version" -Dadvshim.target="$out/target" "$@" \
		>>"$log" 2>&1
}

: >"$log"
rm -f "$out/target/advshim-lucene.jar"
# Offline first; online only when offline failed for want of an artifact
# (a compile error is reported as it is).
if ! mvn_run -o package && grep -q 'offline mode' "$log"; then
	echo "advshim-lucene: resolving lucene-core $version and the build plugins (Maven Central)"
	mv "$log" "$log.offline"
	mvn_run package
fi
if [ ! -f "$out/target/advshim-lucene.jar" ] || grep -q 'BUILD FAILURE\|\[ERROR\]' "$log"; then
	grep '\[ERROR\]' "$log" | grep -v 'Help 1\|^\[ERROR\] *$\|Re-run Maven\|full stack\|following articles' |
		tail -n 15 >&2
	echo "advshim-lucene: Maven build failed (lucene-core $version); whole log: $log" >&2
	exit 1
fi
rm -rf "$out/lib"
mkdir -p "$out/lib"
cp "$out/target/lib/"*.jar "$out/lib/" &&
	cp "$out/target/advshim-lucene.jar" "$build/advshim-lucene.jar" || exit 1
sed "s|@JAVA@|$jdk/bin/java|" "$here/advshim-lucene.in" >"$build/advshim-lucene.tmp" &&
	chmod 755 "$build/advshim-lucene.tmp" &&
	mv "$build/advshim-lucene.tmp" "$build/advshim-lucene" || exit 1
echo "$version" >"$out/version"
echo "advshim-lucene: built with lucene-core $version on $(sed -n 's/^JAVA_VERSION="\(.*\)"/\1/p' "$jdk/release") ($jdk)"
