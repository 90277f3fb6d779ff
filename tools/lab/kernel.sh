# SPDX-License-Identifier: MIT
#
# kernel.sh - the lab's kernels (sourced by lab.sh): which Debian package
# carries each series, where apt finds it, the download (cached under
# $CACHE/debs) and the unpacked kernel directory the guest boots from.
#
# Two ways in:
#  - system: the machine's own apt lists (6.12 and 6.1 are Debian 12
#    packages: bookworm, bookworm-security), one linux-image-*-unsigned
#    package holding /boot/vmlinuz-VER, /boot/config-VER and the modules.
#  - private: suites this machine's apt sources do not list (7.x: Debian's
#    trixie-backports and sid), read through a sources list and apt state
#    of the lab's own under $LAB_DIR/apt, on the Debian mirror the machine's
#    apt sources already use (or $LAB_DEBIAN_MIRROR), signatures checked
#    against the Debian archive keyring.  The system's apt configuration is
#    only read.  These kernels come split: linux-binary-VER (vmlinuz under
#    /usr/lib/modules/VER/), linux-modules-VER (.ko.xz) and linux-base-VER
#    (config, modules.builtin).
#  - build: SERIES-rfc (6.12-rfc, 7.3-rfc) is Debian's linux-source-SERIES with the
#    RFC's patch (tools/lab/rfc: "age when the oldest generation is
#    thrashing"), built here by tools/lab/rfc/build.sh with a small config,
#    everything built in, cached under $CACHE/rfc (make lab-kernel-rfc).
#    7.3's source comes from trixie-backports through the private state.

LAB_KEYRING=${LAB_KEYRING:-/usr/share/keyrings/debian-archive-keyring.gpg}
LAB_APT_SUITES=${LAB_APT_SUITES:-trixie-backports sid}
LAB_SERIES="7.3 7.2 6.12 6.1 6.12-rfc 7.3-rfc"

# kernel_series: "SOURCE EXTRA-PACKAGES" of $LAB_KERNEL on one line, then
# its main package name patterns (ERE), best first.  EXTRA-PACKAGES are
# name prefixes completed with the main package's kernel release ("-" if
# none).  Adding a series is adding a case here.
kernel_series() {
	case $LAB_KERNEL in
	6.12-rfc|7.3-rfc)
		echo "build -"
		echo "^linux-source-${LAB_KERNEL%-rfc}\$" | sed 's/\./\\./g'
		;;
	7.3|7.2)
		echo "private linux-modules-,linux-base-"
		echo "^linux-binary-${LAB_KERNEL//./\\.}\\.[0-9]+\\+deb[0-9]+-cloud-amd64\$"
		;;
	6.12)
		echo "system -"
		echo '^linux-image-6\.12\.[0-9]+\+deb12-cloud-amd64-unsigned$'
		;;
	6.1)
		echo "system -"
		echo '^linux-image-6\.1\.0-[0-9]+-cloud-amd64-unsigned$'
		echo '^linux-image-6\.1\.0-[0-9]+-amd64-unsigned$'
		;;
	*)
		die "LAB_KERNEL=$LAB_KERNEL is not supported (use one of: $LAB_SERIES)"
		;;
	esac
}

# kernel_boot_args ACCEL: extra kernel command line for the series.
#
# 6.1 under icount: qemu 7.2's single-threaded round-robin icount loop
# never runs vCPU 1 again once it parks in wait_for_master_cpu() (a PAUSE
# loop) while vCPU 0 polls cpu_initialized_mask in do_boot_cpu() by
# calling schedule() (it never halts): the monitor shows bit 1 set in
# cpu_callout_mask, vCPU 1's RIP fixed on the instruction after PAUSE, and
# the guest clock 1200 s on.  6.5+ bring CPUs up through the cpuhp sync
# states instead, and real-time TCG has a thread per vCPU.  So 6.1 boots
# with one CPU and the guest's /init onlines the others, which the same
# code does from process context in well under a guest second.
kernel_boot_args() {
	case $LAB_KERNEL:$1 in
	6.1:tcg) [ "$LAB_ICOUNT" != 0 ] && [ "$LAB_SMP" -gt 1 ] && echo "maxcpus=1" ;;
	esac
	return 0
}

kernel_source() { kernel_series | head -n 1 | cut -d' ' -f1; }
kernel_extras() { kernel_series | head -n 1 | cut -d' ' -f2 | tr ',' ' ' | sed 's/^-$//'; }
kernel_patterns() { kernel_series | tail -n +2; }

# kernel_release PACKAGE: the kernel release a package name carries
# (linux-binary-7.3.4+deb13-cloud-amd64 -> 7.3.4+deb13-cloud-amd64).
kernel_release() {
	echo "$1" | sed -E 's/^linux-(image|binary)-//; s/-unsigned$//'
}

# Where the series comes from, for messages.
kernel_where() {
	if [ "$(kernel_source)" = build ]; then
		echo "Debian's linux-source-${LAB_KERNEL%-rfc} ($(rfc_suite)) patched and built by tools/lab/rfc/build.sh"
	elif [ "$(kernel_source)" = private ]; then
		echo "Debian's $LAB_APT_SUITES (private apt state in $LAB_DIR/apt)"
	else
		echo "this machine's apt sources (bookworm, bookworm-security)"
	fi
}

# Newest cached main .deb of the series whose extra packages are cached
# too, if any (a built series: its cached source package).
cached_deb() {
	local pat deb f n rel e ok
	if [ "$(kernel_source)" = build ]; then
		ls "$CACHE/debs/linux-source-${LAB_KERNEL%-rfc}_"*.deb 2>/dev/null | sort -V | tail -n 1 | grep .
		return
	fi
	for pat in $(kernel_patterns); do
		deb=
		for f in $({ ls "$CACHE"/debs/*.deb 2>/dev/null || true; } | sort -rV); do
			n=$(basename "$f"); n=${n%%_*}
			[[ $n =~ $pat ]] || continue
			rel=$(kernel_release "$n")
			ok=1
			for e in $(kernel_extras); do
				ls "$CACHE/debs/$e${rel}"_*.deb >/dev/null 2>&1 || ok=0
			done
			[ $ok = 1 ] && { deb=$f; break; }
		done
		[ -n "$deb" ] && { echo "$deb"; return 0; }
	done
	return 1
}

# rfc_suite: where a built series' source package comes from.
rfc_suite() {
	case $LAB_KERNEL in
	7.*) echo "trixie-backports, the lab's private apt state" ;;
	*) echo "this machine's apt sources, bookworm-security" ;;
	esac
}

# rfc_apt_opts: the apt options build.sh looks the source package up with
# (7.x: the private state, its lists fetched first if never fetched).
rfc_apt_opts() {
	case $LAB_KERNEL in
	7.*)
		[ -f "$PRIV_APT/.updated" ] || priv_apt_update >&2
		priv_apt_opts
		;;
	esac
}

# ------------------------------------------------------- private apt state

PRIV_APT=$LAB_DIR/apt

# apt options that point apt at the lab's own sources list and state.
priv_apt_opts() {
	echo "-o Dir::Etc::sourcelist=$PRIV_APT/sources.list" \
		"-o Dir::Etc::sourceparts=$PRIV_APT/sources.list.d" \
		"-o Dir::State::Lists=$PRIV_APT/lists" \
		"-o Dir::Cache=$PRIV_APT/cache"
}

# debian_mirror: the Debian archive URI this machine's apt sources use
# (not the security archive), or $LAB_DEBIAN_MIRROR.
debian_mirror() {
	local uri
	if [ -n "${LAB_DEBIAN_MIRROR:-}" ]; then
		echo "$LAB_DEBIAN_MIRROR"
		return 0
	fi
	# shellcheck disable=SC2016
	uri=$(apt-get indextargets --format '$(REPO_URI) $(ORIGIN) $(RELEASE)' \
		'Identifier: Packages' 2>/dev/null |
		awk '$2 == "Debian" && $3 !~ /-security$/ { print $1; exit }')
	# Lists never downloaded: no Origin yet; a URI ending in /debian/.
	[ -n "$uri" ] || uri=$(apt-get indextargets --format '$(REPO_URI) $(RELEASE)' \
		'Identifier: Packages' 2>/dev/null |
		awk '$1 ~ /\/debian\/?$/ && $2 !~ /-security$/ { print $1; exit }')
	[ -n "$uri" ] || return 1
	echo "$uri"
}

# priv_apt_update: writes the private sources list and fetches its lists.
priv_apt_update() {
	local mirror s
	need_cmd apt-get apt
	[ -r "$LAB_KEYRING" ] ||
		die "$LAB_KEYRING missing: install the Debian package 'debian-archive-keyring'"
	mirror=$(debian_mirror) ||
		die "no Debian mirror in this machine's apt sources (for the $LAB_KERNEL kernel from $LAB_APT_SUITES): set LAB_DEBIAN_MIRROR=URL"
	mkdir -p "$PRIV_APT/sources.list.d" "$PRIV_APT/lists/partial" \
		"$PRIV_APT/cache/archives/partial"
	for s in $LAB_APT_SUITES; do
		echo "deb [signed-by=$LAB_KEYRING target=Packages] $mirror $s main"
	done >"$PRIV_APT/sources.list"
	note "fetching the package lists of $LAB_APT_SUITES (private apt state in $PRIV_APT)"
	# shellcheck disable=SC2046
	apt-get -q $(priv_apt_opts) update >"$PRIV_APT/update.log" 2>&1 ||
		die "apt-get update of $LAB_APT_SUITES from $mirror failed (for the $LAB_KERNEL kernel): $(grep -E '^(E|W):' "$PRIV_APT/update.log" | head -n 2 | tr '\n' ' ')"
	# apt-get update exits 0 when a list could not be fetched
	if grep -q -E '^E:|^W: (Failed to fetch|Some index files failed)' "$PRIV_APT/update.log"; then
		rm -f "$PRIV_APT/.updated"
		die "cannot fetch the package lists of $LAB_APT_SUITES from $mirror (for the $LAB_KERNEL kernel): $(grep -E '^(E|W):' "$PRIV_APT/update.log" | head -n 1)"
	fi
	touch "$PRIV_APT/.updated"
}

# apt_search PATTERN: package names matching PATTERN in the series' lists.
apt_search() {
	if [ "$(kernel_source)" = private ]; then
		[ -f "$PRIV_APT/.updated" ] || return 0
		# shellcheck disable=SC2046
		apt-cache $(priv_apt_opts) search --names-only "$1" 2>/dev/null
	else
		apt-cache search --names-only "$1" 2>/dev/null
	fi | awk '{ print $1 }'
}

# Candidate main package names from apt's lists, newest first.
apt_candidates() {
	local pat
	for pat in $(kernel_patterns); do
		apt_search "$pat" | sort -rV
	done
}

# apt_download NAME...: into $CACHE/debs.
apt_download() {
	local opts=
	[ "$(kernel_source)" = private ] && opts=$(priv_apt_opts)
	# shellcheck disable=SC2086
	(cd "$CACHE/debs" && apt-get download -q $opts "$@" >"$CACHE/apt-download.log" 2>&1)
}

# Refreshes the lists the series is searched in (private: the lab's own;
# system: the machine's, as root only).
refresh_lists() {
	if [ "$(kernel_source)" = private ]; then
		priv_apt_update
	elif [ "$(id -u)" = 0 ]; then
		note "no $LAB_KERNEL kernel package in apt's lists; running apt-get update"
		apt-get update -qq >&2 ||
			die "apt-get update failed: cannot reach Debian's package registry"
	else
		die "no $LAB_KERNEL kernel package in apt's lists and not root: run 'apt-get update' as root (needs bookworm-security in sources.list)"
	fi
}

# Downloads the newest package of the series (and its extras) that apt
# can fetch.
download_kernel() {
	local names name rel e pkgs
	need_cmd apt-get apt
	names=$(apt_candidates)
	# LAB_REFRESH=1 re-reads the lab's own lists; the system's are
	# refreshed only when they lack the series.
	if [ -z "$names" ] || { [ "${LAB_REFRESH:-0}" = 1 ] &&
				 [ "$(kernel_source)" = private ]; }; then
		refresh_lists
		names=$(apt_candidates)
	fi
	[ -n "$names" ] ||
		die "no package of the $LAB_KERNEL kernel series (matching $(kernel_patterns | head -n 1)) in $(kernel_where)"
	mkdir -p "$CACHE/debs"
	for name in $names; do
		rel=$(kernel_release "$name")
		pkgs=$name
		for e in $(kernel_extras); do pkgs="$pkgs $e$rel"; done
		note "downloading $pkgs"
		# shellcheck disable=SC2086
		apt_download $pkgs && return 0
		note "could not download $name: $(tail -n 1 "$CACHE/apt-download.log")"
	done
	die "cannot download any package of the $LAB_KERNEL kernel series from $(kernel_where) (network?); see $CACHE/apt-download.log"
}

# is_builtin X MODULE: MODULE is built into the unpacked kernel in X.
is_builtin() {
	local x=$1 m=$2 b
	b=$(find "$x" -name modules.builtin | head -n 1)
	if [ -n "$b" ]; then
		grep -q "/$m\.ko\$" "$b" && return 0
	fi
	grep -q "^CONFIG_$(echo "$m" | tr a-z A-Z)=y" "$x.config" 2>/dev/null
}

# unpack_modules X KDIR: the guest's modules in load order, dependencies
# first (read from .modinfo: the packages ship no modules.dep).
unpack_modules() {
	local x=$1 kdir=$2 todo=$GUEST_MODULES order= m ko dep d missing
	while [ -n "$todo" ]; do
		set -- $todo
		m=$1; shift; todo="$*"
		case " $order " in *" $m "*) continue ;; esac
		ko=$(find "$x" -path '*/modules/*' -name "$m.ko*" | head -n 1)
		if [ -z "$ko" ]; then
			is_builtin "$x" "$m" ||
				note "module $m not found in the package (assuming built in)"
			continue
		fi
		case $ko in
		*.xz) xz -dc "$ko" >"$kdir/modules/$m.ko" ;;
		*.zst) zstd -qdc "$ko" >"$kdir/modules/$m.ko" ;;
		*) cp "$ko" "$kdir/modules/$m.ko" ;;
		esac
		dep=$(tr '\0' '\n' <"$kdir/modules/$m.ko" |
			sed -n 's/^depends=//p' | tr ',' ' ')
		missing=
		for d in $dep; do
			case " $order " in *" $d "*) ;; *) missing="$missing $d" ;; esac
		done
		if [ -n "$missing" ]; then
			todo="$missing $m $todo"
		else
			order="$order $m"
		fi
	done
	echo "$order" >"$kdir/modules/order"
}

# Unpacks vmlinuz, the config and the modules the guest needs (a built
# series: builds it, incrementally); prints the kernel directory.
fetch_kernel() {
	local deb kver kdir x f e
	if [ "$(kernel_source)" = build ]; then
		CACHE=$CACHE RFC_APT_OPTS=$(rfc_apt_opts) bash "$LAB_SRC/rfc/build.sh" "${LAB_KERNEL%-rfc}" ||
			die "cannot build the $LAB_KERNEL kernel (tools/lab/rfc/build.sh)"
		return 0
	fi
	if [ "${LAB_REFRESH:-0}" = 1 ] || ! deb=$(cached_deb); then
		download_kernel
		deb=$(cached_deb) || die "downloaded package not found in $CACHE/debs"
	fi
	kver=$(kernel_release "$(dpkg-deb -f "$deb" Package)")
	kdir=$CACHE/kernel-$kver
	if [ -f "$kdir/.done" ]; then
		echo "$kdir"
		return 0
	fi
	rm -rf "$kdir" "$kdir.tmp"
	mkdir -p "$kdir.tmp/modules"
	x=$kdir.tmp/deb
	for f in "$deb" $(for e in $(kernel_extras); do ls "$CACHE/debs/$e$kver"_*.deb; done); do
		note "unpacking $(basename "$f")"
		dpkg-deb -x "$f" "$x"
	done
	f=$(find "$x" -type f -name 'vmlinuz*' | head -n 1)
	[ -n "$f" ] || die "$(basename "$deb") has no vmlinuz"
	cp "$f" "$kdir.tmp/vmlinuz"
	f=$(find "$x" -type f \( -name 'config-*' -path '*/boot/*' -o -name config -path '*/modules/*' \) | head -n 1)
	[ -n "$f" ] || die "no kernel config in the $kver packages"
	cp "$f" "$kdir.tmp/config"; cp "$f" "$x.config"
	grep -q '^CONFIG_LRU_GEN=y' "$kdir.tmp/config" ||
		die "the $kver kernel was built without CONFIG_LRU_GEN"
	unpack_modules "$x" "$kdir.tmp"
	echo "$kver" >"$kdir.tmp/version"
	rm -rf "$x" "$x.config"
	mv "$kdir.tmp" "$kdir"
	touch "$kdir/.done"
	echo "$kdir"
}
