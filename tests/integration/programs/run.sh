#!/bin/sh
# SPDX-License-Identifier: MIT
#
# run.sh BUILD - the lab's real programs on this machine (make
# check-programs): advshim-lmdb and advshim-bolt build a small DB and read
# it, printing advshim-load's rows; each maps its file MADV_RANDOM (strace
# sees the madvise; smaps VmFlags show rr); the shim's default policy
# takes rr off the LMDB map (liblmdb calls madvise through libc) and
# cannot take it off bbolt's (a static Go binary's raw system call);
# advshim-resid counts a file read into the cache.  A program that was not
# built (no liblmdb-dev, no go) is skipped, loudly.
set -u
build=${1:?usage: run.sh BUILD}
shim=$build/libadvshim.so
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0

ok() { echo "ok   $*"; }
fail() { echo "FAIL $*"; fails=$((fails + 1)); }

# vmflags PID FILE: the VmFlags of PID's mapping of FILE (waits for it).
vmflags() {
	i=0
	while [ $i -lt 50 ]; do
		f=$(awk -v file="$2" '/^[0-9a-f]+-[0-9a-f]+ / { m = ($NF == file) }
			m && /^VmFlags:/ { sub(/^VmFlags: */, ""); print; exit }' "/proc/$1/smaps" 2>/dev/null)
		[ -n "$f" ] && { echo "$f"; return; }
		sleep 0.1; i=$((i + 1))
	done
}

# flags_of BIN DB DATA [ENV]: DATA's VmFlags in a reader of DB run with ENV.
flags_of() {
	env ${4:-ADVSHIM_TEST=1} "$1" read -t 1 -d 5 "$2" >/dev/null 2>&1 &
	p=$!
	sleep 1
	vmflags "$p" "$3"
	kill "$p" 2>/dev/null
	wait "$p" 2>/dev/null
}

# rows OUT: data rows with reads/s > 0 in a program's TSV.
rows() {
	awk -F'\t' '$1 ~ /^[0-9]+$/ && $5 > 0 { n++ } END { print n + 0 }' "$1"
}

# check_prog NAME BIN DB SHIM_EXPECT: load, read, madvise, VmFlags.
check_prog() {
	name=$1 bin=$2 db=$3 data=$4 want=$5
	if [ ! -x "$bin" ]; then
		echo "skip $name: $bin not built (its toolchain is missing)"
		return
	fi
	"$bin" load "$db" 8 >/dev/null || { fail "$name load"; return; }
	"$bin" read -t 2 -d 2 "$db" >"$tmp/$name.tsv" 2>"$tmp/$name.err"
	n=$(rows "$tmp/$name.tsv")
	if [ "$n" -ge 2 ] && grep -q '^# .* pid=[0-9]* mono_ms=[0-9]*$' "$tmp/$name.tsv"; then
		ok "$name: $n rows of reads/s, the header the lab parses"
	else
		fail "$name: $n rows: $(head -c 300 "$tmp/$name.tsv") $(cat "$tmp/$name.err")"
	fi
	strace -f -qq -e trace=madvise -o "$tmp/$name.strace" "$bin" read -t 1 -d 1 "$db" >/dev/null 2>&1
	if grep -q 'MADV_RANDOM) = 0' "$tmp/$name.strace"; then
		ok "$name: $(grep -m1 'MADV_RANDOM' "$tmp/$name.strace" | sed 's/^[0-9]* *//')"
	else
		fail "$name: no madvise(MADV_RANDOM) in strace: $(head -c 300 "$tmp/$name.strace")"
	fi
	plain=$(flags_of "$bin" "$db" "$data")
	pre=$(flags_of "$bin" "$db" "$data" "LD_PRELOAD=$shim")
	got=none
	case " $pre " in *" rr "*) got=rr ;; esac
	case " $plain " in
	*" rr "*) ;;
	*) fail "$name: without the shim the map should have rr: '$plain'"; return ;;
	esac
	if [ -n "$pre" ] && [ "$got" = "$want" ]; then
		ok "$name: rr without the shim; with its default policy: $want ('$pre')"
	else
		fail "$name: with the shim want $want, VmFlags '$pre'"
	fi
}

check_prog lmdb "$build/advshim-lmdb" "$tmp/lmdb" "$tmp/lmdb/data.mdb" none
check_prog bolt "$build/advshim-bolt" "$tmp/bolt.db" "$tmp/bolt.db" rr

head -c 4194304 /dev/zero >"$tmp/resid.bin"
cat "$tmp/resid.bin" >/dev/null
r=$("$build/advshim-resid" "$tmp/resid.bin" "$tmp/missing")
case $r in
"4.0	-") ok "advshim-resid: a 4 MiB file read once: '$r' (and - for a missing file)" ;;
*) fail "advshim-resid: want '4.0<tab>-', got '$r'" ;;
esac
[ "$fails" = 0 ] || { echo "check-programs: $fails failed"; exit 1; }
echo "check-programs: all passed"
