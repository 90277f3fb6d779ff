#!/bin/sh
# SPDX-License-Identifier: MIT
#
# guest-arm.sh NAME - one arm of the Lucene lab (make lab-lucene), in the
# MGLRU lab guest, in a fresh memcg /lab-NAME: advshim-lucene search (4
# query threads of one JVM, ADVISE_BY_CONTEXT, so Lucene maps .vec/.vex
# MADV_RANDOM) over the index in /data/idx; at COLD_AT s a second process
# reads /data/cold.bin twice through a normal mmap.  A sampler records the
# memcg's counters once a second.  Modelled on tools/lab/guest/arm.sh,
# whose helpers (/lab/common.sh) it uses.
#
# Settings (environment):
#   SHIM=off|default|FILE     preload libadvshim.so into the JVM
#   LRU_GEN=y|n               MGLRU on or off for this arm (default y)
#   WATCH=off|dry|live        advshim-watch on the memcg (default off)
#   MEMCG_MB DURATION COLD_AT HASH_QUERIES JVM_FLAGS   from guest-job.sh
#
# Writes /out/arms/NAME/: load.tsv (advshim-lucene's rows and summary),
# cold.tsv, samples.tsv (t_ms majflt refault activate rbytes memcg_id
# min_seq max_seq gen_file_pages, t_ms CLOCK_MONOTONIC like load.tsv's
# mono_ms), rr.txt (the index files' VmFlags at COLD_AT - 5 s), watch.log,
# memory.stat, arm.env, and ok when the arm ran to its end.
. /lab/common.sh

name=${1:?usage: guest-arm.sh NAME}
: "${SHIM:=off}" "${LRU_GEN:=y}" "${WATCH:=off}"
: "${MEMCG_MB:?}" "${DURATION:?}" "${COLD_AT:?}" "${HASH_QUERIES:=200}" "${JVM_FLAGS:=}"
J=/lab/job
cg=/lab-$name
dir=/out/arms/$name
mkdir -p "$dir"
sampler= watcher= cold= jvm=

cleanup() {
	for p in $sampler $watcher $cold $jvm; do
		kill "$p" 2>/dev/null
	done
	remove_memcg "$cg"
	[ "$LRU_GEN" = n ] && set_lru_gen y
}
trap cleanup EXIT
trap 'exit 130' INT TERM

case $SHIM in
off) pre="ADVSHIM_LAB=off" ;;
default) need_bin libadvshim.so; pre="LD_PRELOAD=/opt/advshim/bin/libadvshim.so" ;;
*) need_bin libadvshim.so; pre="LD_PRELOAD=/opt/advshim/bin/libadvshim.so ADVSHIM_CONFIG=$SHIM" ;;
esac
rm -f "$dir/ok"
set_lru_gen "$LRU_GEN"
sync
echo 3 >/proc/sys/vm/drop_caches
make_memcg "$cg" "$MEMCG_MB"

if [ "$WATCH" != off ]; then
	need_bin advshim-watch
	wflags="--cgroup $cg --interval-ms 1000 --log-format json"
	[ "$WATCH" = dry ] && wflags="$wflags --dry-run"
	# shellcheck disable=SC2086
	advshim-watch $wflags >"$dir/watch.log" 2>&1 &
	watcher=$!
	sleep 0.5
	kill -0 "$watcher" 2>/dev/null ||
		die "advshim-watch exited at once: $(tail -n 3 "$dir/watch.log")"
fi

t0=$(uptime_ms)
# shellcheck disable=SC2086
in_cgroup "$cg" env $pre "$J/app/advshim-lucene" $JVM_FLAGS search /data/idx --threads 4 \
	--duration "$DURATION" --read-advice context --interval-ms 1000 \
	--hash-queries "$HASH_QUERIES" >"$dir/load.tsv" 2>"$dir/load.err" &
jvm=$!
in_cgroup "$cg" advshim-load stream -l 2 -D $((COLD_AT * 1000)) /data/cold.bin \
	>"$dir/cold.tsv" 2>"$dir/cold.err" &
cold=$!

{
	printf 't_ms\tmajflt\trefault\tactivate\trbytes\tmemcg_id\tmin_seq\tmax_seq\tgen_file_pages\n'
	next=$((t0 + 1000))
	while kill -0 "$jvm" 2>/dev/null; do
		now=$(uptime_ms)
		if [ "$now" -lt "$next" ]; then
			sleep 0.$(printf '%03d' $(( (next - now) % 1000 )))
			continue
		fi
		next=$((next + 1000))
		g=$(lru_gen_of "$cg")
		set -- ${g:-- - - -}
		printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$(uptime_ms)" \
			"$(memstat "$cg" pgmajfault)" \
			"$(memstat "$cg" workingset_refault_file)" \
			"$(memstat "$cg" workingset_activate_file)" \
			"$(io_rbytes "$cg")" "$1" "$2" "$3" "$4"
	done
} >"$dir/samples.tsv" &
sampler=$!

# The advice in force on the index files before the cold read.
sleep $((COLD_AT > 5 ? COLD_AT - 5 : 1))
awk '/^[0-9a-f]+-[0-9a-f]+ / { f = ($NF ~ /^\/data\/idx\//) ? $NF : "" }
     f != "" && /^VmFlags:/ { rr = / rr/ ? "rr" : "-"; if (!(f in s) || rr == "rr") s[f] = rr }
     END { for (f in s) print s[f], f }' "/proc/$jvm/smaps" 2>/dev/null | sort -k2 >"$dir/rr.txt"

wait "$jvm"
rc=$?
jvm=
cp "$CG_ROOT$cg/memory.stat" "$dir/memory.stat" 2>/dev/null
wait "$cold"
cold=
wait "$sampler"
sampler=
[ -n "$watcher" ] && { kill -TERM "$watcher" 2>/dev/null; wait "$watcher"; watcher=; }
{
	echo "name=$name shim=$SHIM lru_gen=$LRU_GEN watch=$WATCH"
	echo "memcg_mb=$MEMCG_MB duration=$DURATION cold_at=$COLD_AT"
	echo "jvm_rc=$rc"
} >"$dir/arm.env"
[ "$rc" = 0 ] || die "arm $name: advshim-lucene failed: $(grep -v WARN "$dir/load.err" | tail -n 3)"
grep -q '^# result-hash:' "$dir/load.tsv" || die "arm $name: no result hash in load.tsv"
grep -q '^end' "$dir/cold.tsv" || die "arm $name: the cold read did not finish: $(tail -n 3 "$dir/cold.err")"
touch "$dir/ok"
say "arm $name done: $(sed -n 's/^# summary //p' "$dir/load.tsv" | cut -d' ' -f2-3)"
