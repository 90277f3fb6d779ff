#!/bin/sh
# SPDX-License-Identifier: MIT
#
# replay.sh BUILD RUNDIR: the watcher's rule over every recorded arm of a
# lab run (RUNDIR/out/arms/*/frames.txt, tools/lab/guest/record.sh), beside
# what the arm's own watcher did.  One line an arm: the cold read's end,
# the first aging the arm's watcher wrote (watch.log "age", live arms) and
# the first burst advshim-watch --replay asks for on the same frames, both
# in s from the cold read's end, and their counts.  A replayed burst is a
# dry run: on a live arm the frames after the arm's own first burst show
# its effect, so only the first burst of each compares.
set -eu
B=${1:?usage: replay.sh BUILD RUNDIR}
run=${2:?usage: replay.sh BUILD RUNDIR}
W=$B/advshim-watch
[ -x "$W" ] || { echo "replay.sh: $W is missing (make all)" >&2; exit 1; }
key() { tr ' ' '\n' <"$1/arm.env" | sed -n "s/^$2=//p" | head -n 1; }
printf 'arm\tcold_end_s\tlive_first_s\tlive_ages\treplay_first_s\treplay_bursts\n'
for d in "$run"/out/arms/*/; do
	d=${d%/}
	[ -f "$d/frames.txt" ] && [ -f "$d/arm.env" ] || continue
	cend=$(key "$d" cold_end_ms)
	woff=$(key "$d" watch_offset_ms)
	live=$(awk -v off="${woff:-0}" -v c="${cend:-0}" '
		/"event":"age",/ { n++; if (n == 1) { split($0, a, "\"ts_ms\":"); t = a[2] + off } }
		END { printf "%s\t%d", n ? sprintf("%.1f", (t - c) / 1000) : "-", n }' "$d/watch.log" 2>/dev/null ||
		printf -- '-\t0')
	rep=$("$W" --replay "$d" --log-format json 2>/dev/null | awk -v c="${cend:-0}" '
		/^replay: [0-9]+ burst/ { n = $2 }
		/^replay:   at / && !f { f = 1; t = $3 }
		END { printf "%s\t%d", f ? sprintf("%.1f", t - c / 1000) : "-", n }')
	printf '%s\t%s\t%s\t%s\n' "$(basename "$d")" "$(awk -v c="${cend:-0}" 'BEGIN { printf "%.1f", c / 1000 }')" \
		"$live" "$rep"
done
