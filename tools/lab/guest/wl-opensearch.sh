#!/bin/sh
# SPDX-License-Identifier: MIT
#
# wl-opensearch.sh - workload "opensearch": the bug report's application,
# a real OpenSearch 3.6 node with the k-NN plugin (tools/opensearch), its
# HNSW index (engine lucene) searched by advshim-opensearch's client.  The
# job files (tools/opensearch/lab/lab-opensearch.sh) are in /lab/job: app/
# (the launcher and its jars), runtime/ (a jlink'd JDK), syslib/ (host
# libraries it needs), home/ (a node home whose data holds the index).
#
# Each arm starts the node in the arm's memcg (the shim, when the arm loads
# it, is in the JVM from its first mmap: Lucene's posix_madvise calls come
# at index open), runs OS_WARM_QUERIES queries, then sizes the memcg as
# the report's: memory.max = what the memcg holds less the cached index
# plus OS_CACHE_PCT % of the index (a little below it), and searches for
# DURATION s with OS_THREADS threads; the cold read (as the load workload)
# starts COLD_AT s after the search does.  The client runs outside the
# memcg.  Besides the arm's files: rr.txt and inspect.txt (5 s before the
# cold read), inspect-end.txt (as the search ends: the shim's switches with
# their times), shim.log (the shim's lines, level info).  Interface:
# wl-load.sh.
. /lab/wl-common.sh

J=/lab/job
OS_HOME=/data/os
: "${OS_CACHE_PCT:=96}" "${OS_HEAP:=256m}" "${OS_START_S:=1200}"
: "${OS_THREADS:=${THREADS:-2}}" "${OS_WARM_QUERIES:=120}"
OS_MARK=/tmp/opensearch.searching

# os_exports: the launcher's settings for the lab: its runtime, C1 only,
# the heap touched at start (the memcg's anon does not grow during the
# search), a dynamic AppCDS archive shared by the arms of a boot.
os_exports() {
	export LD_LIBRARY_PATH=$J/syslib ADVSHIM_OPENSEARCH_JAVA=$J/runtime/bin/java
	export ADVSHIM_OPENSEARCH_START_S="$OS_START_S" OPENSEARCH_HEAP="$OS_HEAP"
	export OPENSEARCH_JAVA_OPTS="-XX:TieredStopAtLevel=1 -XX:-UsePerfData -XX:+AlwaysPreTouch -XX:+AutoCreateSharedArchive -XX:SharedArchiveFile=/tmp/opensearch.jsa"
}

# os ARGS...: the launcher (client commands, stop) outside any memcg.
os() {
	(os_exports && exec "$J/app/advshim-opensearch" "$@")
}

wl_prepare() {
	[ -x "$J/app/advshim-opensearch" ] ||
		die "no OpenSearch node in the job (run it as make lab-opensearch)"
	# The guest's init leaves loopback down; the node binds 127.0.0.1.
	ip link set lo up 2>/dev/null || ifconfig lo 127.0.0.1 up 2>/dev/null ||
		die "cannot bring loopback up"
	if [ ! -d "$OS_HOME/data" ]; then
		mkdir -p "$OS_HOME" && cp -r "$J/home/." "$OS_HOME/" || die "cannot copy the node's home to /data"
	fi
	make_file /data/cold.bin "$COLD_MB"
	rm -f "$OS_MARK" "$OS_MARK.failed"
	sync
}

# index_files: the index's Lucene files, largest first.
index_files() {
	find "$OS_HOME/data" -path '*/index/*' -type f -exec ls -s {} + 2>/dev/null |
		sort -rn | awk '{ print $2 }'
}

wl_files() {
	local vec
	vec=$(index_files | grep '\.vec$' | head -n 1)
	echo "${vec:-$(index_files | head -n 1)}" /data/cold.bin
}

# size_memcg CG: memory.max = what CG holds now (the warm node: its heap,
# the kernel's share, its logs, the index as far as it is cached) less
# the cached index, plus OS_CACHE_PCT % of the index's bytes: the
# report's node had 2.8 GiB of page cache for a 2.9 GiB index (96%).
size_memcg() {
	local cg=$1 cur idx cached max
	cur=$(cat "$CG_ROOT$cg/memory.current")
	idx=$(index_files | xargs ls -l | awk '{ s += $5 } END { print s + 0 }')
	# shellcheck disable=SC2046
	cached=$(advshim-resid $(index_files) | awk '{ for (i = 1; i <= NF; i++) s += $i } END { printf "%d\n", s * 1048576 }')
	max=$(( cur - cached + idx / 100 * OS_CACHE_PCT ))
	echo "$max" >"$CG_ROOT$cg/memory.max" || die "cannot set memory.max of $cg to $max"
	say "opensearch: memcg $cg: $(( cur >> 20 )) MiB used, index $(( idx >> 20 )) MiB ($(( cached >> 20 )) MiB cached), memory.max $(( max >> 20 )) MiB" >&2
}

# os_fail WHY: the reader gave up; the cold reader waiting for the search
# gives up too.
os_fail() {
	echo "opensearch: $1" >&2
	touch "$OS_MARK.failed"
	return 1
}

# os_snapshot CG: 5 s before the cold read, into the arm's directory ($dir,
# arm.sh's): rr.txt (which index files the node maps MADV_RANDOM, the
# query table's rr_files) and inspect.txt (advshim inspect on the node:
# what the shim decided and why, when it is loaded).
os_snapshot() {
	local jpid
	jpid=$(wl_java_pid "$1") || { echo "opensearch: no java process in $1" >&2; return 0; }
	wl_rr "$jpid" "$OS_HOME/data" "$dir/rr.txt"
	advshim inspect "$jpid" >"$dir/inspect.txt" 2>&1
}

wl_reader() {
	local cg=$1 t0 rc spid jpid
	shift
	t0=$(uptime_ms)
	# The launcher's JVM is a child of the shell put into CG; PRE (the
	# shim or not) reaches it through the environment.
	# ADVSHIM_LOG=info: the shim's decisions (the adaptive ones among
	# them) in the node's console.log, kept as shim.log.
	(os_exports && in_cgroup "$cg" env "$@" ADVSHIM_LOG=info "$J/app/advshim-opensearch" start "$OS_HOME") \
		>/tmp/opensearch.start 2>&1 ||
		os_fail "the node did not start: $(tail -n 3 /tmp/opensearch.start)" || return 1
	say "opensearch: node up after $(( ($(uptime_ms) - t0) / 1000 )) guest s (pid port: $(tail -n 1 /tmp/opensearch.start))" >&2
	if ! os search "$OS_HOME" --threads "$OS_THREADS" --queries "$OS_WARM_QUERIES" >/tmp/opensearch.warm 2>&1; then
		os stop "$OS_HOME"
		os_fail "the warm-up search failed: $(tail -n 3 /tmp/opensearch.warm)"
		return 1
	fi
	size_memcg "$cg"
	touch "$OS_MARK"
	# The first 100 queries (the same in every arm: one seed) are hashed.
	os search "$OS_HOME" --threads "$OS_THREADS" --duration "$DURATION" --hash-queries 100 &
	spid=$!
	sleep $(( COLD_AT > 5 ? COLD_AT - 5 : 1 ))
	os_snapshot "$cg"
	wait "$spid"
	rc=$?
	# The switches' times: the shim's log has none, its page does.
	jpid=$(wl_java_pid "$cg") && advshim inspect "$jpid" >"$dir/inspect-end.txt" 2>&1
	grep -a '^advshim\[' "$OS_HOME/logs/console.log" >"$dir/shim.log" 2>/dev/null
	# The measurement is over: the stop (the JVM's exit allocates) gets
	# the room it needs instead of the memcg's OOM killer.
	echo max >"$CG_ROOT$cg/memory.max" 2>/dev/null
	os stop "$OS_HOME" || say "opensearch: the node did not stop within 30 s" >&2
	return $rc
}

wl_cold() {
	while [ ! -f "$OS_MARK" ]; do
		[ -f "$OS_MARK.failed" ] && return 1
		sleep 1
	done
	wl_cold_stream "$@"
}
