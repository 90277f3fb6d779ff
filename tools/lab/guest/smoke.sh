#!/bin/sh
# SPDX-License-Identifier: MIT
#
# smoke.sh - the guest half of make lab-smoke: the lru_gen rules
# (rules.sh, property 4), property 1 (rr.sh), then the short stall
# scenario's three arms (properties 2 and 3, judged on the host from the
# samples).  Runs every part even when one fails.
. /lab/common.sh

rc=0
# First: it lends the memory controller to cgroup v1 for a moment.
/lab/rules.sh || rc=1
/lab/rr.sh || rc=1
/lab/doctor.sh /lab/run-arms.sh /lab/experiments/smoke.arms || rc=1
exit $rc
