#!/bin/sh
# SPDX-License-Identifier: MIT
#
# guest-start.sh - the guest half of make lab-opensearch's first step: can
# the real OpenSearch node start in the emulated guest, and in how much
# guest time?  (Run as the lab job by tools/lab/lab.sh job; its files are in
# /lab/job: app/ (the launcher and opensearch/), runtime/, syslib/, home/
# (a node home whose data holds the k-NN index, built on the host).)
#
# Copies the node's home onto the ext4 ramdisk, then starts the node
# STARTS times (default 2: the first creates a dynamic AppCDS archive in
# /tmp, the next use it), each time: guest ms from exec to "node up"
# (HOME/http.port), a short k-NN search (its summary and result hash), the
# stop.  Writes /out/startup.tsv, /out/search-N.tsv, /out/console-N.log.
. /lab/common.sh

J=/lab/job
: "${STARTS:=2}" "${QUERIES:=50}" "${START_LIMIT_S:=1500}"
export LD_LIBRARY_PATH=$J/syslib ADVSHIM_OPENSEARCH_JAVA=$J/runtime/bin/java
export ADVSHIM_OPENSEARCH_START_S=$START_LIMIT_S OPENSEARCH_HEAP=${OPENSEARCH_HEAP:-256m}
# Under TCG: C1 only, the serial collector, an AppCDS archive.
export OPENSEARCH_JAVA_OPTS="-XX:TieredStopAtLevel=1 -XX:-UsePerfData -XX:+AutoCreateSharedArchive -XX:SharedArchiveFile=/tmp/opensearch.jsa"

# The guest's init leaves loopback down: the node binds 127.0.0.1, but
# the client's connect fails with "Network is unreachable" (first run).
ip link set lo up 2>/dev/null || ifconfig lo 127.0.0.1 up 2>/dev/null ||
	say "cannot bring loopback up; the client will not reach the node"
mkdir -p /data/os
cp -r "$J/home/." /data/os/ || die "cannot copy the node's home to /data"
rm -rf "$J/home"
sync
say "index $(du -sm /data/os/data | cut -f1) MiB on ext4/brd; runtime $(du -sm "$J/runtime" | cut -f1) MiB"
printf 'start\tup_ms\tsearch_qps\tresult_hash\n' >/out/startup.tsv
n=1
while [ "$n" -le "$STARTS" ]; do
	t0=$(uptime_ms)
	if ! "$J/app/advshim-opensearch" start /data/os >/dev/null 2>/out/start-$n.err; then
		cp /data/os/logs/console.log "/out/console-$n.log" 2>/dev/null
		say "start $n: the node did not come up within $START_LIMIT_S guest s ($(( ($(uptime_ms) - t0) / 1000 )) s)"
		printf '%d\t-\t-\t-\n' "$n" >>/out/startup.tsv
		break
	fi
	up=$(( $(uptime_ms) - t0 ))
	say "start $n: node up after $up guest ms"
	"$J/app/advshim-opensearch" search /data/os --threads 2 --queries "$QUERIES" >"/out/search-$n.tsv" 2>>/out/start-$n.err
	qps=$(sed -n 's/^# summary .* qps=\([0-9.]*\) .*/\1/p' "/out/search-$n.tsv")
	hash=$(sed -n 's/^# result-hash: //p' "/out/search-$n.tsv")
	printf '%d\t%d\t%s\t%s\n' "$n" "$up" "${qps:--}" "${hash:--}" >>/out/startup.tsv
	say "start $n: search $QUERIES queries: ${qps:-?} q/s, hash ${hash:-none}"
	"$J/app/advshim-opensearch" stop /data/os
	cp /data/os/logs/console.log "/out/console-$n.log" 2>/dev/null
	n=$((n + 1))
done
cat /out/startup.tsv
