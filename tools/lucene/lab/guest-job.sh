#!/bin/sh
# SPDX-License-Identifier: MIT
#
# guest-job.sh - the guest half of make lab-lucene (run as the lab job by
# tools/lab/lab.sh job; its files are in /lab/job: app/, runtime/,
# syslib/, idx/, guest-arm.sh).
#
#  1. copies the index onto the ext4 ramdisk (/data/idx) and makes the
#     cold file;
#  2. a training run outside any memcg: creates the JVM's AppCDS archive
#     (/tmp, tmpfs: it never counts against an arm's memcg), checks the
#     result hash, and measures the JVM's anonymous memory;
#  3. JVM start-up, plain and under the shim (alternating);
#  4. the arms (ARMS, one per line: NAME VAR=VALUE...), each in a memcg
#     sized to hold the JVM's anonymous memory plus the whole index.
# Settings: DURATION, COLD_AT, HASH_QUERIES, SLACK_MB, LAB_REPEAT, LUCENE_COLD_MB
# (default: the index's size), LUCENE_MEMCG_MB (instead of the measured
# size), ARMS.  (common.sh gives MEMCG_MB and COLD_MB defaults of its own
# scenario, hence the other names.)  Writes /out/lucene.env,
# /out/startup.tsv and /out/arms/*.
. /lab/common.sh

J=/lab/job
: "${DURATION:=80}" "${COLD_AT:=30}" "${HASH_QUERIES:=200}" "${SLACK_MB:=12}"
# Under TCG: C1 only (C2's compilations cost minutes of emulated CPU), the
# serial collector, a fixed pre-touched heap, and an AppCDS archive the
# training run creates (class loading and verification are most of an
# emulated JVM's start).
JVM_FLAGS="-J-Xms64m -J-Xmx64m -J-XX:+AlwaysPreTouch -J-XX:TieredStopAtLevel=1
	-J-XX:+UseSerialGC -J-XX:-UsePerfData -J-XX:+AutoCreateSharedArchive
	-J-XX:SharedArchiveFile=/tmp/advshim-lucene.jsa"
export JVM_FLAGS DURATION COLD_AT HASH_QUERIES
export LD_LIBRARY_PATH=$J/syslib ADVSHIM_LUCENE_JAVA=$J/runtime/bin/java

mkdir -p /data/idx
cp "$J"/idx/* /data/idx/ || die "cannot copy the index to /data"
rm -rf "$J/idx"
idx_mib=$(du -sm /data/idx | cut -f1)
COLD_MB=${LUCENE_COLD_MB:-$(( idx_mib > 32 ? idx_mib : 32 ))}
make_file /data/cold.bin "$COLD_MB"
sync
say "index $idx_mib MiB on ext4/brd; cold file $COLD_MB MiB; runtime $(du -sm "$J/runtime" | cut -f1) MiB ($(cat "$J/runtime/modules.txt"))"

# 2. Training: archive, hash, memory.
t0=$(uptime_ms)
mkfifo /tmp/hold
# shellcheck disable=SC2086
"$J/app/advshim-lucene" $JVM_FLAGS search /data/idx --threads 4 --queries "$HASH_QUERIES" \
	--read-advice context --hold </tmp/hold >/out/train.tsv 2>/out/train.err &
pid=$!
exec 3>/tmp/hold
i=0
while ! grep -qs '^# result-hash:' /out/train.tsv && kill -0 "$pid" 2>/dev/null && [ $i -lt 3000 ]; do
	sleep 0.2
	i=$((i + 1))
done
anon_kib=$(awk '/^RssAnon:/ { print $2 }' "/proc/$pid/status" 2>/dev/null)
exec 3>&-
wait "$pid"
t1=$(uptime_ms)
hash=$(sed -n 's/^# result-hash: //p' /out/train.tsv)
[ -n "$hash" ] && [ -n "$anon_kib" ] ||
	die "training run failed: $(grep -v WARN /out/train.err | tail -n 5)"
MEMCG_MB=${LUCENE_MEMCG_MB:-$(( anon_kib / 1024 + idx_mib + SLACK_MB ))}
export MEMCG_MB
say "training run: $((t1 - t0)) ms, JVM anonymous memory $((anon_kib / 1024)) MiB, hash $hash; memcg $MEMCG_MB MiB"

# 3. JVM start-up (index open, one query, exit), plain and shim, alternating.
printf 'run\tmode\tms\n' >/out/startup.tsv
for r in 1 2; do
	for m in plain shim; do
		pre=ADVSHIM_LAB=off
		[ "$m" = shim ] && pre=LD_PRELOAD=/opt/advshim/bin/libadvshim.so
		t0=$(uptime_ms)
		# shellcheck disable=SC2086
		env $pre "$J/app/advshim-lucene" $JVM_FLAGS search /data/idx --threads 1 --queries 1 \
			--read-advice context >/dev/null 2>&1
		printf '%s\t%s\t%s\n' "$r" "$m" $(( $(uptime_ms) - t0 )) >>/out/startup.tsv
	done
done
say "JVM start-up (ms): $(awk 'NR > 1 { printf "%s %s; ", $2, $3 }' /out/startup.tsv)"

{
	echo "idx_mib=$idx_mib cold_mb=$COLD_MB memcg_mb=$MEMCG_MB anon_kib=$anon_kib"
	echo "duration=$DURATION cold_at=$COLD_AT hash_queries=$HASH_QUERIES train_hash=$hash"
	echo "runtime_mib=$(du -sm "$J/runtime" | cut -f1) modules=$(cat "$J/runtime/modules.txt")"
} >/out/lucene.env

# 4. The arms, LAB_REPEAT rounds (more than one: NAME.rR).
r=1
while [ "$r" -le "${LAB_REPEAT:-1}" ]; do
	echo "$ARMS" | while read -r name settings; do
		case $name in ''|'#'*) continue ;; esac
		[ "${LAB_REPEAT:-1}" -gt 1 ] && name=$name.r$r
		say "arm $name: $settings"
		# shellcheck disable=SC2086
		env $settings "$J/guest-arm.sh" "$name" || echo "$name" >>/out/failed
	done
	r=$((r + 1))
done
[ -f /out/failed ] && die "arms failed: $(tr '\n' ' ' </out/failed)"
exit 0
