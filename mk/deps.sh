#!/bin/sh
# Install the Debian packages advshim needs to build and test.
# Quiet and idempotent: does nothing when all of them are present.
set -u
pkgs="gcc make pkg-config libconfig-dev uthash-dev libcriterion-dev strace
      gnuplot-nox busybox-static qemu-system-x86 cpio xz-utils zstd kmod
      debian-archive-keyring
      e2fsprogs clang libclang-rt-14-dev procps util-linux openjdk-17-jdk-headless time
      debhelper dpkg-dev man-db groff-base python3-yaml systemd maven
      python3.11 libpython3.11-testsuite stress-ng fio liblmdb-dev lmdb-utils
      valgrind prometheus prometheus-node-exporter curl"

missing=
for p in $pkgs; do
	st=$(dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null)
	case "$st" in
	ii*) ;;
	*) missing="$missing $p" ;;
	esac
done

# advshim-lucene (tools/lucene) needs a JDK 21+ besides Maven: Debian 12
# has none, so it comes with the machine (Temurin 25 under /usr/lib/jvm).
# Said once here, not a failure: everything else builds without it.
jdk_note() {
	why=$(sh "$(dirname "$0")/../tools/lucene/find-jdk.sh") ||
		echo "advshim: note: $why; advshim-lucene and its tests need one" >&2
}

if [ -z "$missing" ]; then
	jdk_note
	exit 0
fi

if [ "$(id -u)" != 0 ]; then
	echo "advshim: missing packages:$missing" >&2
	echo "advshim: run 'make deps' as root, or: apt-get install$missing" >&2
	exit 1
fi
echo "advshim: installing:$missing"
export DEBIAN_FRONTEND=noninteractive
if ! apt-get install -y -qq --no-install-recommends $missing >/tmp/advshim-deps.log 2>&1; then
	apt-get update -qq >>/tmp/advshim-deps.log 2>&1
	apt-get install -y -qq --no-install-recommends $missing \
		>>/tmp/advshim-deps.log 2>&1 || {
		echo "advshim: apt-get failed, see /tmp/advshim-deps.log" >&2
		tail -n 20 /tmp/advshim-deps.log >&2
		exit 1
	}
fi
jdk_note
