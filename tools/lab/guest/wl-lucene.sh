#!/bin/sh
# SPDX-License-Identifier: MIT
#
# wl-lucene.sh - workload "lucene": real Lucene 10.4 (tools/lucene), one
# JVM's LUCENE_THREADS query threads (advshim-lucene search, HNSW KNN,
# --read-advice context: Lucene maps .vec/.vex/.fdt MADV_RANDOM) over an
# index built on the host.  The job files (tools/lucene/lab/lab-lucene.sh)
# are in /lab/job: app/ (the launcher, its jar and lucene-core), runtime/
# (a jlink'd JDK), syslib/ (host libraries it needs), idx/ (the index).
#
# Once per boot (the first arm's wl_prepare, outside any memcg) the index
# goes onto the ext4 ramdisk (/data/idx), a training run creates the JVM's
# AppCDS archive (/tmp, tmpfs: never in an arm's memcg), checks the result
# hash and measures the JVM's anonymous memory, and the JVM's start-up is
# timed plain and under the shim: /out/lucene.env, /out/startup.tsv.
# Every arm's memcg is then sized to hold the JVM and the whole index:
# MEMCG_MB = anonymous memory + index + SLACK_MB (or LUCENE_MEMCG_MB); the
# cold read is the load workload's.  The reader also records the advice in
# force on the index files COLD_AT - 5 s into the arm (the JVM's smaps:
# rr.txt, "rr PATH" or "- PATH").  Interface: wl-load.sh.
. /lab/wl-common.sh

J=/lab/job
: "${HASH_QUERIES:=200}" "${SLACK_MB:=12}" "${LUCENE_THREADS:=${THREADS:-4}}"
# Under TCG: C1 only (C2's compilations cost minutes of emulated CPU), the
# serial collector, a fixed pre-touched heap (the memcg's anon does not
# grow during the search), and the AppCDS archive (class loading and
# verification are most of an emulated JVM's start).
JVM_FLAGS="-J-Xms64m -J-Xmx64m -J-XX:+AlwaysPreTouch -J-XX:TieredStopAtLevel=1
	-J-XX:+UseSerialGC -J-XX:-UsePerfData -J-XX:+AutoCreateSharedArchive
	-J-XX:SharedArchiveFile=/tmp/advshim-lucene.jsa"
export LD_LIBRARY_PATH=$J/syslib ADVSHIM_LUCENE_JAVA=$J/runtime/bin/java

# lucene_train: the training run (archive, result hash, anonymous memory)
# and the start-up timing, into /out/lucene.env and /out/startup.tsv.
lucene_train() {
	local t0 t1 pid i anon_kib hash idx_mib r m pre
	idx_mib=$(du -sm /data/idx | cut -f1)
	t0=$(uptime_ms)
	rm -f /tmp/lucene.hold
	mkfifo /tmp/lucene.hold
	# Not through a shell function: $! must be the launcher, which execs
	# the JVM (a function in the background is a subshell of its own).
	# shellcheck disable=SC2086
	"$J/app/advshim-lucene" $JVM_FLAGS search /data/idx --threads "$LUCENE_THREADS" --queries "$HASH_QUERIES" \
		--read-advice context --hold </tmp/lucene.hold >/out/train.tsv 2>/out/train.err &
	pid=$!
	exec 3>/tmp/lucene.hold
	i=0
	while ! grep -qs '^# result-hash:' /out/train.tsv && kill -0 "$pid" 2>/dev/null && [ $i -lt 3000 ]; do
		sleep 0.2
		i=$((i + 1))
	done
	anon_kib=$(awk '/^RssAnon:/ { print $2 }' "/proc/$pid/status" 2>/dev/null)
	exec 3>&-
	wait "$pid"
	t1=$(uptime_ms)
	rm -f /tmp/lucene.hold
	hash=$(sed -n 's/^# result-hash: //p' /out/train.tsv)
	[ -n "$hash" ] && [ -n "$anon_kib" ] ||
		die "lucene: training run failed: $(grep -v WARN /out/train.err | tail -n 5)"
	# The heap alone is 64 MiB, pre-touched: less is not the JVM's.
	[ "$anon_kib" -ge 65536 ] ||
		die "lucene: training run: $anon_kib KiB anonymous memory is not a JVM's (pid $pid: $(cat "/proc/$pid/comm" 2>/dev/null))"
	MEMCG_MB=${LUCENE_MEMCG_MB:-$(( anon_kib / 1024 + idx_mib + SLACK_MB ))}
	say "lucene: training run $((t1 - t0)) ms, JVM anonymous memory $((anon_kib / 1024)) MiB, hash $hash; memcg $MEMCG_MB MiB"

	# JVM start-up (index open, one query, exit), plain and shim, alternating.
	printf 'run\tmode\tms\n' >/out/startup.tsv
	for r in 1 2; do
		for m in plain shim; do
			pre=ADVSHIM_LAB=off
			[ "$m" = shim ] && pre=LD_PRELOAD=/opt/advshim/bin/libadvshim.so
			t0=$(uptime_ms)
			env "$pre" "$J/app/advshim-lucene" $JVM_FLAGS search /data/idx --threads 1 \
				--queries 1 --read-advice context >/dev/null 2>&1
			printf '%s\t%s\t%s\n' "$r" "$m" $(( $(uptime_ms) - t0 )) >>/out/startup.tsv
		done
	done
	say "lucene: JVM start-up (ms): $(awk 'NR > 1 { printf "%s %s; ", $2, $3 }' /out/startup.tsv)"
	{
		echo "idx_mib=$idx_mib cold_mb=$COLD_MB memcg_mb=$MEMCG_MB anon_kib=$anon_kib"
		echo "duration=$DURATION cold_at=$COLD_AT hash_queries=$HASH_QUERIES train_hash=$hash"
		echo "runtime_mib=$(du -sm "$J/runtime" | cut -f1) modules=$(cat "$J/runtime/modules.txt")"
	} >/out/lucene.env.tmp && mv /out/lucene.env.tmp /out/lucene.env
}

# wl_prepare: the index on /data once per boot, the one-time runs, and
# the arm's memcg size (MEMCG_MB, which arm.sh makes the memcg with).
wl_prepare() {
	[ -x "$J/app/advshim-lucene" ] ||
		die "no advshim-lucene in the job (run it as make lab-lucene)"
	if [ ! -f /data/idx/.copied ]; then
		mkdir -p /data/idx
		cp "$J"/idx/* /data/idx/ || die "cannot copy the index to /data"
		touch /data/idx/.copied
		# The job's copy is in the initramfs (RAM outside any memcg).
		rm -rf "$J/idx"
		say "lucene: index $(du -sm /data/idx | cut -f1) MiB on ext4/brd; cold file $COLD_MB MiB; runtime $(du -sm "$J/runtime" | cut -f1) MiB ($(cat "$J/runtime/modules.txt"))"
	fi
	make_file /data/cold.bin "$COLD_MB"
	sync
	[ -f /out/lucene.env ] || lucene_train
	MEMCG_MB=$(sed -n 's/.*memcg_mb=\([0-9]*\).*/\1/p' /out/lucene.env)
	[ -n "$MEMCG_MB" ] || die "lucene: no memcg_mb in /out/lucene.env"
}

wl_files() {
	local vec
	vec=$(du -k /data/idx/*.vec 2>/dev/null | sort -rn | head -n 1 | cut -f2)
	echo "${vec:-$(du -k /data/idx/* | sort -rn | head -n 1 | cut -f2)}" /data/cold.bin
}

# lucene_rr CG OUT: the advice on the index files in the JVM's smaps
# ("rr PATH" when any mapping of PATH has rr in VmFlags, else "- PATH").
# The JVM is found in CG by its name (the launcher is a shell script).
lucene_rr() {
	local jpid
	jpid=$(wl_java_pid "$1") || echo "lucene: no java process in $1 to read smaps from" >&2
	wl_rr "$jpid" /data/idx "$2"
}

# wl_reader CG PRE...: the search for DURATION s (its rows and summary on
# stdout); rr.txt into the arm's directory ($dir, arm.sh's) at COLD_AT - 5 s.
wl_reader() {
	local cg=$1 jvm rc
	shift
	# shellcheck disable=SC2086
	in_cgroup "$cg" env "$@" "$J/app/advshim-lucene" $JVM_FLAGS search /data/idx \
		--threads "$LUCENE_THREADS" --duration "$DURATION" --read-advice context \
		--interval-ms 1000 --hash-queries "$HASH_QUERIES" &
	jvm=$!
	sleep $((COLD_AT > 5 ? COLD_AT - 5 : 1))
	lucene_rr "$cg" "$dir/rr.txt"
	wait "$jvm"
	rc=$?
	[ "$rc" = 0 ] || return "$rc"
	grep -q '^# result-hash:' "$dir/load.tsv" || { echo "lucene: no result hash" >&2; return 1; }
}

wl_cold() {
	wl_cold_stream "$@"
}
