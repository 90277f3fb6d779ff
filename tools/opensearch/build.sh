#!/bin/sh
# build.sh BUILD [OPENSEARCH_VERSION] - build the OpenSearch node and k-NN
# client: BUILD/opensearch/advshim-opensearch.jar, the node's jars under
# BUILD/opensearch/lib/, the unpacked k-NN plugin under BUILD/opensearch/knn/,
# the node's log4j2.properties under BUILD/opensearch/config/, and the
# launcher BUILD/advshim-opensearch.
#
# Like tools/lucene/build.sh (the steps both take: tools/jvm/build-common.sh,
# the JDK: tools/lucene/find-jdk.sh): without a JDK 21+ or Maven it says so
# in one line and exits 0; Maven runs offline first and resolves from Maven
# Central only when an artifact is missing (OPENSEARCH_M2=DIR for another
# local repository).
set -u
version=${2:-3.6.0}
. "$(dirname "$0")/../jvm/build-common.sh"
jvm_setup advshim-opensearch "${1:-build}" opensearch
jvm_supported advshim-opensearch OPENSEARCH_VERSION "$version" 3.x "Lucene 10, the k-NN zip on Maven Central"

# transport-grpc-spi (the SPI k-NN's plugin class implements) is published
# from 3.6.0 on; k-NN 3.5 references the same interfaces.
grpc=
case $version in
3.[0-5].*) grpc=-Dgrpc.spi.version=3.6.0 ;;
esac

rm -rf "$out/target/advshim-opensearch.jar" "$out/target/knn" "$out/target/dependency-maven-plugin-markers"
# shellcheck disable=SC2086
jvm_package advshim-opensearch "OpenSearch $version, k-NN $version.0" "$log" $grpc \
	${OPENSEARCH_M2:+-Dmaven.repo.local=$OPENSEARCH_M2} \
	-Dopensearch.version="$version" -Dadvshim.target="$out/target"
if jvm_failed "$log" "$out/target/advshim-opensearch.jar" "$out/target/knn/plugin-descriptor.properties"; then
	echo "advshim-opensearch: Maven build failed (OpenSearch $version); whole log: $log" >&2
	exit 1
fi
rm -rf "$out/lib" "$out/knn" "$out/config"
mkdir -p "$out/lib" "$out/config"
cp "$out/target/lib/"*.jar "$out/lib/" &&
	cp -r "$out/target/knn" "$out/knn" &&
	cp "$here/config/log4j2.properties" "$out/config/" || exit 1
jvm_install "$out/target/advshim-opensearch.jar" "$out/advshim-opensearch.jar"
jvm_launcher "$here/advshim-opensearch.in" "$build/advshim-opensearch"
echo "$version" >"$out/version"
echo "advshim-opensearch: built with OpenSearch $version, k-NN $(sed -n 's/^version=//p' "$out/knn/plugin-descriptor.properties") on $(jvm_version)"
