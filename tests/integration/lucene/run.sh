#!/bin/sh
# run.sh BUILD [SANITIZER] - real Lucene (advshim-lucene, lucene-core 10.4)
# with and without the shim.
#
# One HNSW index (and one compound-file index) is built once per run; then
# advshim-lucene search runs the same queries with every --read-advice,
# plain and under the shim with the embedded default policy and the
# example policies (their data paths rewritten to this test's directory,
# where the index is hard-linked in their layout).  --hold keeps the JVM
# and its mappings alive after the summary, so the verdict comes from the
# kernel: VmFlags of the index files' VMAs in /proc/PID/smaps, and
# advshim inspect PID on the live JVM.  Checks:
#   - without the shim, random and context advice leave rr on the vector
#     files (.vec, .vex; the .cfs of the compound index): the precondition
#     that makes the shim checks meaningful;
#   - with the shim, no index file keeps rr, for every advice and policy;
#   - every run returns the same result hash (advice changes no result);
#   - advshim inspect shows the shim active with counters; the shim's log
#     names the Lucene files it rewrote;
#   - controls: under log-only.conf rr survives and the rr check reports it;
#     another query seed gives another hash.  So the checks can fail.
set -u
here=$(cd "$(dirname "$0")" && pwd)
# build, san (from BUILD [SANITIZER]), top, lib; ok, no, jvm_tool_ready.
. "$here/../jvm-tool.sh"
luc=$build/advshim-lucene
queries=200
# Small runs: C1 only and the serial collector halve a run's CPU time; the
# advice path is the same.
jvm="-J-Xmx256m -J-XX:TieredStopAtLevel=1 -J-XX:+UseSerialGC"
jvm_tool_ready Lucene "$san" "$luc" "$build/advshim-lucene.jar" "$build/lucene/mvn.log"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/advshim-lucene.XXXXXX")
live=
cleanup() {
	[ -n "$live" ] && kill "$live" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# build_index DIR ARGS...: advshim-lucene index, output kept in DIR.log.
build_index() {
	d=$1
	shift
	if ! "$luc" $jvm index "$d" "$@" >"$d.log" 2>"$d.err"; then
		cat "$d.err"
		echo "FAIL Lucene test: advshim-lucene index $*"
		exit 1
	fi
}

echo "Lucene: $("$luc" version 2>/dev/null)"
build_index "$tmp/idx" --vectors 6000 --dims 64
build_index "$tmp/cfs" --vectors 2000 --dims 32 --compound
grep -q 'segments=1 ' "$tmp/idx.log" && grep -q '\.vec' "$tmp/idx.log" &&
	grep -q '\.cfs' "$tmp/cfs.log" ||
	{ cat "$tmp/idx.log" "$tmp/cfs.log"; echo "FAIL Lucene test: unexpected index layout"; exit 1; }
ok "index: $(sed -n 's/^# size bytes=\([0-9]*\).*segments=\([0-9]*\).*/\1 bytes, \2 segment/p' "$tmp/idx.log") (and a compound one)"

# Example policies, their data paths moved under $tmp; the index
# hard-linked where each expects it (the shim resolves paths, so a
# symlink would not do).
policy_copy() {	# policy_copy NAME EXAMPLE OLD_PREFIX SUBDIR
	mkdir -p "$tmp/$1/$4"
	sed "s|$3|$tmp/$1|g" "$top/examples/$2" >"$tmp/$1.conf"
	ln "$tmp/idx/"* "$tmp/$1/$4/"
	mkdir -p "$tmp/$1/$4.cfs"
	ln "$tmp/cfs/"* "$tmp/$1/$4.cfs/"
}
policy_copy os opensearch-knn.conf /var/lib/opensearch nodes/0/indices/u1/0/index
policy_copy lu lucene.conf /srv/search/index shard0
policy_copy es elasticsearch.conf /var/lib/elasticsearch indices/u1/0/index
for p in os lu es; do
	"$build/advshim" check "$tmp/$p.conf" >/dev/null 2>"$tmp/$p.check" ||
		{ cat "$tmp/$p.check"; echo "FAIL Lucene test: $p.conf does not validate"; exit 1; }
done

# rr_files PID DIR: "FLAG FILE" per index file mapped by PID (rr, sr or
# -; rr when any of the file's VMAs has it: a compound file's slices are
# advised one by one).
rr_files() {
	awk -v dir="$2/" '
		/^[0-9a-f]+-[0-9a-f]+ / { f = (index($6, dir) == 1) ? substr($6, length(dir) + 1) : "" }
		/^VmFlags:/ && f != "" {
			fl = / rr/ ? "rr" : (/ sr/ ? "sr" : "-")
			if (!(f in st) || fl == "rr") st[f] = fl
		}
		END { for (f in st) print st[f], f }' "/proc/$1/smaps" | sort -k2
}

# search NAME INDEX ADVICE POLICY [ARGS...]: one held search run.  POLICY
# is "none" (no shim), "default" (the embedded policy) or a policy file.
# Leaves NAME.out, NAME.err, NAME.rr (rr_files) and NAME.inspect.
search() {
	name=$1 idx=$2 adv=$3 pol=$4
	shift 4
	mkfifo "$tmp/$name.fifo"
	(
		if [ "$pol" != none ]; then
			export LD_PRELOAD="$lib" ADVSHIM_LOG=info
			[ "$pol" = default ] || export ADVSHIM_CONFIG="$pol"
		fi
		exec "$luc" $jvm search "$idx" --threads 2 --queries "$queries" \
			--read-advice "$adv" --hold "$@" <"$tmp/$name.fifo" >"$tmp/$name.out" 2>"$tmp/$name.err"
	) &
	live=$!
	exec 3>"$tmp/$name.fifo"
	# The summary comes once every query ran (no time limit: a bound
	# only against a hung JVM).
	n=0
	while ! grep -qs '^# result-hash:' "$tmp/$name.out" && kill -0 "$live" 2>/dev/null &&
		[ $n -lt 3000 ]; do
		sleep 0.1
		n=$((n + 1))
	done
	if kill -0 "$live" 2>/dev/null; then
		rr_files "$live" "$idx" >"$tmp/$name.rr"
		"$build/advshim" inspect "$live" >"$tmp/$name.inspect" 2>&1
	else
		: >"$tmp/$name.rr"
	fi
	exec 3>&-
	wait "$live"
	st=$?
	live=
	if [ $st -ne 0 ] || ! grep -q '^# result-hash: [0-9a-f]\{16\}$' "$tmp/$name.out"; then
		no "$name: advshim-lucene search failed (status $st)" "$(grep -v WARNING "$tmp/$name.err" | tail -n 5)"
		return 1
	fi
	return 0
}

hash_of() { sed -n 's/^# result-hash: //p' "$tmp/$1.out"; }
short() { [ -n "$1" ] && echo "$1" | sed 's/_0_[A-Za-z0-9]*_0\././g; s/_0\././g' || echo none; }

# check_rr NAME: no index file of run NAME has rr.
check_rr() {
	r=$(rr_of "$1")
	[ -z "$r" ] && [ -s "$tmp/$1.rr" ]
}

ref=
# check_hash NAME: same result hash as the first run.
check_hash() {
	h=$(hash_of "$1")
	[ -z "$ref" ] && ref=$h
	if [ "$h" = "$ref" ]; then ok "$1: result hash $h"; else no "$1: result hash $h, not $ref"; fi
}

rr_of() { awk -v f="${2:-rr}" '$1 == f { printf "%s%s", s, $2; s = " " }' "$tmp/$1.rr"; }
table="$tmp/table"
printf '%-11s %-40s %-40s %s\n' read-advice "rr without the shim" "sr without the shim" \
	"rr with the shim" >"$table"
for adv in default random normal sequential context; do
	search "plain-$adv" "$tmp/idx" "$adv" none || continue
	search "shim-$adv" "$tmp/idx" "$adv" default || continue
	printf '%-11s %-40s %-40s %s\n' "$adv" "$(short "$(rr_of "plain-$adv")")" \
		"$(short "$(rr_of "plain-$adv" sr)")" "$(short "$(rr_of "shim-$adv")")" >>"$table"
	check_hash "plain-$adv"
	check_hash "shim-$adv"
	if check_rr "shim-$adv"; then
		ok "shim-$adv: no index file keeps rr"
	else
		no "shim-$adv: rr survives under the shim: $(rr_of "shim-$adv")"
	fi
done
cat "$table"
for adv in random context; do
	r=$(rr_of "plain-$adv")
	case " $r " in
	*.vec\ *.vex\ *) ok "plain-$adv: Lucene leaves rr on the vector files (.vec .vex)" ;;
	*) no "plain-$adv: expected rr on .vec and .vex without the shim, got: ${r:-none}" ;;
	esac
done

# The live JVM under the shim: inspect and the log.
if grep -q 'libadvshim.so loaded' "$tmp/shim-context.inspect" &&
	grep -q ', active' "$tmp/shim-context.inspect" &&
	grep -Eq 'madvise calls: random [1-9]' "$tmp/shim-context.inspect" &&
	grep -Eq 'rewritten [1-9]' "$tmp/shim-context.inspect"; then
	ok "advshim inspect: shim active in the JVM, $(grep -o 'rewritten [0-9]*' "$tmp/shim-context.inspect")"
else
	no "advshim inspect: shim not shown active with counters" "$(head -n 5 "$tmp/shim-context.inspect")"
fi
for ext in vec vex fdt; do
	# The default policy is adaptive: the file's first RANDOM call and
	# the advice it got (a rewrite rule logs "rewrite PATH: ...").
	if grep -Eq "(adaptive|rewrite) $tmp/idx/_0[^ ]*\.$ext: random -> normal" "$tmp/shim-context.err"; then
		ok "shim log names the Lucene .$ext file it advised normal"
	else
		no "shim log: no line for .$ext" "$(grep advshim "$tmp/shim-context.err" | head -n 5)"
	fi
done

# The example policies, on both indexes, with the advice that leaves rr.
for p in os lu es; do
	case $p in
	os) sub=nodes/0/indices/u1/0/index ;;
	lu) sub=shard0 ;;
	es) sub=indices/u1/0/index ;;
	esac
	for adv in random context; do
		search "$p-$adv" "$tmp/$p/$sub" "$adv" "$tmp/$p.conf" || continue
		check_hash "$p-$adv"
		if check_rr "$p-$adv"; then
			ok "$p-$adv: $p.conf leaves no rr on any index file"
		else
			no "$p-$adv: rr survives under $p.conf: $(rr_of "$p-$adv")"
		fi
	done
	search "$p-cfs" "$tmp/$p/$sub.cfs" context "$tmp/$p.conf" || continue
	if check_rr "$p-cfs"; then
		ok "$p-cfs: $p.conf leaves no rr on the compound file"
	else
		no "$p-cfs: rr survives on the compound file: $(rr_of "$p-cfs")"
	fi
done
if search plain-cfs "$tmp/cfs" context none; then
	case " $(rr_of plain-cfs) " in
	*.cfs*) ok "plain-cfs: context advice leaves rr on slices of _0.cfs without the shim" ;;
	*) no "plain-cfs: expected rr on _0.cfs, got: $(rr_of plain-cfs)" ;;
	esac
fi

# Controls: the checks above can fail.
if search control-logonly "$tmp/idx" context "$top/examples/log-only.conf"; then
	if check_rr control-logonly; then
		no "control: under log-only.conf the rr check passed; it cannot see rr"
	else
		ok "control: under log-only.conf rr survives ($(short "$(rr_of control-logonly)")) and the check reports it"
	fi
fi
if search control-seed "$tmp/idx" default none --seed 2; then
	if [ "$(hash_of control-seed)" != "$ref" ]; then
		ok "control: another query seed gives another hash ($(hash_of control-seed))"
	else
		no "control: seed 2 gives the same hash as seed 1; the hash check cannot fail"
	fi
fi

echo "lucene: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
