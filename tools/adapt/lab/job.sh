#!/bin/sh
# SPDX-License-Identifier: MIT
#
# job.sh - the guest job of tools/adapt/lab/run.sh: runs the arms listed
# in /lab/job/arms (NAME VAR=VALUE... per line, '#' comments) with
# /lab/job/arm.sh, one after another; the scenario's defaults come from
# /lab/job/env.
. /lab/common.sh
[ -f /lab/job/env ] && . /lab/job/env
failed=
while read -r name settings; do
	case $name in ''|'#'*) continue ;; esac
	say "arm $name: $settings"
	# shellcheck disable=SC2086
	env $settings sh /lab/job/arm.sh "$name" || failed="$failed $name"
done </lab/job/arms
[ -z "$failed" ] || die "arms failed:$failed"
