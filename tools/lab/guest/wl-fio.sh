#!/bin/sh
# SPDX-License-Identifier: MIT
#
# wl-fio.sh - workload "fio": the bug report's own reproducer, Debian's
# fio (dynamically linked: LD_PRELOAD reaches it).  Readers: THREADS fio
# processes (numjobs) read /data/vec.bin through the mmap engine at
# zipf:THETA, fadvise_hint=FIO_HINT (1: fio madvises the mapping
# MADV_RANDOM; 0: no advice).  Cold read: a second fio, the mmap engine
# reading /data/cold.bin sequentially twice (fadvise_hint=0), from COLD_AT
# s.  fio's terse status line every second becomes advshim-load's TSV
# (reads/s from the change in KiB read); the cold job's start and end
# become advshim-load stream's rows.  Interface: wl-load.sh.
. /lab/wl-common.sh
: "${FIO_HINT:=1}"

wl_prepare() {
	wl_need_prog fio
	make_data_files
}

wl_files() {
	echo /data/vec.bin /data/cold.bin
}

# fio_rows: fio's terse lines to advshim-load random's rows (fio-rows.awk).
fio_rows() {
	awk -F';' -v bs_kib=4 -f /lab/fio-rows.awk
}

wl_reader() {
	local cg=$1
	shift
	in_cgroup "$cg" env "$@" sh -c 'echo "# fio vec pid=$$ mono_ms=$(awk "{ printf \"%d\", \$1 * 1000 }" /proc/uptime)"; exec "$@"' fio \
		fio --name=vec --filename=/data/vec.bin --size="${VEC_MB}M" --ioengine=mmap \
		--rw=randread --bs=4k --fadvise_hint="$FIO_HINT" --random_distribution="zipf:$THETA" \
		--numjobs="$THREADS" --time_based --runtime="$DURATION" --group_reporting \
		--status-interval=1 --output-format=terse | fio_rows
}

wl_cold() {
	local cg=$1
	shift
	sleep "$COLD_AT"
	echo "event	loop	mono_ms	elapsed_ms	bytes	mib_s"
	printf 'start\t1\t%s\t0\t0\t0\n' "$(uptime_ms)"
	in_cgroup "$cg" env "$@" fio --name=cold --filename=/data/cold.bin --size="${COLD_MB}M" \
		--ioengine=mmap --rw=read --bs=4k --fadvise_hint=0 --loops=2 \
		--output-format=terse >/dev/null || return 1
	printf 'end\t2\t%s\t0\t%d\t0\n' "$(uptime_ms)" $((COLD_MB * 2 << 20))
}
