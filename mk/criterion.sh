#!/bin/sh
# criterion.sh [-C DIR] [-j N] NAME SANITIZER TEST...
#
# Runs criterion unit test binaries, the one way every fragment does:
#   - under SANITIZER=thread (alone or in a list) nothing runs: criterion
#     cannot start under TSan at all (its arena mapping collides with
#     TSan's shadow memory, Snaipe/Criterion#274), so the tests are
#     reported SKIPPED, loudly, and the caller's other parts (integration
#     tests of the TSan-built binaries) still run;
#   - otherwise each TEST runs with --jobs=N (default 1), from DIR when -C
#     is given (tests that read fixtures by relative path), its output
#     kept in TEST.log and printed; criterion runs each test in a child
#     whose sanitizer reports (leaks included) do not fail the test, so a
#     report in the output fails here.
# Every TEST runs even when an earlier one failed; exits 1 if any failed.
set -u
dir=
jobs=1
while [ $# -gt 0 ]; do
	case $1 in
	-C) dir=$2; shift 2 ;;
	-j) jobs=$2; shift 2 ;;
	*) break ;;
	esac
done
[ $# -ge 3 ] || { echo "usage: criterion.sh [-C DIR] [-j N] NAME SANITIZER TEST..." >&2; exit 2; }
name=$1
sanitizer=$2
shift 2

case ",$sanitizer," in
*,thread,*)
	echo "$name: SKIPPED $*: criterion cannot run under SANITIZER=thread (Snaipe/Criterion#274)" >&2
	exit 0 ;;
esac

rc=0
for t in "$@"; do
	case $t in /*) ;; *) t=$(pwd)/$t ;; esac
	echo "--- $t"
	if [ -n "$dir" ]; then
		(cd "$dir" && exec "$t" --jobs="$jobs") >"$t.log" 2>&1
	else
		"$t" --jobs="$jobs" >"$t.log" 2>&1
	fi
	st=$?
	cat "$t.log"
	if grep -q 'ERROR: [A-Za-z]*Sanitizer\|runtime error:' "$t.log"; then
		echo "$name: $t: sanitizer report above"
		st=1
	fi
	[ $st -eq 0 ] || { echo "$name: $t FAILED (exit $st)"; rc=1; }
done
exit $rc
