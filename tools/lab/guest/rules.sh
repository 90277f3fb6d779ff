#!/bin/sh
# SPDX-License-Identifier: MIT
#
# rules.sh - tries, on the running kernel, every lru_gen rule advshim-watch
# relies on (tools/watch/kver.[ch]) with real writes to
# /sys/kernel/debug/lru_gen, and captures the kernel's own text as
# fixtures.  The host compares the results with experiments/rules.expect.
#
# Writes /out/rules.tsv: one line per check,
#   CHECK <tab> RESULT <tab> MAX_SEQ_MOVE <tab> DETAIL
# RESULT is OK or the errno name the write failed with; MAX_SEQ_MOVE is
# "advanced" or "same" (node 0 of the memcg written to), "-" when it does
# not apply.  Writes /out/fixtures/: lru_gen, lru_gen_full, enabled,
# cgroups (/proc/cgroups), memory.stat (a memcg with page cache),
# config-lines (what the kernel says about itself).
. /lab/common.sh

OUT=/out/rules.tsv
FIX=/out/fixtures
mkdir -p "$FIX"
: >"$OUT"

# errno_of TEXT: the errno name of a strerror text (glibc's, as busybox's
# "write error: ..." prints it).
errno_of() {
	case $1 in
	*"Invalid argument"*) echo EINVAL ;;
	*"File exists"*) echo EEXIST ;;
	*"out of range"*) echo ERANGE ;;
	*"No such file"*) echo ENOENT ;;
	*"Operation not permitted"*) echo EPERM ;;
	*"Permission denied"*) echo EACCES ;;
	*"Device or resource busy"*) echo EBUSY ;;
	*"Interrupted"*) echo EINTR ;;
	*"No such device"*) echo ENODEV ;;
	*) echo "other($1)" ;;
	esac
}

# try CMD: writes CMD (one write(2), newline ended); prints OK or an errno.
try() {
	local err
	err=$( { echo "$1" >"$LRU_GEN_FILE"; } 2>&1) && { echo OK; return; }
	errno_of "$err"
}

# max_seq_of CG: node 0's max_seq of CG ("" when CG is not listed).
max_seq_of() {
	lru_gen_of "$1" | awk '{ print $3 }'
}

id_of() {
	lru_gen_of "$1" | awk '{ print $1 }'
}

# record CHECK RESULT MOVE DETAIL
record() {
	printf '%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" >>"$OUT"
	say "rule $1: $2 ($3) $4"
}

# check NAME CG CMD: writes CMD (ID, SEQ, SEQ-1, SEQ+1 substituted from
# CG's current lru_gen entry) and records the errno and max_seq move.
check() {
	local name=$1 cg=$2 cmd=$3 id seq before after r move
	id=$(id_of "$cg"); seq=$(max_seq_of "$cg")
	[ -n "$id" ] || { record "$name" SKIP - "memcg $cg not in lru_gen"; return; }
	cmd=$(echo "$cmd" | sed "s/ID/$id/g; s/SEQ-1/$((seq - 1))/g;
		s/SEQ+1/$((seq + 1))/g; s/SEQ/$seq/g")
	before=$seq
	r=$(try "$cmd")
	after=$(max_seq_of "$cg")
	move=same
	[ "${after:-0}" -gt "$before" ] && move=advanced
	record "$name" "$r" "$move" "'$cmd' max_seq $before -> ${after:--}"
}

# fill CG MIB: a memcg with MIB MiB of page cache (a file read in it).
fill() {
	make_file "/data/rules-$2.bin" "$2"
	in_cgroup "$1" cat "/data/rules-$2.bin" >/dev/null
}

# age_to_four CG: ages CG until it has 4 generations (max - min = 3).
age_to_four() {
	local i=0 g
	while [ $i -lt 6 ]; do
		g=$(lru_gen_of "$1")
		set -- "$1" $g
		[ $(($4 - $3)) -ge 3 ] && return 0
		try "+ $2 0 $4" >/dev/null
		i=$((i + 1))
	done
}

# capture_idle: the kernel's text with the root and an idle memcg.
capture_idle() {
	cp "$LRU_GEN_FILE" "$FIX/lru_gen"
	cp /sys/kernel/debug/lru_gen_full "$FIX/lru_gen_full" 2>/dev/null
	cat "$LRU_GEN_ENABLED_FILE" >"$FIX/enabled"
	cp /proc/cgroups "$FIX/cgroups"
	uname -r >"$FIX/version"
}

# --- cgroup v1: can the memory controller be mounted, and aged? -------
check_v1() {
	local err v1=/tmp/v1mem
	mkdir -p "$v1"
	echo "-memory -io" >"$CG_ROOT/cgroup.subtree_control" 2>/dev/null
	err=$(mount -t cgroup -o memory memcg-v1 "$v1" 2>&1)
	if [ $? != 0 ]; then
		record v1_mount "$(errno_of "$err")" - "mount -t cgroup -o memory: $err; /proc/cgroups memory line: '$(grep -w ^memory /proc/cgroups)'"
		record v1_age unavailable - "no cgroup v1 memory controller to try"
	else
		record v1_mount OK - "v1 memory hierarchy mounted"
		mkdir "$v1/rules-v1"
		echo $(( 64 << 20 )) >"$v1/rules-v1/memory.limit_in_bytes"
		make_file /data/rules-v1.bin 8
		sh -c 'echo $$ >"$0/cgroup.procs" && exec cat /data/rules-v1.bin' "$v1/rules-v1" >/dev/null
		cp "$LRU_GEN_FILE" "$FIX/lru_gen.v1"
		check v1_age /rules-v1 "+ ID 0 SEQ"
		# free its pages so the hierarchy dies with it at umount
		echo 0 >"$v1/rules-v1/memory.force_empty"
		rmdir "$v1/rules-v1"
		umount "$v1"
	fi
	# The v1 hierarchy outlives its umount while the dying memcg still
	# holds a few kernel pages; mounting and unmounting it again once
	# they are gone lets it go (seen on 6.1), and memory goes back to v2.
	local i=0
	until echo "+memory" >"$CG_ROOT/cgroup.subtree_control" 2>/dev/null; do
		i=$((i + 1))
		[ $i -gt 40 ] && die "cannot give the memory controller back to cgroup2"
		sleep 0.5
		[ $((i % 6)) = 3 ] &&
			mount -t cgroup -o memory memcg-v1 "$v1" 2>/dev/null && umount "$v1"
	done
	echo "+io" >"$CG_ROOT/cgroup.subtree_control"
}

say "kernel $(uname -r); lru_gen root line: $(grep -m1 '^memcg' "$LRU_GEN_FILE")"
check_v1

# --- IDs ----------------------------------------------------------------
make_memcg /rules-a 256
fill /rules-a 16
id=$(id_of /rules-a)
ino=$(stat -c %i "$CG_ROOT/rules-a")
record id_scheme "$([ "$id" = "$ino" ] && echo inode || echo private)" - "memcg ID $id, cgroup inode $ino"
record root_line OK - "$(grep -m1 '^memcg' "$LRU_GEN_FILE" | tr -s ' ')"
cp "$CG_ROOT/rules-a/memory.stat" "$FIX/memory.stat"
capture_idle
# ID reuse: a new memcg made a second after one is removed.
# (the ID is freed when the memcg goes offline, shortly after rmdir)
make_memcg /rules-r1 16; r1=$(id_of /rules-r1); remove_memcg /rules-r1
sleep 1
make_memcg /rules-r2 16; fill /rules-r2 1; r2=$(id_of /rules-r2)
record id_reuse "$([ "$r1" = "$r2" ] && echo reused || echo fresh)" - "removed ID ${r1:-unlisted}, next new ID ${r2:-unlisted}"
remove_memcg /rules-r2

# --- the aging command --------------------------------------------------
check plain /rules-a "+ ID 0 SEQ"
check field4 /rules-a "+ ID 0 SEQ 1"
check field4_zero /rules-a "+ ID 0 SEQ 0"
check field45 /rules-a "+ ID 0 SEQ 1 1"
check swappiness_max /rules-a "+ ID 0 SEQ max"
check swappiness_201 /rules-a "+ ID 0 SEQ 201"
check swappiness_202 /rules-a "+ ID 0 SEQ 202"
age_to_four /rules-a
check force0_4gens /rules-a "+ ID 0 SEQ 0 0"
age_to_four /rules-a
check plain_4gens /rules-a "+ ID 0 SEQ"
check stale /rules-a "+ ID 0 SEQ-1"
check future /rules-a "+ ID 0 SEQ+1"
check unknown_node /rules-a "+ ID 1 SEQ"
check two_cmds /rules-a "+ ID 0 SEQ,+ ID 0 SEQ+1"
check stop_at_error /rules-a "+ ID 0 SEQ+1;+ ID 0 SEQ"
unknown=$(( ${ino:-1} + 100000 ))
[ "$id" = "$ino" ] || unknown=65000
record unknown_id "$(try "+ $unknown 0 1")" - "'+ $unknown 0 1'"

# a cgroup without the memory controller (its parent does not enable it)
make_memcg /rules-nomem 16
mkdir "$CG_ROOT/rules-nomem/child"
nino=$(stat -c %i "$CG_ROOT/rules-nomem/child")
record no_memcg_ino "$(try "+ $nino 0 1")" - "'+ $nino 0 1' (cgroup inode of a cgroup without its own memcg; listed: $(grep -c ' /rules-nomem/child$' "$LRU_GEN_FILE"))"
rmdir "$CG_ROOT/rules-nomem/child"; remove_memcg /rules-nomem

# removed memcgs: one empty (freed), one whose page cache keeps it dying
make_memcg /rules-gone 16; fill /rules-gone 1
gid=$(id_of /rules-gone); gseq=$(max_seq_of /rules-gone)
remove_memcg /rules-gone
sleep 1
record removed_cached "$(try "+ $gid 0 $gseq")" - "'+ $gid 0 $gseq' after rmdir; still listed: $(grep -c " /rules-gone\$" "$LRU_GEN_FILE")"
make_memcg /rules-empty 16
eid=$(id_of /rules-empty); eseq=$(max_seq_of /rules-empty)
remove_memcg /rules-empty
sleep 1
record removed_empty "$(try "+ ${eid:-0} 0 ${eseq:-0}")" - "'+ ${eid:-?} 0 ${eseq:-?}' after rmdir of an empty memcg (listed before: $([ -n "$eid" ] && echo yes || echo no))"

# two writers racing for the same max_seq of a memcg with a process whose
# page tables the aging walk scans
make_memcg /rules-race 256
make_file /data/rules-race.bin 64
in_cgroup /rules-race advshim-load random -a normal -t 1 -d 30 /data/rules-race.bin >/dev/null 2>&1 &
loader=$!
sleep 3
rid=$(id_of /rules-race)
rounds=
for i in 1 2 3 4 5 6 7 8; do
	[ -n "$rid" ] || break
	s=$(max_seq_of /rules-race)
	try "+ $rid 0 $s" >/tmp/race.a &
	pa=$!
	try "+ $rid 0 $s" >/tmp/race.b &
	wait $pa $!
	rounds="$rounds $(cat /tmp/race.a)/$(cat /tmp/race.b)/+$(( $(max_seq_of /rules-race) - s ))"
done
errs=$(echo "$rounds" | tr ' /' '\n\n' | grep -v -e '^OK$' -e '^+' -e '^$' | sort -u | tr '\n' ' ')
record race "$(echo "${errs:-OK}" | sed 's/ $//; s/ /+/g')" - "two concurrent '+ $rid 0 SEQ' per round (result/result/max_seq move):$rounds"
kill $loader 2>/dev/null; wait $loader 2>/dev/null
cp /sys/kernel/debug/lru_gen_full "$FIX/lru_gen_full.busy" 2>/dev/null
remove_memcg /rules-race
remove_memcg /rules-a
say "rules: $(wc -l <"$OUT") checks written"
