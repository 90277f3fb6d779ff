#!/bin/sh
# SPDX-License-Identifier: MIT
#
# doctor.sh CMD... - smoke property 5: runs CMD (the smoke's arms) while
# watching for two of its arms, and runs `advshim doctor` inside each:
#  - arm "none" (MADV_RANDOM, no fix), DOCTOR_NONE_AT s after its reader
#    started (default 42: the cold read at 20 s has ended, the stall is
#    plain): doctor must exit 1 and name the reader's pid, /data/vec.bin
#    and memcg /lab-none as affected, with the shim or the watcher as the
#    remedy;
#  - arm "shim", DOCTOR_SHIM_AT s in (default 60): doctor must exit 0 and
#    say the reader is covered by the shim.
# Writes /out/doctor/{none,shim}.{txt,json,rc} and /out/doctor/result
# ("ok ..." or "FAIL ..." per arm); prints "ok   property 5" or "FAIL
# property 5" lines.  Exits with CMD's status, or 1 when CMD passed and
# the property does not hold.
. /lab/common.sh

out=/out/doctor
mkdir -p "$out"
: >"$out/result"

# reader CG: the PID of the `advshim-load random` process in memcg CG.
reader() {
	for p in $(cat "$CG_ROOT$1/cgroup.procs" 2>/dev/null); do
		tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null | grep -q 'advshim-load random' &&
			{ echo "$p"; return 0; }
	done
	return 1
}

# probe ARM AT: wait for ARM's reader, then run doctor AT s after it began.
probe() {
	arm=$1 at=$2 cg=/lab-$1 pid= i=0
	while [ -z "$pid" ] && [ $i -lt 1200 ]; do
		pid=$(reader "$cg")
		[ -n "$pid" ] || sleep 0.5
		i=$((i + 1))
	done
	[ -n "$pid" ] || { echo "FAIL $arm: no reader in $cg" >>"$out/result"; return; }
	start=$(cut -d' ' -f1 /proc/uptime | cut -d. -f1)
	while [ $(( $(cut -d' ' -f1 /proc/uptime | cut -d. -f1) - start )) -lt "$at" ]; do
		sleep 1
	done
	echo "$pid" >"$out/$arm.pid"
	timeout 60 advshim doctor --sample-ms 3000 >"$out/$arm.txt" 2>&1
	echo $? >"$out/$arm.rc"
	timeout 60 advshim doctor --json --pid "$pid" --sample-ms 2000 >"$out/$arm.json" 2>&1
	judge "$arm" "$pid" "$cg"
}

# judge ARM PID CG: the property for that arm, one line into result.
judge() {
	f=$out/$1.txt rc=$(cat "$out/$1.rc")
	line=$(grep "^pid $2 " "$f")
	verdict=$(awk -v p="pid $2 " 'index($0, p) == 1 { on = 1; next }
		/^pid / { on = 0 } on && /^  verdict:/ { sub(/^  verdict: /, ""); print; exit }' "$f")
	case $1 in
	none)
		if [ "$rc" = 1 ] && echo "$line" | grep -q "memcg $3\$" &&
		   awk -v p="pid $2 " 'index($0, p) == 1 { on = 1; next } /^pid / { on = 0 }
			on && /  rr .* \/data\/vec.bin$/ { hit = 1 } END { exit !hit }' "$f" &&
		   echo "$verdict" | grep -q '^affected' &&
		   grep -q -e "ADVSHIM_WATCH_ARGS=--cgroup $3\"" -e "LD_PRELOAD=" "$f"; then
			echo "ok none: exit 1, pid $2 /data/vec.bin memcg $3: $verdict" >>"$out/result"
		else
			echo "FAIL none: exit $rc, pid $2: ${verdict:-not listed}" >>"$out/result"
		fi ;;
	shim)
		if [ "$rc" = 0 ] && [ -n "$line" ] &&
		   echo "$verdict" | grep -q '^covered by the shim'; then
			echo "ok shim: exit 0, pid $2: $verdict" >>"$out/result"
		else
			echo "FAIL shim: exit $rc, pid $2: ${verdict:-not listed}" >>"$out/result"
		fi ;;
	esac
}

(probe none "${DOCTOR_NONE_AT:-42}"; probe shim "${DOCTOR_SHIM_AT:-60}") &
mon=$!
"$@"
rc=$?
# The monitor ends with the shim arm's probe; do not let it outlive CMD.
i=0
while kill -0 "$mon" 2>/dev/null && [ $i -lt 20 ]; do sleep 0.5; i=$((i + 1)); done
kill "$mon" 2>/dev/null
wait "$mon" 2>/dev/null
for a in none shim; do
	grep -q -e "^ok $a:" -e "^FAIL $a:" "$out/result" ||
		echo "FAIL $a: doctor did not run in the arm" >>"$out/result"
done
if grep -q '^FAIL' "$out/result"; then
	sed 's/^FAIL /FAIL property 5: advshim doctor, arm /' "$out/result" | grep '^FAIL'
	[ "$rc" = 0 ] && rc=1
else
	sed 's/^ok /ok   property 5: advshim doctor, arm /' "$out/result"
fi
exit $rc
