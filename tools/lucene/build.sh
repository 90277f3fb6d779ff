#!/bin/sh
# build.sh BUILD [LUCENE_VERSION] - build BUILD/advshim-lucene.jar, its
# lucene-core under BUILD/lucene/lib/ and the launcher BUILD/advshim-lucene.
#
# Without a JDK 21+ or Maven it says so in one line and exits 0 (the rest
# of the project builds without Java).  Maven runs offline first (-o), so
# a machine that resolved once builds without the network; only when that
# fails does it resolve (from Maven Central, into ~/.m2 or LUCENE_M2).
# The steps it shares with tools/opensearch/build.sh: tools/jvm/build-common.sh.
set -u
version=${2:-10.4.0}
. "$(dirname "$0")/../jvm/build-common.sh"
jvm_setup advshim-lucene "${1:-build}" lucene
jvm_supported advshim-lucene LUCENE_VERSION "$version" 10.x "MMapDirectory's read advice API"

rm -f "$out/target/advshim-lucene.jar"
# shellcheck disable=SC2086
jvm_package advshim-lucene "lucene-core $version" "$log" \
	${LUCENE_M2:+-Dmaven.repo.local=$LUCENE_M2} \
	-Dlucene.version="$version" -Dadvshim.target="$out/target"
if jvm_failed "$log" "$out/target/advshim-lucene.jar"; then
	echo "advshim-lucene: Maven build failed (lucene-core $version); whole log: $log" >&2
	exit 1
fi
rm -rf "$out/lib"
mkdir -p "$out/lib"
cp "$out/target/lib/"*.jar "$out/lib/" || exit 1
jvm_install "$out/target/advshim-lucene.jar" "$build/advshim-lucene.jar"
jvm_launcher "$here/advshim-lucene.in" "$build/advshim-lucene"
echo "$version" >"$out/version"
echo "advshim-lucene: built with lucene-core $version on $(jvm_version) ($jdk)"
