#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# lab.sh - the advshim MGLRU lab: boot a Debian kernel that has MGLRU under
# qemu, run advshim experiments inside it, bring the results back.
#
# This machine's kernel has no lru_gen, so the stall and its fixes can only
# be measured in a VM.  The guest is a busybox initramfs holding the
# project's binaries (with the shared libraries ldd lists), mke2fs and the
# brd/virtio_blk modules; the data lives in an ext4 filesystem on a brd
# ramdisk (page cache on tmpfs is shmem and would not show the bug).  A job
# (a guest script plus its files) is appended to the base initramfs as a
# second cpio archive; the guest tars /out onto a raw virtio disk that the
# host unpacks.
#
# Usage: tools/lab/lab.sh COMMAND [ARGS]
#   available        exit 0 when qemu and the kernel package can be had
#   fetch            download (once) and unpack the kernel package
#   initramfs        build the base initramfs
#   probe            print the accelerator qemu can use here (kvm|tcg)
#   shell            boot and give an interactive guest shell (debugging)
#   job OUT SCRIPT [FILE...]
#                    boot, run SCRIPT in the guest with FILEs next to it
#                    in /lab/job, unpack its /out into OUT
#   arms NAME ARMS [VAR=VALUE...]
#                    boot once and run the arms of the file ARMS (NAME
#                    VAR=VALUE... a line: guest/arm.sh's settings) in
#                    the scenario VAR=VALUE..., LAB_REPEAT rounds, with
#                    LAB_JOB_FILES in /lab/job; prints the run directory
#                    (make lab: tools/adapt/lab/run.sh renders it)
#   smoke            the lab smoke test (make lab-smoke)
#   lab              the five-arm stall experiment (make lab-stall)
#   demo             a short three-arm experiment for make demo
#   summary RUNDIR   re-render the tables of a finished run
#   rules            try the lru_gen rules advshim-watch relies on (make lab-rules)
#   matrix           the demo arms on every kernel, one table (make lab-matrix)
#   programs         fio, LMDB, bbolt and advshim-load as the readers, each
#                    fix, LAB_REPEAT runs (make lab-programs)
#   merge OUT RUNDIR...  the programs runs of several boots as one summary
#                    (OUT/runs.tsv, OUT/summary.tsv)
#   matrix-report [DIR]  re-render a matrix run
#   fixtures [DIR]   copy the kernel text of the latest rules runs and of a
#                    matrix run into tests/fixtures/kernels/
#
# Environment:
#   LAB_KERNEL=7.3|7.2|6.12|6.1  kernel series (default 6.12; 7.x from
#                         Debian's trixie-backports and sid, see kernel.sh)
#   LAB_DEBIAN_MIRROR=URL the Debian mirror for 7.x (default: the one this
#                         machine's apt sources use)
#   BUILD=DIR             project build directory (default build)
#   LAB_DIR=DIR           lab work directory (default $BUILD/lab)
#   LAB_ACCEL=auto|kvm|tcg  (default auto: KVM if a probe boot works)
#   LAB_MEM_MB, LAB_SMP   guest memory and CPUs (2048, 2)
#   LAB_ICOUNT=N          TCG virtual time: -icount shift=N (default 3);
#                         0 = real time, multi-threaded TCG
#   LAB_TIMEOUT=S         the guest job's limit in guest seconds (per
#                         command default); the host allows
#                         LAB_WALL_FACTOR (4) times that in wall time
#   LAB_HANG_S=S          kill a guest whose console is silent this long (300)
#   LAB_REFRESH=1         re-resolve the newest kernel package version
#   LAB_VERBOSE=1         show the whole guest console
set -euo pipefail
shopt -s inherit_errexit

LAB_SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOP=$(cd "$LAB_SRC/../.." && pwd)
BUILD=${BUILD:-build}
case $BUILD in /*) ;; *) BUILD=$TOP/$BUILD ;; esac
LAB_DIR=${LAB_DIR:-$BUILD/lab}
CACHE=$LAB_DIR/cache
LAB_KERNEL=${LAB_KERNEL:-6.12}
LAB_ACCEL=${LAB_ACCEL:-auto}
LAB_MEM_MB=${LAB_MEM_MB:-2048}
LAB_SMP=${LAB_SMP:-2}
LAB_VERBOSE=${LAB_VERBOSE:-0}
# TCG guests keep time by instruction count (qemu -icount shift=N): one
# guest second is 10^9/2^N instructions whatever the host does, so rates
# measured on a busy shared host still compare.  0 = real time with
# multi-threaded TCG (twice the speed on 2 idle cores, noisy rates).
LAB_ICOUNT=${LAB_ICOUNT:-3}
# LAB_TIMEOUT (per command) is the guest's own limit for its job, in guest
# seconds; the host kills qemu after LAB_WALL_FACTOR times that in wall
# seconds, or when the guest console stays silent for LAB_HANG_S s.
LAB_WALL_FACTOR=${LAB_WALL_FACTOR:-4}
LAB_HANG_S=${LAB_HANG_S:-300}

# The project's binaries the guest gets (those that exist are copied; the
# jobs check for the ones they need and say which is missing).
PROJECT_BINS="advshim libadvshim.so advshim-watch advshim-load advshim-ab advshim-lmdb advshim-bolt advshim-resid"
# Programs installed on this machine that the lab runs as workloads (make lab-programs),
# copied to /bin with their libraries when installed (mk/deps.sh: fio).
HOST_BINS="fio"
# Kernel modules the guest loads, in order (their dependencies are added).
GUEST_MODULES="brd virtio_pci virtio_blk"

# A failing step is reported once, by the innermost shell that saw it (a
# command substitution's subshell shares $$, hence the marker file); die
# reports its own reason and sets the marker too.
LAB_ERR_MARK=${TMPDIR:-/tmp}/advshim-lab-err.$$

die() {
	echo "lab: error: $*" >&2
	: >"$LAB_ERR_MARK" 2>/dev/null || true
	exit 1
}

# lab_failed RC COMMAND LINE FUNCS: the ERR trap.  Names the command that
# failed under set -e, its exit status, where it stands and the chain of
# functions it ran in, unless that failure was already reported.
lab_failed() {
	local rc=$1 cmd=$2 line=$3 funcs=${4% main}
	[ -e "$LAB_ERR_MARK" ] && return 0
	: >"$LAB_ERR_MARK" 2>/dev/null || true
	echo "lab: error: '$cmd' failed (exit $rc) at line $line of ${BASH_SOURCE[1]##*/} in ${funcs:-main}" >&2
}

set -E
trap 'lab_failed $? "$BASH_COMMAND" "$LINENO" "${FUNCNAME[*]}"' ERR
trap 'rm -f "$LAB_ERR_MARK"' EXIT

note() {
	echo "lab: $*" >&2
}

need_cmd() {
	command -v "$1" >/dev/null 2>&1 ||
		die "'$1' not found: install the Debian package '$2' (make deps does)"
}

# ---------------------------------------------------------------- kernel

# shellcheck source=tools/lab/kernel.sh
. "$LAB_SRC/kernel.sh"

# ------------------------------------------------------------- initramfs

# Copies an ELF file and, unless it is static (a Go binary such as
# advshim-bolt, busybox), every shared library ldd lists and the dynamic
# loader into the staging root at the same paths.  Fails with a message
# naming the file when ldd cannot read a dynamic one.
copy_elf() {
	local src=$1 dst=$2 root=$3 lib libs
	mkdir -p "$(dirname "$root$dst")"
	cp -L "$src" "$root$dst"
	file_is_static "$src" && return 0
	libs=$(ldd "$src" 2>&1) || die "ldd $src failed: $libs"
	echo "$libs" | awk '
		/=> \// { print $3; next }
		/^[ \t]*\// { print $1 }' |
	while read -r lib; do
		[ -e "$root$lib" ] && continue
		mkdir -p "$(dirname "$root$lib")"
		cp -L "$lib" "$root$lib"
	done
}

build_initramfs() {
	local kdir=$1
	local out=$LAB_DIR/initramfs-$(cat "$kdir/version").cpio.gz
	local root=$LAB_DIR/initramfs.root.$$ b a f
	need_cmd cpio cpio
	need_cmd gzip gzip
	need_cmd ldd libc-bin
	need_cmd mke2fs e2fsprogs
	[ -x /bin/busybox ] && file_is_static /bin/busybox ||
		die "a static busybox is needed: install the Debian package 'busybox-static'"
	rm -rf "$root"
	mkdir -p "$root"/{bin,sbin,dev,proc,sys,tmp,run,data,out,etc,lab/job,lib/modules}
	cp /bin/busybox "$root/bin/busybox"
	for a in $(/bin/busybox --list); do
		[ "$a" = busybox ] || ln -sf busybox "$root/bin/$a"
	done
	copy_elf "$(command -v mke2fs)" /sbin/mke2fs "$root"
	[ -f /etc/mke2fs.conf ] && cp /etc/mke2fs.conf "$root/etc/"
	# A kernel built here (LAB_KERNEL=7.3-rfc, 6.12-rfc) has everything built in:
	# an empty module list and no .ko files.
	cp "$kdir/modules/order" "$root/lib/modules/"
	for f in "$kdir"/modules/*.ko; do
		[ -f "$f" ] && cp "$f" "$root/lib/modules/"
	done
	mkdir -p "$root/opt/advshim/bin"
	for b in $PROJECT_BINS; do
		[ -e "$BUILD/$b" ] || continue
		copy_elf "$BUILD/$b" "/opt/advshim/bin/$b" "$root"
	done
	for b in $HOST_BINS; do
		command -v "$b" >/dev/null 2>&1 || continue
		copy_elf "$(command -v "$b")" "/bin/$b" "$root"
	done
	cp "$LAB_SRC"/guest/*.sh "$LAB_SRC"/guest/*.awk "$root/lab/" 2>/dev/null || true
	cp "$LAB_SRC/guest/init" "$root/init"
	mkdir -p "$root/lab/experiments"
	cp "$LAB_SRC"/experiments/* "$root/lab/experiments/" 2>/dev/null || true
	chmod 755 "$root/init"; find "$root/lab" -name "*.sh" -exec chmod 755 {} +
	(cd "$root" && find . | LC_ALL=C sort | cpio -o -H newc --quiet | gzip -1) >"$out.tmp.$$"
	mv "$out.tmp.$$" "$out"
	rm -rf "$root"
	echo "$out"
}

# file_is_static FILE: FILE is an ELF file with no dynamic section
# (nothing for ldd to list: a Go binary such as advshim-bolt, busybox).
# Read from the program headers, not from ldd's exit status, which also
# fails on a dynamic file ldd cannot run.
file_is_static() {
	local f=$1 out
	[ -f "$f" ] || return 1
	if command -v readelf >/dev/null 2>&1; then
		out=$(readelf -lW "$f" 2>/dev/null) || return 1
		! grep -q '^ *DYNAMIC ' <<<"$out"
	else
		out=$(ldd "$f" 2>&1) && return 1
		case $out in *"not a dynamic executable"*) return 0 ;; esac
		return 1
	fi
}

# -------------------------------------------------------------- booting

# KVM is used when a probe boot works; in nested setups it fails at once
# ("failed to set MSR", "emulation failure"), then TCG is used.  The
# answer is cached per host boot.
pick_accel() {
	local kdir=$1 base=$2 cache=$LAB_DIR/accel boot_id
	case $LAB_ACCEL in
	kvm|tcg) echo "$LAB_ACCEL"; return 0 ;;
	auto) ;;
	*) die "LAB_ACCEL=$LAB_ACCEL: use auto, kvm or tcg" ;;
	esac
	boot_id=$(cat /proc/sys/kernel/random/boot_id 2>/dev/null || echo none)
	if [ -f "$cache" ] && [ "$(head -n 1 "$cache")" = "$boot_id" ]; then
		tail -n 1 "$cache"
		return 0
	fi
	local accel=tcg
	if [ -w /dev/kvm ]; then
		local probe=$LAB_DIR/probe
		rm -rf "$probe"; mkdir -p "$probe"
		printf '#!/bin/sh\necho LAB-KVM-OK\n' >"$probe/job.sh"
		if run_qemu kvm "$kdir" "$base" "$probe" 60 "$probe/job.sh" \
			>"$probe/log" 2>&1 && grep -q LAB-KVM-OK "$probe/out/console.log" 2>/dev/null; then
			accel=kvm
		else
			note "KVM does not work here ($(grep -m1 -i -E 'error|fail' "$probe/qemu.err" || echo 'probe boot failed')); using TCG"
		fi
	fi
	printf '%s\n%s\n' "$boot_id" "$accel" >"$cache"
	echo "$accel"
}

# run_qemu ACCEL KDIR BASE_INITRAMFS RUNDIR TIMEOUT SCRIPT [FILE...]
# Boots with SCRIPT as the guest job, streams the console, unpacks the
# guest's /out into RUNDIR/out.  Returns the job's exit status.
run_qemu() {
	local accel=$1 kdir=$2 base=$3 rundir=$4 tmo=$5 script=$6 f
	shift 6
	local jobroot=$rundir/job.root cpu=max accel_opt
	rm -rf "$jobroot" "$rundir/out"
	mkdir -p "$jobroot/lab/job" "$rundir/out"
	cp "$script" "$jobroot/lab/job/job.sh"
	for f in "$@"; do
		cp -r "$f" "$jobroot/lab/job/"
	done
	chmod 755 "$jobroot/lab/job/job.sh"
	(cd "$jobroot" && find . | LC_ALL=C sort | cpio -o -H newc --quiet | gzip -1) \
		>"$rundir/job.cpio.gz"
	cat "$base" "$rundir/job.cpio.gz" >"$rundir/initrd"
	rm -rf "$jobroot"
	# The results disk: the guest writes a tar stream onto it.
	rm -f "$rundir/out.img"
	truncate -s 512M "$rundir/out.img"
	local icount=
	case $accel in
	kvm) accel_opt=kvm; cpu=host ;;
	*)
		if [ "$LAB_ICOUNT" != 0 ]; then
			# Virtual time from instruction counts: rates measured in
			# the guest no longer depend on how busy the host is.
			accel_opt=tcg
			icount="-icount shift=$LAB_ICOUNT,sleep=off"
		else
			accel_opt=tcg,thread=multi
		fi
		;;
	esac
	local rc=0 wall=$((tmo * LAB_WALL_FACTOR))
	rm -f "$rundir/hung"
	timeout -k 10 "$wall" qemu-system-x86_64 \
		-accel "$accel_opt" $icount -cpu "$cpu" -m "$LAB_MEM_MB" -smp "$LAB_SMP" \
		-kernel "$kdir/vmlinuz" -initrd "$rundir/initrd" \
		-append "console=ttyS0 panic=-1 quiet loglevel=4 lab.timeout=$tmo $(kernel_boot_args "$accel")" \
		-drive "file=$rundir/out.img,format=raw,if=virtio,cache=unsafe" \
		-display none -vga none -serial stdio -monitor none \
		-nodefaults -no-reboot </dev/null >"$rundir/console.raw" 2>"$rundir/qemu.err" &
	local qpid=$!
	show_console "$rundir/console.raw" "$qpid" &
	local spid=$!
	watch_hang "$rundir" "$qpid" &
	local hpid=$!
	wait "$qpid" || rc=$?
	kill "$hpid" 2>/dev/null; wait "$hpid" 2>/dev/null || true
	wait "$spid" 2>/dev/null || true
	if [ -f "$rundir/hung" ]; then
		note "the guest printed nothing for $LAB_HANG_S s (it prints a line every 10 guest s): killed as hung (console: $rundir/console.raw)"
		return 124
	fi
	if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
		note "the guest did not finish within $wall s wall ($LAB_WALL_FACTOR x its $tmo guest s): killed (console: $rundir/console.raw)"
		return 124
	fi
	if [ "$rc" != 0 ]; then
		note "qemu failed (exit $rc): $(tail -n 3 "$rundir/qemu.err" | tr '\n' ' ')"
		return "$rc"
	fi
	tar -xf "$rundir/out.img" -C "$rundir/out" 2>/dev/null ||
		{ note "the guest wrote no results (console: $rundir/console.raw)"; return 1; }
	rm -f "$rundir/out.img"
	[ -f "$rundir/out/status" ] ||
		{ note "the guest job left no status (console: $rundir/console.raw)"; return 1; }
	local status
	status=$(cat "$rundir/out/status")
	[ "$status" = 0 ] ||
		note "the guest job $(basename "$script") exited $status (console: $rundir/console.raw, results: $rundir/out)"
	return "$status"
}

# watch_hang RUNDIR PID: kills PID (qemu under timeout) when the guest
# console has not grown for LAB_HANG_S s.  Under icount a guest second
# costs more wall time the busier the host is, so the wall-clock limit is
# generous and a silent console is what tells a hung guest.  A KVM
# internal error stops the virtual CPUs for good while qemu stays up (the
# KVM probe in a nested setup): killed within a second, as failed.
watch_hang() {
	local rundir=$1 pid=$2 last=-1 size quiet=0 tick=0
	trap - ERR
	while kill -0 "$pid" 2>/dev/null; do
		sleep 1
		if grep -q -E 'KVM internal error|emulation failure' "$rundir/qemu.err" 2>/dev/null; then
			kill "$pid" 2>/dev/null
			return 0
		fi
		tick=$((tick + 1))
		[ $((tick % 5)) = 0 ] || continue
		size=$(stat -c %s "$rundir/console.raw" 2>/dev/null || echo 0)
		if [ "$size" = "$last" ]; then
			quiet=$((quiet + 5))
		else
			quiet=0
			last=$size
		fi
		if [ "$quiet" -ge "$LAB_HANG_S" ]; then
			touch "$rundir/hung"
			kill "$pid" 2>/dev/null
			return 0
		fi
	done
}

# Streams the guest console while qemu runs: lines the guest scripts mark
# with "lab:" (everything with LAB_VERBOSE=1), and kernel warnings.
show_console() {
	local file=$1 pid=$2
	trap - ERR
	tail -n +1 -F --pid="$pid" "$file" 2>/dev/null | sed -u 's/\r$//' |
	if [ "$LAB_VERBOSE" = 1 ]; then
		sed -u 's/^/  | /'
	else
		grep --line-buffered -a -E '^(lab:|\[ *[0-9.]+\] .*(BUG|Oops|panic|oom|Killed|WARNING))' |
			sed -u 's/^lab: /  | /'
	fi
}

# boot_job RUNDIR TIMEOUT SCRIPT [FILE...]: everything needed, then a boot.
boot_job() {
	local rundir=$1 tmo=$2 kdir base accel
	shift 2
	need_cmd qemu-system-x86_64 qemu-system-x86
	need_cmd timeout coreutils
	kdir=$(fetch_kernel)
	base=$(build_initramfs "$kdir")
	accel=$(pick_accel "$kdir" "$base")
	local how=$accel
	[ "$accel" = tcg ] && [ "$LAB_ICOUNT" != 0 ] && how="tcg, icount shift=$LAB_ICOUNT"
	note "booting $(cat "$kdir/version") ($how, ${LAB_SMP} CPUs, ${LAB_MEM_MB} MiB), limit ${tmo} guest s, host load $(cut -d' ' -f1 /proc/loadavg)"
	mkdir -p "$rundir"
	run_qemu "$accel" "$kdir" "$base" "$rundir" "$tmo" "$@"
}

# ------------------------------------------------------------- commands

cmd_available() {
	command -v qemu-system-x86_64 >/dev/null 2>&1 ||
		{ echo "lab: unavailable: qemu-system-x86_64 missing (Debian package qemu-system-x86)"; return 1; }
	[ -x /bin/busybox ] && file_is_static /bin/busybox ||
		{ echo "lab: unavailable: static busybox missing (Debian package busybox-static)"; return 1; }
	if cached_deb >/dev/null; then
		echo "lab: available (kernel $(basename "$(cached_deb)") cached)"
		return 0
	fi
	# The lab's own lists (7.x) are fetched on first use.
	if [ "$(kernel_source)" = private ] && [ ! -f "$PRIV_APT/.updated" ]; then
		(priv_apt_update) 2>/dev/null ||
			{ echo "lab: unavailable: cannot fetch the package lists of $LAB_APT_SUITES for the $LAB_KERNEL kernel"; return 1; }
	fi
	if [ -n "$(apt_candidates | head -n 1)" ]; then
		echo "lab: available (kernel package $(apt_candidates | head -n 1) from Debian)"
		return 0
	fi
	echo "lab: unavailable: no package of the $LAB_KERNEL kernel series cached or in $(kernel_where)"
	return 1
}

cmd_shell() {
	local kdir base accel
	kdir=$(fetch_kernel)
	base=$(build_initramfs "$kdir")
	accel=$(pick_accel "$kdir" "$base")
	[ "$accel" = kvm ] && accel=kvm || accel=tcg,thread=multi
	exec qemu-system-x86_64 -accel "$accel" -cpu max -m "$LAB_MEM_MB" -smp "$LAB_SMP" \
		-kernel "$kdir/vmlinuz" -initrd "$base" \
		-append "console=ttyS0 panic=-1 quiet lab.shell=1" -nographic -no-reboot
}

cmd_job() {
	[ $# -ge 2 ] || die "usage: lab.sh job OUTDIR SCRIPT [FILE...]"
	local out=$1
	shift
	boot_job "$out" "${LAB_TIMEOUT:-900}" "$@"
}

main() {
	local cmd=${1:-}
	[ $# -gt 0 ] && shift
	kernel_series >/dev/null
	case $cmd in
	available) cmd_available ;;
	fetch) fetch_kernel ;;
	initramfs) build_initramfs "$(fetch_kernel)" ;;
	probe) local k; k=$(fetch_kernel); pick_accel "$k" "$(build_initramfs "$k")" ;;
	shell) cmd_shell ;;
	job) cmd_job "$@" ;;
	arms|smoke|lab|demo|summary|rules|matrix|matrix-report|fixtures|programs|merge)
		# shellcheck source=tools/lab/experiments.sh
		. "$LAB_SRC/experiments.sh"
		# shellcheck source=tools/lab/programs.sh
		. "$LAB_SRC/programs.sh"
		# shellcheck source=tools/lab/matrix.sh
		. "$LAB_SRC/matrix.sh"
		"exp_$cmd" "$@"
		;;
	-h|--help|help|'') sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' ;;
	*) die "unknown command '$cmd' (try: lab.sh help)" ;;
	esac
}

# One line, parsed whole before it runs: editing this file while a lab runs
# cannot make bash read on from a shifted offset.
main "$@"; exit $?
