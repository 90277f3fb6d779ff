#!/bin/sh
# SPDX-License-Identifier: MIT
#
# probe.sh - make lab's sampler hook (guest/arm.sh SAMPLE_HOOK, sourced):
# what the adaptive advice would see, once a second, beside the arm's own
# columns: the reader's own major faults/s (its load.tsv), the memcg's
# file / anon / active_file / inactive_file (memory.stat), and adapt-probe's
# row for the reader's pid: the effective limit and usage through
# /proc/PID/cgroup, MemAvailable, the working-set file's residency by
# mincore (all pages and 256 sampled) and what each reading cost.
# tools/adapt/lab/report.awk and adapt-replay read these columns by name.
# Needs /lab/job/adapt-probe (run.sh sends it).

HOOK_PROBE=/lab/job/adapt-probe
HOOK_PROBE_COLS=14
[ -x "$HOOK_PROBE" ] || die "adapt-probe missing from the job"

hook_header() {
	printf '\tproc_majflt_s\tfile\tanon\tactive_file\tinactive_file'
	printf '\tprobe_ms\tcg\tcg_path\tlimit\tdepth\tusage\tmem_total\tmem_avail\tpages\tresident\tresident_sampled\tread_us\tmincore_us\tsampled_us'
}

# hook_row CG DIR FILE: the columns above; "-" for what cannot be read
# (the reader not yet up, adapt-probe failing: its stderr in DIR/probe.err).
hook_row() {
	local cg=$1 dir=$2 file=$3 pid f m p
	pid=$(sed -n '/ pid=/{s/.* pid=\([0-9]*\).*/\1/p;q;}' "$dir/load.tsv" 2>/dev/null)
	f=$(tail -n 1 "$dir/load.tsv" | awk -F'\t' '$1 ~ /^[0-9]+$/ { print $10 }')
	m=$(awk '$1 == "file" { a = $2 } $1 == "anon" { b = $2 } $1 == "active_file" { c = $2 }
		$1 == "inactive_file" { d = $2 }
		END { printf "%d\t%d\t%d\t%d", a, b, c, d }' "$CG_ROOT$cg/memory.stat")
	p=
	[ -n "$pid" ] && p=$("$HOOK_PROBE" -p "$pid" "$file" 2>>"$dir/probe.err" | tail -n 1)
	[ -n "$p" ] || p=$(awk -v n=$HOOK_PROBE_COLS 'BEGIN { for (i = 1; i <= n; i++) printf "%s-", (i > 1 ? "\t" : "") }')
	printf '\t%s\t%s\t%s' "${f:--}" "$m" "$p"
}
