#!/bin/sh
# SPDX-License-Identifier: MIT
#
# record.sh - what an arm records for the watcher's replay (sourced by
# arm.sh after common.sh; uses arm.sh's $dir and $cg):
#
#   frames.txt   lru_gen_full once a second, whole (every memcg, every
#                node): a line "@ N MONO_MS" (frame N, read at guest
#                CLOCK_MONOTONIC MONO_MS), then the kernel's text as it
#                printed it.  One cat per second, no parsing in the guest:
#                advshim-watch --replay picks the arm's memcg (arm.env's
#                memcg=) out of it (tools/watch/watch_replay.c).
#   rr.before    the files under /data the memcg's processes map, a line
#                "rr PATH" when a mapping of PATH carries MADV_RANDOM
#                (VmFlags rr), "- PATH" when none does: 3 s before the
#                cold read
#   rr.after     the same, 2 s after the cold read ended
#   resid.tsv    "MONO_MS PATH MIB" every 5 s for every file of rr.before
#                with rr (the RANDOM-mapped files: .vec and .vex for a
#                Lucene node), from the look that found one
#
# Nothing here fails the arm: a file the kernel does not give is left
# out, and the replay says what is missing.

# rec_now_ms: CLOCK_MONOTONIC in ms from /proc/uptime, without a fork
# (uptime_ms spawns awk; the recorder runs every second in a TCG guest).
rec_now_ms() {
	local up cs
	read -r up cs </proc/uptime
	cs=${up#*.}
	echo "${up%.*}${cs}0"
}

# rec_frame N: frame N of lru_gen_full onto frames.txt (one cat).
rec_frame() {
	echo "@ $1 $(rec_now_ms)" >>"$dir/frames.txt"
	cat "${LRU_GEN_FILE}_full" >>"$dir/frames.txt" 2>/dev/null
}

# rec_rr OUT: the rr state of the memcg's processes' mappings under /data.
rec_rr() {
	local p
	for p in $(cat "$CG_ROOT$cg/cgroup.procs" 2>/dev/null); do
		awk '/^[0-9a-f]+-[0-9a-f]+ / { f = (index($NF, "/data/") == 1) ? $NF : "" }
		     f != "" && /^VmFlags:/ { print (/ rr/ ? "rr" : "-"), f }' \
			"/proc/$p/smaps" 2>/dev/null
	done | awk '{ if (!($2 in s) || $1 == "rr") s[$2] = $1 }
		    END { for (f in s) print s[f], f }' | sort -k2 >"$1.tmp"
	mv "$1.tmp" "$1"
}

# rec_resid: the residency of the RANDOM-mapped files of rr.before.
rec_resid() {
	local files now
	files=$(cat "$dir/rr.files" 2>/dev/null)
	[ -n "$files" ] || return 0
	now=$(rec_now_ms)
	# shellcheck disable=SC2086
	advshim-resid $files | tr '\t' '\n' |
		paste -d ' ' - "$dir/rr.files" 2>/dev/null |
		awk -v t="$now" '{ print t, $2, $1 }' >>"$dir/resid.tsv"
}

# rec_tick N: the recording's share of sampler tick N (once a second):
# a frame every tick; the rr look once, 3 ticks before the cold read
# (COLD_AT; at tick 10 without one), and once 2 s after its end; the
# residency every 5th tick once rr.before has an rr file.  The rr looks and
# the residency fork several programs and walk page tables, which under TCG
# took enough of the guest's CPU to slow a fio arm's recovery several-fold
# when they ran every tick (docs/lab-journal.md, 2026-12-04): only the
# frame, one cat, runs every second.
rec_tick() {
	local at=$(( ${COLD_AT:-0} > 3 ? COLD_AT - 3 : 10 ))
	rec_frame "$1"
	if [ "$1" = "$at" ]; then
		rec_rr "$dir/rr.before" &&
			awk '$1 == "rr" { print $2 }' "$dir/rr.before" >"$dir/rr.files"
	elif [ ! -f "$dir/rr.after" ] && grep -q '^end' "$dir/cold.tsv" 2>/dev/null; then
		rec_after=$(( ${rec_after:-0} + 1 ))
		[ "$rec_after" -ge 2 ] && rec_rr "$dir/rr.after"
	fi
	[ $(($1 % 5)) = 0 ] && [ -s "$dir/rr.files" ] && rec_resid
	return 0
}
