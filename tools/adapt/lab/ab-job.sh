#!/bin/sh
# SPDX-License-Identifier: MIT
#
# ab-job.sh - guest job: the advshim-ab regime experiment(s) in /lab/job
# (examples/experiments/regime-*.conf), through the lab's ab.sh; AB_ARMS
# (a comma list, from a job file named env: `export AB_ARMS=a,b`) runs
# only those arms.  On the host:
#   tools/lab/lab.sh job RUNDIR tools/adapt/lab/ab-job.sh \
#       examples/experiments/regime-fits.conf [DIR/env]
#   build/advshim-ab report RUNDIR/out/ab
. /lab/common.sh
[ -f /lab/job/env ] && . /lab/job/env
for exp in /lab/job/regime-*.conf; do
	say "advshim-ab $(basename "$exp") ${AB_ARMS:-all arms}"
	# shellcheck disable=SC2086
	sh /lab/ab.sh "$exp" ${AB_ARMS:+--arms "$AB_ARMS"} ||
		die "advshim-ab $(basename "$exp") failed"
done
