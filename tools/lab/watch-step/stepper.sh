#!/bin/sh
# SPDX-License-Identifier: MIT
#
# stepper.sh CG K DIR AGAIN AT - hand-made aging for the watch-step
# experiments.  Waits for the cold read's second pass to end (the oracle:
# cold.tsv), plus AT seconds when AT is "end+N", then writes K "+" commands
# in one write(2), each for the next max_seq.  AGAIN=1: afterwards, each
# time file min_seq has passed the oldest generation of the last step and
# the memcg still refaults > 300/s, K more steps (at most 3 rounds).
. /lab/common.sh
. /lab/job/extra.sh
cg=$1 k=$2 dir=$3 again=$4 at=$5

step() {
	set -- $(lru_gen_of "$cg")
	id=$1 max=$3
	cmd= i=0
	while [ $i -lt "$k" ]; do
		cmd="$cmd+ $id 0 $((max + i));"
		i=$((i + 1))
	done
	echo "$(uptime_ms) before $(lru_gen_rows "$cg") fmin=$(file_min_seq "$cg")"
	echo "$cmd" >"$LRU_GEN_FILE" || echo "$(uptime_ms) write failed"
	echo "$(uptime_ms) wrote '$cmd' after $(lru_gen_rows "$cg") fmin=$(file_min_seq "$cg")"
}

until awk -F'\t' '$1 == "end" && $2 == 2 { f = 1 } END { exit !f }' "$dir/cold.tsv" 2>/dev/null; do
	sleep 0.1
done
echo "$(uptime_ms) cold read ended"
case $at in end+*) sleep "${at#end+}" ;; esac
step
[ "$again" = 1 ] || exit 0
round=0
while [ $round -lt 3 ]; do
	target=$(( $(file_min_seq "$cg") + 1 ))
	until [ "$(file_min_seq "$cg")" -ge "$target" ]; do sleep 0.2; done
	r0=$(memstat "$cg" workingset_refault_file); sleep 1
	r1=$(memstat "$cg" workingset_refault_file)
	echo "$(uptime_ms) file min_seq reached $target; refaults $((r1 - r0))/s"
	[ $((r1 - r0)) -gt 300 ] || continue
	step
	round=$((round + 1))
done
