#!/bin/sh
# build.sh BUILD [OPENSEARCH_VERSION] - build the OpenSearch node and k-NN
# client: BUILD/opensearch/advshim-opensearch.jar, the node's jars under
# BUILD/opensearch/lib/, the unpacked k-NN plugin under BUILD/opensearch/knn/,
# the node's log4j2.properties under BUILD/opensearch/config/, and the
# launcher BUILD/advshim-opensearch.
#
# Like tools/lucene/build.sh (whose find-jdk.sh it uses): without a JDK 21+
# or Maven it says so in one line and exits 0; Maven runs offline first and
# resolves from Maven Central only when an artifact is missing
# (OPENSEARCH_M2=DIR for another local repository).
set -u
build=${1:-build}
version=${2:-3.6.0}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$build/opensearch"
build=$(cd "$build" && pwd)
out=$build/opensearch
log=$out/mvn.log

if ! jdk=$(sh "$here/../lucene/find-jdk.sh"); then
	echo "advshim-opensearch: not built: $jdk"
	exit 0
fi
if ! command -v "${MVN:-mvn}" >/dev/null 2>&1; then
	echo "advshim-opensearch: not built: Maven (mvn) not found; make deps installs it"
	exit 0
fi
case $version in
3.*) ;;
*) echo "advshim-opensearch: OPENSEARCH_VERSION=$version: only 3.x is supported (Lucene 10, the k-NN zip on Maven Central)" >&2
   exit 1 ;;
esac

# transport-grpc-spi (the SPI k-NN's plugin class implements) is published
# from 3.6.0 on; k-NN 3.5 references the same interfaces.
grpc=
case $version in
3.[0-5].*) grpc=-Dgrpc.spi.version=3.6.0 ;;
esac

mvn_run() {
	# shellcheck disable=SC2086
	JAVA_HOME=$jdk "${MVN:-mvn}" -B -q -f "$here/pom.xml" $grpc \
		${OPENSEARCH_M2:+-Dmaven.repo.local=$OPENSEARCH_M2} \
		-Dopensearch.version="$version" -Dadvshim.target="$out/target" "$@" \
		>>"$log" 2>&1
}

: >"$log"
rm -rf "$out/target/advshim-opensearch.jar" "$out/target/knn" "$out/target/dependency-maven-plugin-markers"
if ! mvn_run -o package && grep -q 'offline mode' "$log"; then
	echo "advshim-opensearch: resolving OpenSearch $version, k-NN $version.0 and the build plugins (Maven Central)"
	mv "$log" "$log.offline"
	mvn_run package
fi
if [ ! -f "$out/target/advshim-opensearch.jar" ] || [ ! -f "$out/target/knn/plugin-descriptor.properties" ] ||
	grep -q 'BUILD FAILURE\|\[ERROR\]' "$log"; then
	grep '\[ERROR\]' "$log" | grep -v 'Help 1\|^\[ERROR\] *$\|Re-run Maven\|full stack\|following articles' |
		tail -n 15 >&2
	echo "advshim-opensearch: Maven build failed (OpenSearch $version); whole log: $log" >&2
	exit 1
fi
rm -rf "$out/lib" "$out/knn" "$out/config"
mkdir -p "$out/lib" "$out/config"
cp "$out/target/lib/"*.jar "$out/lib/" &&
	cp -r "$out/target/knn" "$out/knn" &&
	cp "$here/config/log4j2.properties" "$out/config/" &&
	cp "$out/target/advshim-opensearch.jar" "$out/advshim-opensearch.jar" || exit 1
sed -e "s|@JAVA@|$jdk/bin/java|" "$here/advshim-opensearch.in" >"$build/advshim-opensearch.tmp" &&
	chmod 755 "$build/advshim-opensearch.tmp" &&
	mv "$build/advshim-opensearch.tmp" "$build/advshim-opensearch" || exit 1
echo "$version" >"$out/version"
echo "advshim-opensearch: built with OpenSearch $version, k-NN $(sed -n 's/^version=//p' "$out/knn/plugin-descriptor.properties") on $(sed -n 's/^JAVA_VERSION="\(.*\)"/\1/p' "$jdk/release")"
