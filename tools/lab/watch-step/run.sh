#!/bin/sh
# SPDX-License-Identifier: MIT
#
# run.sh EXPERIMENT [OLD_WATCH] - one watch-step lab experiment
# (docs/watcher-stepping.md): boots the lab (tools/lab/lab.sh job, so
# LAB_KERNEL and the other LAB_* settings apply) with the arms of
# tools/lab/watch-step/EXPERIMENT/arms.list and its job.env, and renders
# the summary.  OLD_WATCH: an advshim-watch binary the arms can name as
# WATCH_BIN=/lab/job/advshim-watch-old (e.g. one built from an older
# commit).  Prints the run directory.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
exp=${1:?usage: run.sh EXPERIMENT [OLD_WATCH]}
[ -f "$here/$exp/arms.list" ] || { echo "run.sh: no $here/$exp/arms.list" >&2; exit 2; }
out=$top/${BUILD:-build}/lab/runs/ws-$exp-$(date +%Y%m%d-%H%M%S)
mkdir -p "$out"
set -- "$here/arm-step.sh" "$here/stepper.sh" "$here/extra.sh" \
	"$here/$exp/arms.list" "$here/$exp/job.env"
if [ -n "${2:-}" ]; then
	cp "$2" "$out/advshim-watch-old"
	set -- "$@" "$out/advshim-watch-old"
fi
rc=0
LAB_TIMEOUT=${LAB_TIMEOUT:-3600} "$top/tools/lab/lab.sh" job "$out" \
	"$here/job-run.sh" "$@" || rc=$?
"$top/tools/lab/lab.sh" summary "$out" || true
echo "$out"
exit $rc
