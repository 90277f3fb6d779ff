#!/bin/sh
# shim_bench.sh BUILD - run shim_bench without and with the shim, with 10k
# and 100k live file mappings, RUNS (5) times each, and print the median
# B/A of the runs (and their range) side by side.
#
# Each run interleaves raw system calls (A) with libc entry points (B) in
# one process; without the shim B/A is libc's own wrapper cost, with it
# B/A is what the goals are about (the shim's overhead on the raw call).
# The runs alternate (plain 10k, shim 10k, plain 100k, shim 100k, then
# again), so that a busy spell of the machine falls on every column.
# Knobs: RUNS (5), ROUNDS (31, rounds per operation in a run), MAPS
# ("10000 100000"), OPS (shim_bench's operation names, default all),
# BENCH_VERBOSE=1 (every run's own table too).
set -u
build=${1:-build}
lib=$(cd "$build" && pwd)/libadvshim.so
runs=${RUNS:-5}
rounds=${ROUNDS:-31}
maps=${MAPS:-10000 100000}
ops=${OPS:-}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

r=1
while [ "$r" -le "$runs" ]; do
	for n in $maps; do
		"$build/bench/shim_bench" "$rounds" "$n" $ops >"$out/plain.$n.$r" || exit 1
		LD_PRELOAD=$lib "$build/bench/shim_bench" "$rounds" "$n" $ops \
			>"$out/shim.$n.$r" || exit 1
		if [ "${BENCH_VERBOSE:-0}" = 1 ]; then
			cat "$out/plain.$n.$r" "$out/shim.$n.$r"
		fi
	done
	r=$((r + 1))
done

# One row per operation: for each column (plain/shim x maps) the median
# B/A over the runs and [lowest-highest]; the goal last.
for arm in plain shim; do
	for n in $maps; do
		for f in "$out/$arm.$n".*; do
			awk -v col="$arm $n" 'NR > 2 {
				rest = substr($0, 27); split(rest, f, " ")
				name = substr($0, 1, 26); sub(/ +$/, "", name)
				goal = rest
				sub(/^ *[0-9.]+ +[0-9.]+ +[0-9.]+x +[0-9.]+x +/, "", goal)
				sub(/x$/, "", f[3])
				printf "%s\t%s\t%s\t%s\n", name, col, f[3], goal
			}' "$f"
		done
	done
done | awk -F '\t' -v runs="$runs" -v maps="$maps" '
function median(key,   n, i, j, t, v) {
	n = split(vals[key], v, " ")
	for (i = 2; i <= n; i++)
		for (j = i; j > 1 && v[j - 1] + 0 > v[j] + 0; j--) {
			t = v[j]; v[j] = v[j - 1]; v[j - 1] = t
		}
	lo = v[1]; hi = v[n]
	return v[int((n + 1) / 2)]
}
{
	if (!($1 in seen)) { seen[$1] = 1; order[++nops] = $1 }
	key = $1 SUBSEP $2
	vals[key] = vals[key] " " $3
	goal[$1] = $4
}
END {
	nm = split(maps, m, " ")
	printf "B/A = libc entry point / raw system call, median of %d runs [lowest-highest]; plain = no shim, shim = through libadvshim.so (embedded default policy)\n", runs
	printf "%-26s", "operation"
	for (a = 1; a <= 2; a++)
		for (i = 1; i <= nm; i++)
			printf " %22s", (a == 1 ? "plain " : "shim ") m[i] / 1000 "k maps"
	printf "   %s\n", "goal (shim)"
	for (o = 1; o <= nops; o++) {
		printf "%-26s", order[o]
		for (a = 1; a <= 2; a++)
			for (i = 1; i <= nm; i++) {
				key = order[o] SUBSEP (a == 1 ? "plain " : "shim ") m[i]
				if (!(key in vals)) { printf " %22s", "-"; continue }
				med = median(key)
				printf " %22s", sprintf("%.3fx [%.3f-%.3f]", med, lo, hi)
			}
		printf "   %s\n", goal[order[o]]
	}
}'
