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

# fio_rows: fio's terse lines (field 6: KiB read so far, all jobs) to
# advshim-load random's columns, stamped with the guest's monotonic clock
# (/proc/uptime); "#" lines pass through.
fio_rows() {
	awk -F';' -v bs_kib=4 '
		function mono(   l) { getline l <"/proc/uptime"; close("/proc/uptime"); split(l, u, " "); return int(u[1] * 1000) }
		/^#/ { print; fflush(); next }
		$1 != "3" { next }
		{
			t = mono()
			if (!hdr) { hdr = 1; t0 = t; lt = t; print "elapsed_ms\tmono_ms\tqueries\tqps\treads_s\tp50_us\tp90_us\tp99_us\tmajflt\tmajflt_s" }
			n = $6 / bs_kib; dt = (t - lt) / 1000
			if (dt > 0.2)
				printf "%d\t%d\t%d\t%.1f\t%.1f\t-\t-\t-\t-\t-\n", t - t0, t, n - ln, (n - ln) / dt, (n - ln) / dt
			ln = n; lt = t; fflush()
		}'
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
