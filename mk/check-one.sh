#!/bin/sh
# check-one.sh "MAKE" DIR TARGET - runs one check for check-fast: its
# output into DIR/TARGET.log, then printed in one piece between "=== TARGET"
# and its verdict with the time it took (also in DIR/TARGET.time, for the
# next run's order); DIR/TARGET.ok when it passed.
# Exits 0 either way (check-fast.sh counts the .ok files), so that make
# goes on with the other checks.
set -u
make_cmd=$1
dir=$2
t=$3
start=$(date +%s)
$make_cmd "$t" >"$dir/$t.log" 2>&1
rc=$?
secs=$(( $(date +%s) - start ))
echo "$t $secs" >"$dir/$t.time"
echo "=== $t"
cat "$dir/$t.log"
if [ $rc -eq 0 ]; then
	touch "$dir/$t.ok"
	echo "=== $t: ok ($secs s)"
else
	echo "=== $t: FAILED ($secs s)"
fi
exit 0
