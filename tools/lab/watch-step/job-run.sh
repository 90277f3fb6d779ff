#!/bin/sh
# SPDX-License-Identifier: MIT
#
# job-run.sh - the guest job of the watch-step experiments: the scenario
# sizes from /lab/job/job.env, then each arm of /lab/job/arms.list
# ("NAME VAR=VALUE...") through /lab/job/arm-step.sh.
. /lab/job/job.env
. /lab/common.sh
say "sourced; making data files"
make_file /data/vec.bin "$VEC_MB"
say "vec done"
make_file /data/cold.bin "$COLD_MB"
say "cold done"
sync
say "synced"
failed=
while read -r name settings; do
	case $name in ''|'#'*) continue ;; esac
	say "arm $name: $settings"
	env $settings /lab/job/arm-step.sh "$name" || failed="$failed $name"
done </lab/job/arms.list
[ -z "$failed" ] || die "arms failed:$failed"
