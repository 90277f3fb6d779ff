#!/bin/sh
# SPDX-License-Identifier: MIT
#
# rr.sh - smoke property 1: the VmFlags the kernel shows for the mapping
# of /data/vec.bin that advshim-load made with posix_madvise(RANDOM),
# without the shim (must have rr) and with its default policy (must not).
# Writes /out/rr.txt: "control|shim VmFlags...".
. /lab/common.sh

# vmflags PID: the VmFlags line of PID's mapping of /data/vec.bin.
vmflags() {
	awk '/^[0-9a-f]+-[0-9a-f]+ / { f = ($NF == "/data/vec.bin") }
	     f && /^VmFlags:/ { sub(/^VmFlags: */, ""); print; exit }' "/proc/$1/smaps"
}

probe() {
	label=$1
	shift
	env "$@" advshim-load random -a random -t 1 -d 5 /data/vec.bin >/dev/null 2>/tmp/rr.err &
	pid=$!
	flags=
	i=0
	while [ -z "$flags" ] && [ $i -lt 40 ]; do
		sleep 0.1
		flags=$(vmflags "$pid" 2>/dev/null)
		i=$((i + 1))
	done
	# Give posix_madvise time to run after the mapping appears.
	sleep 1
	flags=$(vmflags "$pid" 2>/dev/null)
	kill "$pid" 2>/dev/null
	wait "$pid"
	echo "$label ${flags:-none}" >>/out/rr.txt
	say "$label: VmFlags ${flags:-(mapping not found: $(cat /tmp/rr.err))}"
}

make_data_files
rm -f /out/rr.txt
probe control ADVSHIM_LAB=off
need_bin libadvshim.so
probe shim LD_PRELOAD=/opt/advshim/bin/libadvshim.so
