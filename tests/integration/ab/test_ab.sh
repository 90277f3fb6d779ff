#!/bin/sh
# test_ab.sh BUILD - advshim-ab end to end on this machine: a short
# two-arm experiment (MADV_RANDOM without shim / with build/libadvshim.so)
# in real memcgs; the rows are sane, VmFlags rr is in force without the
# shim and absent with it, nothing is left behind (also after SIGINT), and
# bad input fails clearly.  Needs root, a memory controller and the shim:
# without them it FAILS saying what is missing (it never passes silently).
set -u
build=${1:?usage: test_ab.sh BUILD-DIR}
case $build in /*) ;; *) build=$(pwd)/$build ;; esac
ab=$build/advshim-ab
fails=0
ok() { echo "ok - $*"; }
not_ok() { echo "not ok - $*"; fails=$((fails + 1)); }
check() { desc=$1; shift; if "$@"; then ok "$desc"; else not_ok "$desc"; fi; }
need() { echo "test_ab: FAILED: $*" >&2; exit 1; }

[ "$(id -u)" = 0 ] || need "must run as root (memcgs, page cache drops)"
[ -x "$ab" ] && [ -x "$build/advshim-load" ] || need "build advshim-ab and advshim-load first"
[ -f "$build/libadvshim.so" ] ||
	need "$build/libadvshim.so is not built yet: the shim arm needs it (make $build/libadvshim.so)"

dir=$(mktemp -d /var/tmp/advshim-ab-test.XXXXXX) && chmod 0755 "$dir"
bgpid=
trap '[ -n "$bgpid" ] && kill -TERM "$bgpid" 2>/dev/null; rm -rf "$dir"' EXIT

# Every memcg advshim-ab may have made, whatever the cgroup layout.
leftover_memcgs() {
	ls -d /sys/fs/cgroup/advshim-ab-* /sys/fs/cgroup/unified/advshim-ab-* \
		/sys/fs/cgroup/memory/advshim-ab-* 2>/dev/null
}
leftover_procs() {	# processes still using the test directory
	for p in /proc/[0-9]*; do
		tr '\0' ' ' 2>/dev/null <"$p/cmdline" | grep -q "$dir/" &&
			echo "${p#/proc/}: $(tr '\0' ' ' 2>/dev/null <"$p/cmdline")"
	done
}
[ -z "$(leftover_memcgs)" ] || need "memcgs of an earlier run exist: $(leftover_memcgs)"

cat >"$dir/exp.conf" <<EOC
version = 1;
name = "test-ab";
limit_mib = 64;
duration_s = 14;
interval_ms = 1000;
dir = "$dir";
baseline_s = 3;
files = (
  { name = "vec";  path = "\${DIR}/vec.bin";  size_mib = 48; },
  { name = "cold"; path = "\${DIR}/cold.bin"; size_mib = 24; }
);
workloads = (
  { name = "readers"; throughput = true;
    command = [ "\${BUILD}/advshim-load", "random", "--threads", "2", "--interval-ms", "250",
                "--advice", "random", "\${file:vec}" ]; },
  { name = "cold"; start_ms = 5000;
    command = [ "\${BUILD}/advshim-load", "stream", "--loops", "2", "\${file:cold}" ]; }
);
event = { workload = "cold"; };
arms = (
  { name = "random"; label = "MADV_RANDOM, no shim"; },
  { name = "shim"; label = "advshim default policy"; shim = true; env = [ "ARM_IS=\${ARM}" ]; }
);
EOC

# --- a full run ----------------------------------------------------------
out=$dir/out
"$ab" -o "$out" "$dir/exp.conf" >"$dir/run.log" 2>&1
st=$?
check "two-arm run exits 0 (got $st)" [ $st -eq 0 ]
if [ $st -ne 0 ]; then
	sed 's/^/    /' "$dir/run.log"
	for e in "$out"/*/*.err; do
		[ -s "$e" ] && { echo "    --- $e"; sed 's/^/    /' "$e"; }
	done
fi
check "files were created with their sizes" \
	[ "$(stat -c %s "$dir/vec.bin")" -eq $((48 << 20)) ]
check "seed-style table header printed" \
	grep -q '^    t    reads/s    p99_us  majflt/s refault/s   activ/s rd_MiB/s   vec_MB  cold_MB' "$dir/run.log"
for arm in random shim; do
	t=$out/arm-$arm.tsv
	check "$arm: timeline written" [ -s "$t" ]
	rows=$(grep -c '^[0-9]' "$t")
	check "$arm: 13..15 samples (got $rows)" [ "$rows" -ge 13 ] && [ "$rows" -le 15 ]
	# reads/s known and > 0 in all but at most 2 rows; vec cached > 0
	# after warm-up; the cold file never more cached than its size.
	bad=$(awk -F'\t' '/^[0-9]/ { n++
		if ($2 == "-" || $2 <= 0) nodata++
		if ($1 > 3 && ($9 == "-" || $9 <= 0)) print "vec not cached: " $0
		if ($10 != "-" && $10 > 24.5) print "cold > 24 MiB: " $0
		if ($5 != "-" && $5 < 0) print "negative majflt: " $0 }
		END { if (nodata > 2) print nodata " rows without throughput" }' "$t")
	check "$arm: rows are sane${bad:+: $bad}" [ -z "$bad" ]
	check "$arm: cold read start and end recorded" \
		sh -c "grep -q '^# event_start_s	[5-9]\.' '$t' && grep -q '^# event_end_s	[0-9]' '$t'"
	check "$arm: workload output kept" [ -s "$out/$arm/readers.out" ]
done
check "no shim: rr in force on the readers' mapping" \
	sh -c "awk -F'\t' '/^[0-9]/ { print \$NF }' '$out/arm-random.tsv' | grep -qx rr"
check "no shim: rr never missing once seen" \
	sh -c "! awk -F'\t' '/^[0-9]/ { print \$NF }' '$out/arm-random.tsv' | grep -qx no"
check "shim: rr absent from the readers' mapping" \
	sh -c "awk -F'\t' '/^[0-9]/ { print \$NF }' '$out/arm-shim.tsv' | grep -qx no &&
	       ! awk -F'\t' '/^[0-9]/ { print \$NF }' '$out/arm-shim.tsv' | grep -qx rr"
check "shim: policy written and LD_PRELOAD set for the arm" \
	sh -c "[ -s '$out/shim/policy-readers.conf' ] && [ ! -e '$out/random/policy-readers.conf' ]"
check "summary.tsv: both arms, rr yes/no" \
	sh -c "grep -q '^random	MADV_RANDOM, no shim	.*	yes	' '$out/summary.tsv' &&
	       grep -q '^shim	advshim default policy	.*	no	' '$out/summary.tsv'"
check "summary table printed" grep -q '^MADV_RANDOM, no shim ' "$dir/run.log"
if command -v gnuplot >/dev/null; then
	check "plot rendered" [ -s "$out/ab.png" ]
else
	echo "note - gnuplot not installed: plot not checked"
fi
check "no memcg left after the run" [ -z "$(leftover_memcgs)" ]
check "no workload left after the run" [ -z "$(leftover_procs)" ]

# --- report re-renders the same summary ----------------------------------
cp "$out/summary.tsv" "$dir/summary.orig"
"$ab" report --no-plot "$out" >"$dir/report.log" 2>&1
check "report exits 0" [ $? -eq 0 ]
check "report reproduces summary.tsv" cmp -s "$out/summary.tsv" "$dir/summary.orig"
check "report prints the timelines" grep -q '^== arm shim: advshim default policy' "$dir/report.log"

# --- SIGINT mid-run --------------------------------------------------------
"$ab" -o "$dir/int" -q "$dir/exp.conf" >"$dir/int.log" 2>&1 &
bgpid=$!
n=0
until leftover_memcgs | grep -q . && [ -n "$(leftover_procs)" ] || [ $n -ge 100 ]; do
	sleep 0.1; n=$((n + 1))
done
check "SIGINT test: the run got going" [ $n -lt 100 ]
sleep 2
kill -INT $bgpid
wait $bgpid
st=$?
bgpid=
check "SIGINT: exit status 130 (got $st)" [ $st -eq 130 ]
check "SIGINT: no memcg left" [ -z "$(leftover_memcgs)" ]
check "SIGINT: no workload left$(leftover_procs | head -n 1)" [ -z "$(leftover_procs)" ]
check "SIGINT: says it cleaned up" grep -q 'interrupted; memcgs and workloads cleaned up' "$dir/int.log"
check "SIGINT: partial timeline kept with a note" \
	grep -q '^# note	interrupted by signal 2' "$dir/int/arm-random.tsv"

# --- a failing workload is reported ----------------------------------------
sed -e 's/^duration_s = 14;/duration_s = 3;/' -e 's/start_ms = 5000;/start_ms = 1000;/' \
    -e 's|"\${BUILD}/advshim-load", "stream", "--loops", "2", "\${file:cold}"|"/bin/false"|' \
    "$dir/exp.conf" >"$dir/fail.conf"
"$ab" -q --no-plot -o "$dir/fail" --arms random "$dir/fail.conf" >"$dir/fail.log" 2>&1
check "a failing cold reader is noted" \
	grep -q '^# note	workload cold failed (status 1' "$dir/fail/arm-random.tsv"
check "the note is printed" grep -q 'arm random: workload cold failed' "$dir/fail.log"

# --- bad input -------------------------------------------------------------
expect_fail() {	# expect_fail STATUS REGEX CMD...
	want=$1 re=$2; shift 2
	"$@" >"$dir/e.out" 2>"$dir/e.err"
	st=$?
	if [ $st -eq "$want" ] && grep -q -e "$re" "$dir/e.err"; then
		ok "fails clearly: $(head -n 1 "$dir/e.err")"
	else
		not_ok "expected status $want and /$re/, got $st: $(cat "$dir/e.err")"
	fi
}
sed 's/^limit_mib = 64;/limit_mib = 64;\nlimt = 1;/' "$dir/exp.conf" >"$dir/bad.conf"
expect_fail 2 "bad.conf:4: unknown key \"limt\"" "$ab" -o "$dir/x" "$dir/bad.conf"
expect_fail 2 "bad.conf:4: unknown key" "$ab" check "$dir/bad.conf"
expect_fail 1 "libadvshim-nope.so is missing" "$ab" -o "$dir/x" --shim "$dir/libadvshim-nope.so" "$dir/exp.conf"
expect_fail 1 "no arm is named \"zz\"" "$ab" -o "$dir/x" --arms zz "$dir/exp.conf"
expect_fail 1 "no memory controller" "$ab" -o "$dir/x" --cgroup-root "$dir" "$dir/exp.conf"
expect_fail 2 "duration" "$ab" --duration 0 "$dir/exp.conf"
if command -v setpriv >/dev/null; then
	expect_fail 1 "must run as root" setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$ab" -o "$dir/x" "$dir/exp.conf"
fi
if [ ! -w /sys/kernel/mm/lru_gen/enabled ]; then
	sed 's/{ name = "random";/{ name = "random"; lru_gen = true;/' "$dir/exp.conf" >"$dir/lru.conf"
	expect_fail 1 "an arm sets lru_gen but /sys/kernel/mm/lru_gen/enabled" \
		"$ab" -o "$dir/x" "$dir/lru.conf"
fi
check "no memcg left at the end" [ -z "$(leftover_memcgs)" ]

echo "test_ab: $fails failed"
[ $fails -eq 0 ]
