#!/bin/sh
# test_load.sh BIN ADVSHIM - advshim-load end to end: real files, real
# mappings.  random mode prints sane intervals and a summary, applies its
# advice (VmFlags rr in /proc/PID/smaps, read by `ADVSHIM inspect`, the
# project's smaps reader), exits 0 on SIGTERM; stream mode reads the
# whole file N times; bad arguments fail with a message and status 2.
set -u
bin=${1:?usage: test_load.sh path/to/advshim-load path/to/advshim}
advshim=${2:?usage: test_load.sh path/to/advshim-load path/to/advshim}
dir=$(mktemp -d /var/tmp/advshim-load-test.XXXXXX)
pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$dir"' EXIT
fails=0
ok() { echo "ok - $*"; }
not_ok() { echo "not ok - $*"; fails=$((fails + 1)); }
check() { desc=$1; shift; if "$@"; then ok "$desc"; else not_ok "$desc"; fi; }

f=$dir/vec.bin
size=$((8 * 1048576))

# --- random mode, TSV -----------------------------------------------------
"$bin" random --size 8M --threads 3 --reads 8 --duration 2.2 \
	--interval-ms 500 "$f" >"$dir/r.out" 2>"$dir/r.err"
check "random exits 0" [ $? -eq 0 ]
check "random created the file with --size bytes" \
	[ "$(stat -c %s "$f")" -eq "$size" ]
check "random prints the TSV header" \
	grep -q '^elapsed_ms	mono_ms	queries	qps	reads_s	p50_us	p90_us	p99_us	majflt	majflt_s$' "$dir/r.out"
rows=$(grep -c '^[0-9]' "$dir/r.out")
check "random prints 4 or 5 interval rows (got $rows)" [ "$rows" -ge 4 ] && [ "$rows" -le 5 ]
# Every row: queries > 0, reads/s == 8 * qps (+-1%), p50 <= p90 <= p99,
# elapsed grows.
bad=$(awk -F'\t' '/^[0-9]/ {
	if ($3 <= 0 || $4 <= 0) { print "no queries: " $0; next }
	r = $5 / ($4 * 8); if (r < 0.99 || r > 1.01) print "reads/s != 8*qps: " $0
	if ($6 > $7 || $7 > $8) print "percentiles out of order: " $0
	if ($1 <= last) print "elapsed not growing: " $0
	last = $1 }' "$dir/r.out")
check "random rows are sane${bad:+: $bad}" [ -z "$bad" ]
check "random prints a summary" grep -q '^# summary elapsed_ms=[0-9]* queries=[1-9]' "$dir/r.out"
check "random header names the advice" grep -q 'advice=random' "$dir/r.out"

# --- JSON lines --------------------------------------------------------
"$bin" random --json --duration 1.2 --interval-ms 400 "$f" >"$dir/j.out" 2>&1
check "json: exit 0" [ $? -eq 0 ]
check "json: start, intervals, summary" sh -c "
	head -n 1 '$dir/j.out' | grep -q '^{\"event\":\"start\",\"mode\":\"random\"' &&
	[ \$(grep -c '^{\"event\":\"interval\",\"elapsed_ms\":[0-9]*,' '$dir/j.out') -ge 2 ] &&
	tail -n 1 '$dir/j.out' | grep -q '^{\"event\":\"summary\".*\"p99_us\":[0-9.]*,'"

# --- advice reaches the kernel; SIGTERM prints the summary, exits 0 --------
advice_of() {	# advice_of PID FILE: the advice in force on FILE in PID
	"$advshim" inspect "$1" 2>/dev/null | awk -v f="  $2" \
		'substr($0, length($0) - length(f) + 1) == f { print $1; exit }'
}
for adv in random normal none; do
	"$bin" random --advice $adv --threads 2 --interval-ms 100 "$f" \
		>"$dir/a.out" 2>&1 &
	pid=$!
	n=0
	until grep -q '^[0-9]' "$dir/a.out" || [ $n -ge 100 ]; do
		sleep 0.1; n=$((n + 1))
	done
	# smaps is read in chunks while the process maps and unmaps (ASan
	# does a lot): a read can miss the VMA, so look up to 5 times.
	for try in 1 2 3 4 5; do
		advice=$(advice_of $pid "$f")
		[ -n "$advice" ] && break
		sleep 0.1
	done
	case $adv in
	random) check "advice random: rr in VmFlags (inspect: $advice)" \
		[ "$advice" = rr ] ;;
	*) check "advice $adv: no rr in VmFlags (inspect: $advice)" \
		[ "$advice" = - ] ;;
	esac
	kill -TERM $pid
	wait $pid
	st=$?
	pid=
	check "advice $adv: SIGTERM -> exit 0 (got $st)" [ $st -eq 0 ]
	check "advice $adv: summary after SIGTERM" grep -q '^# summary' "$dir/a.out"
done

# --- stream mode ----------------------------------------------------------
for via in mmap read; do
	"$bin" stream --via $via --loops 3 "$f" >"$dir/s.out" 2>&1
	check "stream $via: exit 0" [ $? -eq 0 ]
	check "stream $via: 3 start events" [ "$(grep -c '^start	' "$dir/s.out")" -eq 3 ]
	check "stream $via: 3 end events covering the file" \
		[ "$(awk -F'\t' -v s=$size '$1 == "end" && $5 == s' "$dir/s.out" | wc -l)" -eq 3 ]
	check "stream $via: summary counts 3 passes" \
		grep -q "^# summary loops=3 bytes=$((3 * size)) " "$dir/s.out"
done
c=$dir/cold.bin
"$bin" stream --json --size 3M --delay-ms 300 "$c" >"$dir/s.out" 2>&1
check "stream: creates a missing file with --size" [ "$(stat -c %s "$c")" -eq 3145728 ]
check "stream: delay shows in the start event" \
	grep -q '^{"event":"start","loop":1,"mono_ms":[0-9]*,"elapsed_ms":[3-9][0-9][0-9],' "$dir/s.out"
check "stream json: end event" grep -q '"event":"end","loop":1,.*"bytes":3145728' "$dir/s.out"

# --- advice switches mid-run; the cold reader's drop-behind and NOREUSE ----
"$bin" random --threads 1 --interval-ms 100 --switch-advice-at 0.3=normal \
	"$f" >"$dir/w.out" 2>&1 &
pid=$!
n=0
until grep -q '^# switch' "$dir/w.out" || [ $n -ge 100 ]; do
	sleep 0.1; n=$((n + 1))
done
for try in 1 2 3 4 5; do
	advice=$(advice_of $pid "$f")
	[ -n "$advice" ] && break
	sleep 0.1
done
kill -TERM $pid; wait $pid; pid=
check "switch-advice-at: marked once" \
	[ "$(grep -c '^# switch elapsed_ms=[0-9]* mono_ms=[0-9]* advice=normal ok=1$' "$dir/w.out")" -eq 1 ]
check "switch-advice-at: random -> normal, no rr after (inspect: $advice)" \
	[ "$advice" = - ]
if command -v strace >/dev/null; then
	strace -e trace=fadvise64 -o "$dir/st" "$bin" stream --via read --block 1M \
		--noreuse --drop-behind 2M "$f" >/dev/null 2>&1
	check "stream --noreuse: one NOREUSE on the whole file" \
		[ "$(grep -c 'fadvise64(3, 0, 0, POSIX_FADV_NOREUSE) *= 0' "$dir/st")" -eq 1 ]
	check "stream --drop-behind 2M: 4 DONTNEED of 2 MiB, in order" \
		[ "$(grep -o 'fadvise64(3, [0-9]*, 2097152, POSIX_FADV_DONTNEED) = 0' "$dir/st" |
		   awk -F'[(,]' '{ printf "%s ", $3 }')" = " 0  2097152  4194304  6291456 " ]
else
	echo "skip - strace missing: --noreuse and --drop-behind not traced"
fi

# --- bad arguments --------------------------------------------------------
bad_arg() {	# bad_arg STATUS MESSAGE-REGEX ARGS...
	want=$1 re=$2; shift 2
	"$bin" "$@" >"$dir/b.out" 2>"$dir/b.err"
	st=$?
	if [ $st -eq "$want" ] && grep -q -e "$re" "$dir/b.err"; then
		ok "bad args ($*): status $st, $(head -n 1 "$dir/b.err")"
	else
		not_ok "bad args ($*): status $st (want $want), stderr: $(cat "$dir/b.err")"
	fi
}
bad_arg 2 'usage' 
bad_arg 2 "unknown mode 'walk'" walk "$f"
bad_arg 2 "threads '0': must be 1" random --threads 0 "$f"
bad_arg 2 "theta '-1'" random --theta -1 "$f"
bad_arg 2 "advice 'willneed'" random --advice willneed "$f"
bad_arg 2 "size '12Q'" random --size 12Q "$f"
bad_arg 2 "record '0'" random --record 0 "$f"
bad_arg 2 "missing FILE" random
bad_arg 2 "extra arguments" random "$f" "$f"
bad_arg 2 "--via is not valid in random mode" random --via read "$f"
bad_arg 2 "--threads is not valid in stream mode" stream --threads 2 "$f"
bad_arg 2 "via 'mmap2'" stream --via mmap2 "$f"
bad_arg 2 "loops 'x'" stream --loops x "$f"
bad_arg 2 "see --help" random --bogus "$f"
bad_arg 2 "expected SECONDS=ADVICE" random --switch-advice-at normal "$f"
bad_arg 2 "must be in time order" random --switch-advice-at 2=normal --switch-advice-at 1=random "$f"
bad_arg 2 "--drop-behind is not valid in random mode" random --drop-behind pass "$f"
bad_arg 2 "needs --via read" stream --drop-behind 1M "$f"
bad_arg 1 "give --size to create it" random "$dir/missing.bin"
bad_arg 1 "exists with 8388608 bytes, not the 1048576" random --size 1M "$f"
bad_arg 2 "records of 16777216 bytes" random --record 16M "$f"
"$bin" --help | grep -q '^usage: advshim-load random'
check "--help prints usage to stdout, exit 0" [ $? -eq 0 ]

echo "test_load: $fails failed"
[ $fails -eq 0 ]
