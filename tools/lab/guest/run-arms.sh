#!/bin/sh
# SPDX-License-Identifier: MIT
#
# run-arms.sh LIST - runs the arms listed in LIST one after another,
# LAB_REPEAT times (default 1; round by round, so drift over the boot
# spreads over every arm; with more than one round arm NAME's results go
# to /out/arms/NAME.rR).  Each line: NAME [VAR=VALUE...] (the settings
# arm.sh reads, WORKLOAD among them); '#' starts a comment.  Scenario sizes
# come from the environment (see common.sh).  Keeps going when an arm
# fails; exits 1 if any did.
. /lab/common.sh

list=${1:?usage: run-arms.sh LIST}
failed=
make_data_files
say "scenario: ${MEMCG_MB} MiB memcg, ${VEC_MB} MiB vector file read by ${THREADS} threads (zipf ${THETA}), ${COLD_MB} MiB cold file read twice at ${COLD_AT} s, ${DURATION} s per arm"
rounds=${LAB_REPEAT:-1}
r=1
while [ "$r" -le "$rounds" ]; do
	while read -r name settings; do
		case $name in ''|'#'*) continue ;; esac
		[ "$rounds" -gt 1 ] && name=$name.r$r
		say "arm $name: $settings"
		# shellcheck disable=SC2086
		if ! env $settings /lab/arm.sh "$name"; then
			failed="$failed $name"
		fi
	done <"$list"
	r=$((r + 1))
done
[ -z "$failed" ] || die "arms failed:$failed"
