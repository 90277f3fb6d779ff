# memcg.sh - sourced by soak.sh and tests/seccomp/run.sh: a memory cgroup
# of the caller's own, as a child of the caller's (cgroup v2 when the
# unified hierarchy has the memory controller, else the v1 memory
# hierarchy).  Needs root.

# memcg_create NAME BYTES - creates the child NAME limited to BYTES and
# prints its directory; prints the reason and returns 1 when it cannot.
memcg_create() {
	v1=$(sed -n 's/^[0-9]*:\([^:]*,\)\{0,1\}memory\(,[^:]*\)\{0,1\}:\(.*\)/\3/p' /proc/self/cgroup)
	v2=$(sed -n 's/^0::\(.*\)/\1/p' /proc/self/cgroup)
	for root in /sys/fs/cgroup /sys/fs/cgroup/unified; do
		if [ -n "$v2" ] && grep -qw memory "$root/cgroup.controllers" 2>/dev/null; then
			dir=$root${v2%/}/$1
			echo +memory >"$root${v2%/}/cgroup.subtree_control" 2>/dev/null
			if mkdir "$dir" 2>/dev/null && [ -f "$dir/memory.max" ] &&
			   echo "$2" >"$dir/memory.max" 2>/dev/null; then
				echo "$dir"
				return 0
			fi
			rmdir "$dir" 2>/dev/null
		fi
	done
	dir=/sys/fs/cgroup/memory${v1%/}/$1
	if [ -n "$v1" ] && mkdir "$dir" 2>/dev/null; then
		if echo "$2" >"$dir/memory.limit_in_bytes" 2>/dev/null; then
			# At the limit, pause instead of an OOM kill:
			# memcg_hold_room raises it within a second.
			echo 1 >"$dir/memory.oom_control" 2>/dev/null
			echo "$dir"
			return 0
		fi
		rmdir "$dir" 2>/dev/null
	fi
	echo "cannot create a memory cgroup (v2 under ${v2:-?}, v1 under ${v1:-?}); the soak needs root"
	return 1
}

# memcg_enter DIR - moves the calling shell into DIR.
memcg_enter() {
	sh -c 'echo $PPID' >"$1/cgroup.procs"
}

# memcg_remove DIR - removes DIR once its processes have exited (10 s).
memcg_remove() {
	n=0
	while ! rmdir "$1" 2>/dev/null && [ $n -lt 20 ]; do
		sleep 0.5
		n=$((n + 1))
	done
}

# memcg_nonfile DIR - bytes DIR uses other than page cache.
memcg_nonfile() {
	if [ -f "$1/memory.current" ]; then
		use=$(cat "$1/memory.current")
		file=$(sed -n 's/^file \([0-9]*\)$/\1/p' "$1/memory.stat")
	else
		use=$(cat "$1/memory.usage_in_bytes")
		file=$(sed -n 's/^total_cache \([0-9]*\)$/\1/p' "$1/memory.stat")
	fi
	echo $((use - ${file:-0}))
}

# memcg_hold_room DIR ROOM MAX LOG DELAY - after DELAY s (the JVM's
# start, its heap touched), every second sets DIR's limit (v1
# memory.limit_in_bytes; v2 memory.high, which throttles, memory.max
# staying MAX) to its non-page-cache use + ROOM bytes (never above MAX),
# so that the room for page cache, the adaptive rule's capacity, stays
# about ROOM however the process's own memory grows; appends "seconds
# nonfile limit" to LOG each time.  Runs until killed.
memcg_hold_room() {
	t=$5
	lim=memory.limit_in_bytes
	[ -f "$1/memory.high" ] && lim=memory.high
	sleep "$5"
	while :; do
		nf=$(memcg_nonfile "$1") || return 1
		want=$((nf + $2))
		[ "$want" -gt "$3" ] && want=$3
		echo "$want" >"$1/$lim" 2>/dev/null
		echo "$t $nf $want" >>"$4"
		sleep 1
		t=$((t + 1))
	done
}
