#!/bin/sh
# SPDX-License-Identifier: MIT
#
# run-arms.sh LIST - runs the arms listed in LIST one after another.
# Each line: NAME [VAR=VALUE...] (the settings arm.sh reads); '#' starts a
# comment.  Scenario sizes come from the environment (see common.sh).
# Keeps going when an arm fails; exits 1 if any did.
. /lab/common.sh

list=${1:?usage: run-arms.sh LIST}
failed=
make_data_files
say "scenario: ${MEMCG_MB} MiB memcg, ${VEC_MB} MiB vector file read by ${THREADS} threads (zipf ${THETA}), ${COLD_MB} MiB cold file read twice at ${COLD_AT} s, ${DURATION} s per arm"
while read -r name settings; do
	case $name in ''|'#'*) continue ;; esac
	say "arm $name: $settings"
	# shellcheck disable=SC2086
	if ! env $settings /lab/arm.sh "$name"; then
		failed="$failed $name"
	fi
done <"$list"
[ -z "$failed" ] || die "arms failed:$failed"
