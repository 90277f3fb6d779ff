#!/bin/sh
# run.sh FUZZ_DIR SECONDS "BUILDABLE..." TARGET...
# Runs each libFuzzer target for SECONDS on its corpus (FUZZ_DIR/corpus/T,
# kept between runs) seeded from fuzz/seeds/T and the real samples listed
# below; prints one result line per target and a summary.  A target fails
# on a crash, a leak, any sanitizer report, or when it could not be built
# (its sources are not in the tree): that is a SKIP, said loudly, and it
# counts as a failure.  Results are appended to FUZZ_DIR/results.tsv.
set -u
dir=$1
secs=$2
buildable=" $3 "
shift 3

# Real samples per target (directories or files; missing ones are ignored).
seeds_for() {
	case $1 in
	fuzz_policy_parse)
		echo examples tests/fixtures/policy ;;
	fuzz_policy_match)
		echo ;;
	fuzz_lrugen)
		echo tests/fixtures/lru_gen tests/fixtures/watch tests/fixtures/ab ;;
	fuzz_memstat)
		echo tests/fixtures/watch tests/fixtures/ab ;;
	fuzz_ab_exp)
		echo examples/experiments tools/lab/experiments ;;
	esac
}

pass=0
fail=0
mkdir -p "$dir/artifacts" "$dir/logs"
printf '%-20s %12s %8s %10s %8s  %s\n' target executions seconds exec/s corpus result
for t in "$@"; do
	case $buildable in
	*" $t "*) ;;
	*)
		printf '%-20s %12s %8s %10s %8s  %s\n' "$t" - - - - \
			"NOT BUILT: sources missing or the build failed (counted as a failure)"
		fail=$((fail + 1))
		continue ;;
	esac
	corpus=$dir/corpus/$t
	mkdir -p "$corpus"
	extra=
	[ -d "fuzz/seeds/$t" ] && extra="fuzz/seeds/$t"
	for s in $(seeds_for "$t"); do
		if [ -d "$s" ]; then
			extra="$extra $s"
		elif [ -f "$s" ]; then
			cp "$s" "$corpus/" 2>/dev/null
		fi
	done
	dict=
	[ -f "fuzz/dict/$t.dict" ] && dict="-dict=fuzz/dict/$t.dict"
	log=$dir/logs/$t.log
	# libconfig leaks on many syntax errors (see lsan.supp): each such input
	# makes libFuzzer run a full LeakSanitizer pass, 30x slower.  Those
	# targets fuzz without it and every corpus input is replayed with
	# LeakSanitizer on afterwards (below), as for every target.
	leaks=1
	maxlen=16384
	case $t in fuzz_maptable) maxlen=640 ;; fuzz_policy_match) maxlen=1024 ;; esac
	case $t in fuzz_policy_parse|fuzz_ab_exp) leaks=0 ;; esac
	start=$(date +%s)
	# shellcheck disable=SC2086
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:symbolize=1 \
	LSAN_OPTIONS=suppressions=$PWD/fuzz/lsan.supp:print_suppressions=0 \
	UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	"$dir/$t" -max_total_time="$secs" -print_final_stats=1 -detect_leaks=$leaks \
		-rss_limit_mb=2048 -timeout=60 -max_len=$maxlen \
		-artifact_prefix="$dir/artifacts/$t-" $dict \
		"$corpus" $extra >"$log" 2>&1
	rc=$?
	# Leak pass: every input of the corpus (and seeds) once, LSan on.
	if [ $rc -eq 0 ]; then
		# shellcheck disable=SC2086
		find "$corpus" $extra -type f -size -17k | \
		ASAN_OPTIONS=detect_leaks=1 \
		LSAN_OPTIONS=suppressions=$PWD/fuzz/lsan.supp:print_suppressions=0 \
		UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
		xargs -r -n 400 "$dir/$t" -detect_leaks=1 >"$log.leaks" 2>&1
		rc=$?
		cat "$log.leaks" >>"$log"
	fi
	el=$(( $(date +%s) - start ))
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
	[ -n "$execs" ] || execs=0
	ncorp=$(ls "$corpus" | wc -l)
	rate=$(( execs / (el > 0 ? el : 1) ))
	if [ $rc -eq 0 ] && ! grep -q 'ERROR: [A-Za-z]*Sanitizer\|runtime error:\|==ERROR\|deadly signal' "$log"; then
		res=ok
		pass=$((pass + 1))
	else
		res="FAILED (exit $rc): see $log and $dir/artifacts/$t-*"
		fail=$((fail + 1))
	fi
	printf '%-20s %12s %8s %10s %8s  %s\n' "$t" "$execs" "$el" "$rate" "$ncorp" "$res"
	printf '%s\t%s\t%s\t%s\t%s\n' "$(date -u +%FT%TZ)" "$t" "$el" "$execs" "$res" \
		>>"$dir/results.tsv"
	if [ "$res" != ok ]; then
		grep -m 5 -A 12 'ERROR:\|runtime error:\|deadly signal' "$log" | head -n 40
	fi
done
echo "fuzz: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
