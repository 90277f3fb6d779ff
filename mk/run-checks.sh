#!/bin/sh
# run-checks.sh MAKE TARGET...
# Runs each make target in turn, keeps going after a failure, and ends
# with one "N passed, N failed" line; exits non-zero if any failed.
set -u
make_cmd=$1
shift
pass=0
fail=0
failed=
for t in "$@"; do
	echo "=== $t"
	start=$(date +%s)
	if $make_cmd "$t"; then
		pass=$((pass + 1))
		echo "=== $t: ok ($(( $(date +%s) - start )) s)"
	else
		fail=$((fail + 1))
		failed="$failed $t"
		echo "=== $t: FAILED ($(( $(date +%s) - start )) s)"
	fi
done
[ -n "$failed" ] && echo "failed:$failed"
echo "checks: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
