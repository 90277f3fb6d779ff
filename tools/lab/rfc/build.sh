#!/bin/bash
# SPDX-License-Identifier: MIT
#
# build.sh SERIES - builds the lab kernel "SERIES-rfc": Debian's own kernel
# source of SERIES (apt: linux-source-SERIES) with the RFC's patch
# (age-on-thrash-SERIES.patch beside this script) and a small config
# (make tinyconfig + guest.config + guest-SERIES.config: what the lab
# guest needs, all built in).
# Prints the kernel directory the lab boots from (vmlinuz, config, version,
# an empty module list), the layout fetch_kernel in kernel.sh makes.
#
# Cached and incremental under $CACHE (build/lab/cache):
#   debs/linux-source-SERIES_*.deb   the source package
#   rfc/linux-source-VER/            the unpacked tree, patched in place
#   rfc/obj-VER/                     the object tree (make O=)
#   kernel-VER-lab-rfc/              the result
# The tree is re-patched when the patch changes and re-configured when
# guest.config changes; make rebuilds what those touch.  Progress goes to
# stderr.  Never run by make check (make lab-kernel-rfc; the lab runs it
# for LAB_KERNEL=SERIES-rfc).
#
# Environment: CACHE (required), RFC_JOBS (make -j, default 2),
# RFC_NICE (nice level, default 15), RFC_SRC_VERSION (a linux-source
# package version instead of the newest apt knows), RFC_APT_OPTS (apt
# options naming other lists than the system's: kernel.sh passes the
# lab's private apt state for 7.x, whose sources are in trixie-backports).
set -euo pipefail

RFC_SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SERIES=${1:?usage: build.sh SERIES}
: "${CACHE:?CACHE not set}"
RFC_JOBS=${RFC_JOBS:-2}
RFC_NICE=${RFC_NICE:-15}
LOCALVERSION=-lab-rfc

die() { echo "lab: rfc: error: $*" >&2; exit 1; }
note() { echo "lab: rfc: $*" >&2; }

# sha_of FILE: the content hash a stamp records.
sha_of() { sha256sum "$1" | cut -d' ' -f1; }

# source_deb: the cached linux-source-SERIES package (downloaded if none).
source_deb() {
	local pkg=linux-source-$SERIES deb spec
	deb=$(ls "$CACHE/debs/${pkg}_${RFC_SRC_VERSION:-}"*.deb 2>/dev/null | sort -V | tail -n 1)
	if [ -z "$deb" ]; then
		command -v apt-get >/dev/null || die "apt-get missing: cannot download $pkg"
		spec=$pkg${RFC_SRC_VERSION:+=$RFC_SRC_VERSION}
		# shellcheck disable=SC2086
		apt-cache ${RFC_APT_OPTS:-} show "$spec" >/dev/null 2>&1 ||
			die "no package $spec in the apt lists searched (6.12: bookworm-security, run apt-get update; 7.x: the lab's trixie-backports lists)"
		mkdir -p "$CACHE/debs"
		note "downloading $spec"
		# shellcheck disable=SC2086
		(cd "$CACHE/debs" && apt-get download -q ${RFC_APT_OPTS:-} "$spec" >"$CACHE/rfc-download.log" 2>&1) ||
			die "apt-get download $spec failed: $(tail -n 1 "$CACHE/rfc-download.log")"
		deb=$(ls "$CACHE/debs/${pkg}_"*.deb | sort -V | tail -n 1)
	fi
	echo "$deb"
}

# unpack DEB VER: the source tree, unpacked once (pristine mm/vmscan.c kept
# as mm/vmscan.c.orig for re-patching).
unpack() {
	local deb=$1 ver=$2 src=$CACHE/rfc/linux-source-$2 tarball
	if [ -f "$src/.unpacked" ]; then
		echo "$src"
		return 0
	fi
	rm -rf "$src" "$src.tmp"
	mkdir -p "$src.tmp"
	tarball=./usr/src/linux-source-$SERIES.tar.xz
	note "unpacking $(basename "$deb") (~1.4 GB of source)"
	dpkg-deb --fsys-tarfile "$deb" | tar -xO "$tarball" |
		nice -n "$RFC_NICE" tar -xJ -C "$src.tmp" --strip-components=1 ||
		die "cannot unpack $tarball from $deb"
	[ -f "$src.tmp/mm/vmscan.c" ] || die "$deb has no mm/vmscan.c"
	cp "$src.tmp/mm/vmscan.c" "$src.tmp/mm/vmscan.c.orig"
	touch "$src.tmp/.unpacked"
	mv "$src.tmp" "$src"
	echo "$src"
}

# apply_patch SRC PATCH: SRC's vmscan.c = pristine + PATCH.
apply_patch() {
	local src=$1 p=$2 sum
	sum=$(sha_of "$p")
	[ "$(cat "$src/.rfc-patch" 2>/dev/null)" = "$sum" ] && return 0
	note "applying $(basename "$p")"
	cp "$src/mm/vmscan.c.orig" "$src/mm/vmscan.c"
	patch -s -p1 -d "$src" <"$p" || die "$(basename "$p") does not apply to $src"
	echo "$sum" >"$src/.rfc-patch"
}

# configure SRC OBJ FRAGMENT: tinyconfig + FRAGMENT, then checks that every
# option of FRAGMENT survived (a dependency Kconfig dropped is an error).
configure() {
	local src=$1 obj=$2 frag=$3 sum line missing=
	sum=$(sha_of "$frag")
	[ "$(cat "$obj/.rfc-config" 2>/dev/null)" = "$sum" ] && [ -f "$obj/.config" ] && return 0
	note "configuring: tinyconfig + $(basename "$frag")"
	mkdir -p "$obj"
	make -s -C "$src" O="$obj" ARCH=x86_64 tinyconfig >"$obj/config.log" 2>&1 ||
		die "make tinyconfig failed: $(tail -n 3 "$obj/config.log")"
	{ grep -hv '^#' "$frag" | grep .; echo "CONFIG_LOCALVERSION=\"$LOCALVERSION\""; } >"$obj/fragment"
	(cd "$obj" && "$src/scripts/kconfig/merge_config.sh" -m -O "$obj" .config fragment) \
		>>"$obj/config.log" 2>&1 || die "merge_config.sh failed (see $obj/config.log)"
	make -s -C "$src" O="$obj" ARCH=x86_64 olddefconfig >>"$obj/config.log" 2>&1 ||
		die "make olddefconfig failed: $(tail -n 3 "$obj/config.log")"
	while read -r line; do
		grep -qxF "$line" "$obj/.config" || missing="$missing ${line%%=*}"
	done <"$obj/fragment"
	[ -z "$missing" ] || die "the config lost:$missing (their dependencies are missing from $(basename "$frag"))"
	echo "$sum" >"$obj/.rfc-config"
}

# build SRC OBJ: nice make bzImage, a progress line every 200 objects.
build() {
	local src=$1 obj=$2 t0=$SECONDS rc=0
	note "building bzImage (nice $RFC_NICE, -j$RFC_JOBS; log: $obj/build.log)"
	{ nice -n "$RFC_NICE" make -C "$src" O="$obj" ARCH=x86_64 -j"$RFC_JOBS" bzImage 2>&1 || echo "BUILD-FAILED $?"; } |
		tee "$obj/build.log" |
		awk -v t0="$(date +%s)" '
			/^  (CC|AS|LD|AR)/ { n++ }
			n && n % 200 == 0 && n != last { last = n
				printf "lab: rfc: %d objects, %d s\n", n, systime() - t0 > "/dev/stderr"; fflush("/dev/stderr") }
			/BUILD-FAILED/ { exit 1 }' || rc=1
	[ $rc = 0 ] || die "the kernel build failed: $(grep -m 3 -E 'error|Error' "$obj/build.log" | tr '\n' ' ')"
	note "bzImage built in $((SECONDS - t0)) s"
}

main() {
	local deb ver src obj patch kdir kver
	patch=$RFC_SRC/age-on-thrash-$SERIES.patch
	[ -f "$patch" ] || die "no RFC patch for $SERIES ($patch)"
	command -v flex >/dev/null && command -v bison >/dev/null ||
		die "the kernel build needs flex and bison (apt-get install flex bison libelf-dev bc)"
	deb=$(source_deb)
	ver=$(dpkg-deb -f "$deb" Version | sed 's/-.*//')
	src=$(unpack "$deb" "$ver")
	obj=$CACHE/rfc/obj-$ver
	apply_patch "$src" "$patch"
	[ -f "$RFC_SRC/guest-$SERIES.config" ] || die "no guest-$SERIES.config beside guest.config"
	cat "$RFC_SRC/guest.config" "$RFC_SRC/guest-$SERIES.config" >"$CACHE/rfc/guest-$SERIES.config"
	configure "$src" "$obj" "$CACHE/rfc/guest-$SERIES.config"
	build "$src" "$obj"
	kver=$(cat "$obj/include/config/kernel.release")
	kdir=$CACHE/kernel-$kver
	rm -rf "$kdir.tmp"
	mkdir -p "$kdir.tmp/modules"
	cp "$obj/arch/x86/boot/bzImage" "$kdir.tmp/vmlinuz"
	cp "$obj/.config" "$kdir.tmp/config"
	: >"$kdir.tmp/modules/order"
	echo "$kver" >"$kdir.tmp/version"
	rm -rf "$kdir"
	mv "$kdir.tmp" "$kdir"
	touch "$kdir/.done"
	note "kernel $kver: $kdir"
	echo "$kdir"
}

main
