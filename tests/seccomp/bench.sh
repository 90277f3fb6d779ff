#!/bin/sh
# SPDX-License-Identifier: MIT
#
# bench.sh BUILD [ROUNDS] - what --seccomp costs (make bench-seccomp):
# the static probe's `bench` times N calls each of madvise(MADV_RANDOM)
# (trapped: a round trip to the supervisor), madvise(MADV_NORMAL) and
# getppid (both answered by the BPF program alone), plain and under
# `advshim run --seccomp`, ROUNDS times (default 5) alternating; prints
# the medians side by side and the ratios.  The supervisor logs at warn
# (nothing per call).  Numbers only: nothing here passes or fails.
set -u
B=${1:-build}
R=${2:-5}
A=$B/advshim
P=$B/tests/seccomp/probe
N=${SECCOMP_BENCH_CALLS:-20000}
T=$(mktemp -d "${TMPDIR:-/tmp}/advshim-seccomp-bench.XXXXXX")
trap 'rm -rf "$T"' EXIT
head -c 1048576 /dev/urandom >"$T/data.bin"
i=0
while [ $i -lt "$R" ]; do
	"$P" bench "$N" "$T/data.bin" >>"$T/plain"
	"$A" run --seccomp -l warn -- "$P" bench "$N" "$T/data.bin" >>"$T/filt"
	i=$((i + 1))
done
# median KEY FILE
median() {
	sed -n "s/.*$1=\([0-9.]*\).*/\1/p" "$2" | sort -n |
		awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}
echo "bench-seccomp: $N calls each, median of $R rounds, ns per call"
printf '%-28s %10s %12s %8s\n' call plain --seccomp ratio
for k in random normal getppid; do
	a=$(median ${k}_ns "$T/plain")
	b=$(median ${k}_ns "$T/filt")
	case $k in
	random) name="madvise RANDOM (trapped)" ;;
	normal) name="madvise NORMAL (BPF only)" ;;
	getppid) name="getppid (BPF only)" ;;
	esac
	printf '%-28s %10s %12s %8s\n' "$name" "$a" "$b" \
		"$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.2f", (a > 0 ? b / a : 0) }')"
done
