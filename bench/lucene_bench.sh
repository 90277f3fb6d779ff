#!/bin/sh
# lucene_bench.sh BUILD - real Lucene (advshim-lucene) without and with the
# shim, side by side in one run, plain and shim alternating (ABBA).
#
#   warm queries/s   index in the page cache, --threads 2 for 12 s; the
#                    median interval rate after 4 s (JIT warm-up) per run
#   JVM start-up     wall time of `search --queries 1` (JVM start, index
#                    open, one query, exit)
#   cold cache       after `echo 3 > /proc/sys/vm/drop_caches` (root
#                    only): the first 300 queries' p50/p99 latency, major
#                    faults per query and bytes read, and what opening the
#                    index faulted in (with normal advice, mmap read-around
#                    of read_ahead_kb around the footer reads can bring in
#                    most of a small file before the first query)
#   advice calls     madvise/fadvise64 system calls per query, by advice,
#                    from strace: the difference between a 100- and a
#                    1100-query run, so start-up calls cancel out
#
# Read advice: context (ADVISE_BY_CONTEXT, as OpenSearch 3.x), so the
# vector files get RANDOM and the shim has something to rewrite.  Ratios
# are shim/plain, medians over rounds; no pass/fail.
#   LUCENE_BENCH_VECTORS (40000), LUCENE_BENCH_DIMS (96), ROUNDS (5),
#   LUCENE_BENCH_PARTS ("warm start cold calls": which parts to run)
set -u
build=$(cd "${1:-build}" && pwd)
lib=$build/libadvshim.so
luc=$build/advshim-lucene
vectors=${LUCENE_BENCH_VECTORS:-40000}
dims=${LUCENE_BENCH_DIMS:-96}
rounds=${ROUNDS:-5}
adv=context
parts=${LUCENE_BENCH_PARTS:-warm start cold calls}
want() { case " $parts " in *" $1 "*) return 0 ;; esac; return 1; }
jvm=-J-Xmx512m

if [ ! -x "$luc" ]; then
	echo "bench-lucene: SKIPPED: $luc not built (Maven or a JDK 21+ missing; see make output)"
	exit 0
fi
unset ADVSHIM_CONFIG ADVSHIM_LOG LD_PRELOAD
idx=$build/lucene/bench-idx-$vectors-$dims
tmp=$(mktemp -d "${TMPDIR:-/tmp}/advshim-lbench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM

# The index is built once and kept (its log says it is complete).
if ! grep -q 'segments=1 ' "$idx.log" 2>/dev/null; then
	echo "bench-lucene: building the index ($vectors x $dims) once into $idx"
	rm -rf "$idx" "$idx.log"
	"$luc" $jvm index "$idx" --vectors "$vectors" --dims "$dims" >"$idx.tmp" 2>"$tmp/index.err" &&
		mv "$idx.tmp" "$idx.log" || { cat "$tmp/index.err"; exit 1; }
fi
size=$(sed -n 's/^# size bytes=[0-9]* mib=\([0-9.]*\).*/\1/p' "$idx.log")

# run MODE ARGS...: advshim-lucene plain (MODE plain) or under the shim.
run() {
	mode=$1
	shift
	if [ "$mode" = shim ]; then
		LD_PRELOAD=$lib "$luc" $jvm "$@"
	else
		"$luc" $jvm "$@"
	fi
}

median() { sort -n | awk '{ v[NR] = $1 } END { if (NR) print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.3f", a / b; else print "-" }'; }
order() { [ $(($1 % 2)) -eq 0 ] && echo "plain shim" || echo "shim plain"; }

echo "bench-lucene: lucene $(sed -n 's/.*lucene=\([^ ]*\).*/\1/p' "$idx.log"), index $vectors x $dims ($size MiB, 1 segment), read advice $adv, $rounds rounds"

# Warm queries/s, and the JVM's CPU time per query (user + system, every
# thread, over the whole run): on a shared machine the rate follows the
# neighbours' load, the CPU time much less.
want warm && {
cat "$idx"/* >/dev/null
for r in $(seq 1 "$rounds"); do
	for m in $(order "$r"); do
		run "$m" search "$idx" --threads 2 --duration 12 --read-advice $adv 2>/dev/null >"$tmp/warm.out"
		awk -F'\t' '/^[0-9]/ && $1 > 4000 { print $4 }' "$tmp/warm.out" | median >"$tmp/warm.$m.$r"
		sed -n 's/^# summary .* queries=\([0-9]*\) .*cpu_ms=\([0-9]*\).*/\1 \2/p' "$tmp/warm.out" |
			awk '$1 > 0 { printf "%.1f\n", $2 * 1000 / $1 }' >"$tmp/wcpu.$m.$r"
	done
	echo "$(cat "$tmp/warm.shim.$r") $(cat "$tmp/warm.plain.$r")" |
		awk '{ if ($2 > 0) print $1 / $2 }' >>"$tmp/warm.ratio"
	echo "$(cat "$tmp/wcpu.shim.$r") $(cat "$tmp/wcpu.plain.$r")" |
		awk '{ if ($2 > 0) print $1 / $2 }' >>"$tmp/wcpu.ratio"
done
printf 'warm queries/s:      plain %.1f  shim %.1f  shim/plain %.3f (median of %d round ratios; goal >= 0.98)\n' \
	"$(cat "$tmp"/warm.plain.* | median)" "$(cat "$tmp"/warm.shim.* | median)" \
	"$(median <"$tmp/warm.ratio")" "$rounds"
printf 'warm CPU us/query:   plain %.1f  shim %.1f  shim/plain %.3f (JVM user+system over the run)\n' \
	"$(cat "$tmp"/wcpu.plain.* | median)" "$(cat "$tmp"/wcpu.shim.* | median)" "$(median <"$tmp/wcpu.ratio")"
}

# JVM start-up: wall and CPU time of a one-query run.
want start && {
for r in $(seq 1 $((rounds * 2))); do
	for m in $(order "$r"); do
		if [ -x /usr/bin/time ]; then
			pre=ADVSHIM_BENCH=plain
			[ "$m" = shim ] && pre=LD_PRELOAD=$lib
			/usr/bin/time -f '%e %U %S' -o "$tmp/t" env "$pre" "$luc" $jvm \
				search "$idx" --threads 1 --queries 1 --read-advice $adv >/dev/null 2>&1
			awk '{ printf "%d %d\n", $1 * 1000, ($2 + $3) * 1000 }' "$tmp/t" >>"$tmp/start.$m"
		else
			t0=$(date +%s%N)
			run "$m" search "$idx" --threads 1 --queries 1 --read-advice $adv >/dev/null 2>&1
			echo "$(( ($(date +%s%N) - t0) / 1000000 )) 0" >>"$tmp/start.$m"
		fi
	done
done
sp=$(awk '{ print $1 }' "$tmp/start.plain" | median)
ss=$(awk '{ print $1 }' "$tmp/start.shim" | median)
cp_=$(awk '{ print $2 }' "$tmp/start.plain" | median)
cs=$(awk '{ print $2 }' "$tmp/start.shim" | median)
echo "JVM start-up (ms):   plain $sp  shim $ss  shim/plain $(ratio "$ss" "$sp") (wall, median of $((rounds * 2)) each; goal <= 1.02)"
echo "JVM start-up CPU ms: plain $cp_  shim $cs  shim/plain $(ratio "$cs" "$cp_") (user+system)"
}

# Cold cache: the first 300 queries after dropping every cache.
if ! want cold; then
	:
elif [ "$(id -u)" = 0 ] && [ -w /proc/sys/vm/drop_caches ]; then
	for r in 1 2 3; do
		for m in $(order "$r"); do
			sync
			echo 3 >/proc/sys/vm/drop_caches
			run "$m" search "$idx" --threads 2 --queries 300 --read-advice $adv 2>/dev/null |
				sed -n 's/^# advshim-lucene search //p; s/^# summary //p' | paste -sd' ' >>"$tmp/cold.$m"
		done
	done
	for m in plain shim; do
		awk -v m="$m" '{
			for (i = 1; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
			p50 += f["p50_us"]; p99 += f["p99_us"]; mf += f["majflt"] / f["queries"]; el += f["elapsed_ms"]
			rb += f["read_bytes"]; omf += f["open_majflt"]; orb += f["open_read_bytes"]; n++
		} END { if (n) printf "cold first 300 (%s): p50 %.2f ms  p99 %.2f ms  major faults/query %.1f  read %.1f MiB  %.2f s;" \
			" index open: %.0f major faults, %.1f MiB read  (mean of %d)\n", m, p50 / n / 1000, p99 / n / 1000,
			mf / n, rb / n / 1048576, el / n / 1000, omf / n, orb / n / 1048576, n }' "$tmp/cold.$m"
	done
else
	echo "cold cache: SKIPPED (needs root to write /proc/sys/vm/drop_caches)"
fi

# Advice system calls per query (strace, marginal between two runs).
if ! want calls; then
	:
elif command -v strace >/dev/null 2>&1; then
	cat "$idx"/* >/dev/null
	for m in plain shim; do
		for q in 100 1100; do
			if [ "$m" = shim ]; then
				LD_PRELOAD=$lib strace -f --seccomp-bpf -qq -e trace=madvise,fadvise64 \
					-o "$tmp/st.$m.$q" "$luc" $jvm search "$idx" --threads 2 --queries $q \
					--read-advice $adv >/dev/null 2>&1
			else
				strace -f --seccomp-bpf -qq -e trace=madvise,fadvise64 -o "$tmp/st.$m.$q" \
					"$luc" $jvm search "$idx" --threads 2 --queries $q --read-advice $adv >/dev/null 2>&1
			fi
			sed -n 's/.*\(madvise\|fadvise64\)(.*, \([A-Z_0-9]*\)) *= .*/\1 \2/p' "$tmp/st.$m.$q" |
				sort | uniq -c >"$tmp/calls.$m.$q"
		done
		echo "advice syscalls ($m), per query (1100-query minus 100-query run) and at start-up:"
		cat "$tmp/calls.$m.100" "$tmp/calls.$m.1100" | awk '{ print $2, $3 }' | sort -u |
		while read -r call advice; do
			a=$(awk -v c="$call" -v v="$advice" '$2 == c && $3 == v { print $1 }' "$tmp/calls.$m.100")
			b=$(awk -v c="$call" -v v="$advice" '$2 == c && $3 == v { print $1 }' "$tmp/calls.$m.1100")
			awk -v c="$call" -v v="$advice" -v a="${a:-0}" -v b="${b:-0}" \
				'BEGIN { printf "  %-9s %-16s %8.3f/query  (%d in the 100-query run)\n", c, v, (b - a) / 1000, a }'
		done
	done
	echo "  (Lucene sends RANDOM/SEQUENTIAL/NORMAL/WILLNEED through posix_madvise; DONTNEED and the"
	echo "   like come from the JVM's own heap and code cache management)"
else
	echo "advice calls: SKIPPED (no strace)"
fi
