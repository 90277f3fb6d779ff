#!/bin/sh
# fork_lock.sh BUILD FORKS - fork while threads queue on the shim's lock
# (stress/fork_lock.c); fails when a child hangs on an inherited lock.
set -u
# A shim built with SANITIZER= needs its runtime first in LD_PRELOAD.
san_rt() {
	ldd "$1" 2>/dev/null | awk '/lib[at]san\.so/ { print $3; exit }'
}
build=$1
forks=$2
tmp=$(mktemp /tmp/advshim-forklock.XXXXXX) || exit 1
trap 'rm -f "$tmp"' EXIT
dd if=/dev/zero of="$tmp" bs=64k count=1 status=none
rt=$(san_rt "$build/libadvshim.so")
if LD_PRELOAD="${rt:+$rt }$build/libadvshim.so" "$build/stress/advshim-fork-lock" "$tmp" "$forks"; then
	echo "stress[fork-lock]: ok ($forks forks under contention)"
else
	echo "stress[fork-lock]: FAILED: a forked child hung in the shim (lock inherited from a thread queued on it at fork)"
	exit 1
fi
