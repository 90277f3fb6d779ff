#!/bin/sh
# SPDX-License-Identifier: MIT
#
# job.sh - the guest job of tools/adapt/lab/run.sh: runs the arms listed
# in /lab/job/arms (NAME VAR=VALUE... per line, '#' comments) with
# /lab/job/arm.sh, one after another, LAB_REPEAT rounds (more than one:
# arm NAME's results in /out/arms/NAME.rR); the scenario's defaults come
# from /lab/job/env.
. /lab/common.sh
[ -f /lab/job/env ] && . /lab/job/env
failed=
r=1
while [ "$r" -le "${LAB_REPEAT:-1}" ]; do
	while read -r name settings; do
		case $name in ''|'#'*) continue ;; esac
		[ "${LAB_REPEAT:-1}" -gt 1 ] && name=$name.r$r
		say "arm $name: $settings"
		# shellcheck disable=SC2086
		env $settings sh /lab/job/arm.sh "$name" || failed="$failed $name"
	done </lab/job/arms
	r=$((r + 1))
done
[ -z "$failed" ] || die "arms failed:$failed"
