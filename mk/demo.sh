#!/bin/sh
# demo.sh BUILD - `make demo`: advshim's main job, shown on this machine.
#
# A program maps a file and calls posix_madvise(POSIX_MADV_RANDOM), the
# call Lucene makes for its vector files.  Run plain, the kernel keeps
# MADV_RANDOM in force on the mapping (VmFlags `rr`), which is what stops
# MGLRU from aging those pages.  Run under the shim with the embedded
# default policy, the advice is rewritten to NORMAL and `rr` is gone.
# `advshim inspect PID` shows both from /proc/PID/smaps.
#
# Then the A/B experiment: the stall scenario (random readers over a file
# that just fits a memcg, a cold file read twice) with and without the
# shim.  On a real MGLRU kernel booted under qemu (the lab) when qemu and
# Debian's kernel package can be had; otherwise on this machine's kernel,
# and the output says which.  DEMO_AB=host|lab|none forces the choice.
set -u
build=${1:-build}
make_cmd=${MAKE:-make}
advshim=$build/advshim
prog=$build/tests/shim/advprog
tmp=
prog_pid=

cleanup() {
	exec 3>&- 2>/dev/null
	[ -n "$prog_pid" ] && kill "$prog_pid" 2>/dev/null
	[ -n "$tmp" ] && rm -rf "$tmp"
}

die() {
	echo "demo: $*" >&2
	exit 1
}

setup() {
	for f in "$advshim" "$prog" "$build/libadvshim.so"; do
		[ -x "$f" ] || [ -f "$f" ] || die "$f missing: run make first"
	done
	tmp=$(mktemp -d /tmp/advshim-demo.XXXXXX) || die "mktemp failed"
	trap cleanup EXIT INT TERM
	data=$tmp/vectors.vec
	dd if=/dev/urandom of="$data" bs=1M count=16 status=none || die "cannot write $data"
	pages=$((16 * 256))
}

# start_prog CMD...: run CMD (advprog -p ...) until it reports "ready PID".
start_prog() {
	rm -f "$tmp/ctl" "$tmp/out"
	mkfifo "$tmp/ctl" || die "mkfifo failed"
	"$@" < "$tmp/ctl" > "$tmp/out" 2>&1 &
	exec 3> "$tmp/ctl"		# held open: the program waits for EOF
	i=0
	while ! grep -q '^ready' "$tmp/out" 2>/dev/null; do
		i=$((i + 1))
		[ $i -gt 100 ] && { cat "$tmp/out" >&2; die "program did not start"; }
		sleep 0.05
	done
	prog_pid=$(awk '/^ready/ { print $2 }' "$tmp/out")
}

stop_prog() {
	exec 3>&-
	wait 2>/dev/null
	prog_pid=
}

# show_inspect: the shim lines and the demo file's row of advshim inspect.
show_inspect() {
	"$advshim" inspect "$prog_pid" > "$tmp/inspect" || die "advshim inspect failed"
	grep -E '^pid |^  |^ADVICE' "$tmp/inspect" | sed 's/^/    /'
	grep -F "$data" "$tmp/inspect" | sed 's/^/    /'
}

advice_of_data() {
	grep -F "$data" "$tmp/inspect" | awk '{ print $1 }'
}

demo_plain() {
	echo "1) plain: $prog -p -P $pages $data"
	start_prog "$prog" -p -P "$pages" "$data"
	echo "   posix_madvise(RANDOM) returned; advshim inspect $prog_pid:"
	show_inspect
	plain_advice=$(advice_of_data)
	stop_prog
	echo
}

demo_shim() {
	echo "2) under the shim: $advshim run -- $prog -p -P $pages $data"
	ADVSHIM_LIB=$build/libadvshim.so start_prog "$advshim" run -- "$prog" -p -P "$pages" "$data"
	echo "   posix_madvise(RANDOM) returned; advshim inspect $prog_pid:"
	show_inspect
	shim_advice=$(advice_of_data)
	stop_prog
	echo
}

verdict() {
	if [ "$plain_advice" = rr ] && [ "$shim_advice" = "-" ]; then
		echo "result: without the shim MADV_RANDOM is in force (rr), so MGLRU stops aging"
		echo "        these pages; with the shim the advice became NORMAL (the file fits) and rr is gone."
		return 0
	fi
	echo "result: UNEXPECTED: advice in force plain='$plain_advice' shim='$shim_advice'"
	return 1
}

demo_ab_lab() {
	echo "3) the A/B experiment on a real MGLRU kernel (Debian 6.12 under qemu):"
	echo "   make lab-demo  (three arms: MADV_RANDOM, advshim default policy (adaptive), advshim-watch)"
	echo
	$make_cmd lab-demo BUILD="$build"
}

demo_ab_host() {
	echo "3) the A/B experiment on this machine's kernel ($(uname -r), $1):"
	echo "   $build/advshim-ab -q -o $tmp/ab   (the built-in experiment: 2 arms x 90 s)"
	echo
	"$build/advshim-ab" -q -o "$tmp/ab" || return 1
	mkdir -p "$build/demo" && cp -r "$tmp/ab/." "$build/demo/" &&
		echo "   results kept in $build/demo/ (plot: $build/demo/ab.png)"
}

# demo_ab: pick where the experiment runs and say why.
demo_ab() {
	mode=${DEMO_AB:-auto}
	[ "$mode" = none ] && return 0
	if [ -r /sys/kernel/mm/lru_gen/enabled ]; then
		mglru="MGLRU $(cat /sys/kernel/mm/lru_gen/enabled)"
	else
		mglru="no MGLRU: classic LRU, which recovers by itself"
	fi
	if [ "$mode" = auto ]; then
		if bash tools/lab/lab.sh available; then
			mode=lab
		else
			echo "   (the lab cannot run here, so the experiment runs on the host kernel)"
			mode=host
		fi
	fi
	case $mode in
	lab) demo_ab_lab ;;
	host) demo_ab_host "$mglru" ;;
	*) die "DEMO_AB=$mode: expected auto, lab, host or none" ;;
	esac
}

main() {
	setup
	echo "advshim demo: a program maps a 16 MiB file and calls posix_madvise(POSIX_MADV_RANDOM)"
	echo "(the embedded default policy, adaptive: RANDOM on a file mapping becomes NORMAL"
	echo " while the process's RANDOM files fit in its memory cgroup, and stays RANDOM when not)"
	echo
	demo_plain
	demo_shim
	verdict || exit 1
	echo
	demo_ab
}

main
