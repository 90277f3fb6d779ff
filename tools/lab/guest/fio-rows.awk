# SPDX-License-Identifier: MIT
#
# fio-rows.awk - fio's terse status lines (--status-interval=1
# --output-format=terse --group_reporting) to advshim-load random's rows,
# for the lab's fio workload (wl-fio.sh):
#   fio ... | awk -F';' -v bs_kib=4 -f fio-rows.awk
# Field 6 of a terse line is the KiB read so far by all the group's jobs:
# its change over the time between two lines, in blocks of bs_kib, is the
# interval's reads.  Lines are stamped with the guest's monotonic clock
# (/proc/uptime; -v clock=FILE for another); "#" lines pass through.
# Columns: elapsed_ms mono_ms queries qps reads_s, then "-" for the
# latencies and faults fio's terse line does not give per interval.

function mono(   l, u) {
	getline l <clock
	close(clock)
	split(l, u, " ")
	return int(u[1] * 1000)
}

BEGIN { if (clock == "") clock = "/proc/uptime" }
/^#/ { print; fflush(); next }
$1 != "3" { next }
{
	t = mono()
	if (!hdr) {
		hdr = 1; t0 = t; lt = t
		print "elapsed_ms\tmono_ms\tqueries\tqps\treads_s\tp50_us\tp90_us\tp99_us\tmajflt\tmajflt_s"
	}
	n = $6 / bs_kib; dt = (t - lt) / 1000
	if (dt > 0.2)
		printf "%d\t%d\t%d\t%.1f\t%.1f\t-\t-\t-\t-\t-\n", t - t0, t, n - ln, (n - ln) / dt, (n - ln) / dt
	ln = n; lt = t; fflush()
}
