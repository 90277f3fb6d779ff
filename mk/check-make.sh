#!/bin/sh
# check-make.sh "MAKE" FRAGMENT... - the build's own rules (see Makefile):
#
#  1. The fragments do not depend on the order they are read in: make's
#     database (every variable the makefiles set, every rule with its
#     prerequisites and recipe) is the same when the fragments are read
#     in name order, in reverse, and shuffled.  Lists that fragments add
#     to (TARGETS, CHECK_TARGETS, ...) and the prerequisites of `all` and
#     .PHONY are compared as sets; everything else word for word.
#  2. Tests are listed, not globbed: every C source under tests/, bench/,
#     stress/ and fuzz/ is named (as DIR/NAME.c or DIR/NAME.o) in a
#     fragment (but fuzz/repro/: reproducers of third-party bugs, run by
#     hand).
#  3. Every file a check target (or a phony target it needs) depends on is
#     in TARGETS or in the source tree: `make all` builds every check's
#     programs, so check-fast can run checks side by side without two
#     makes building one file.  And `make check` runs all of check-fast.
#
# Reads only; builds nothing.  Exits 1 with the differences on a failure.
set -u
make_cmd=$1
shift
tmp=$(mktemp -d "${TMPDIR:-/tmp}/advshim-check-make.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
rc=0

# Lists built up by += in several fragments: their order is the order
# the fragments were read in, and nothing depends on it.
LISTS="TARGETS CHECK_TARGETS CHECK_FAST_TARGETS BENCH_TARGETS CLEAN_EXTRA
INSTALL_TARGETS UNINSTALL_TARGETS"

# db ORDER OUT: make's database with the fragments read in ORDER, one
# record a line (recipe lines joined), sorted.  Nothing is built: -q runs
# no recipe of mk-modules (a target without $(MAKE) in it).
db() {
	$make_cmd -pq MK_MODULES="$1" mk-modules 2>"$2.err" |
	awk -v lists="$LISTS" '
	function sortwords(s,    n, w, i, j, t, out) {
		n = split(s, w, " ")
		for (i = 2; i <= n; i++)
			for (j = i; j > 1 && w[j - 1] > w[j]; j--) {
				t = w[j]; w[j] = w[j - 1]; w[j - 1] = t
			}
		out = ""
		for (i = 1; i <= n; i++)
			out = out (i > 1 ? " " : "") w[i]
		return out
	}
	function flush() {
		if (rec != "")
			print rec
		rec = ""
	}
	BEGIN {
		n = split(lists, l, /[ \n]+/)
		for (i = 1; i <= n; i++)
			islist[l[i]] = 1
		skipvar["MAKEFLAGS"] = skipvar["MFLAGS"] = 1
		skipvar["MAKEOVERRIDES"] = skipvar["-*-command-variables-*-"] = 1
		skipvar["MK_MODULES"] = skipvar["MAKEFILE_LIST"] = 1
	}
	/^# Variables$/ { flush(); sec = "var"; next }
	/^# Pattern-specific Variable Values$/ { flush(); sec = "pvar"; next }
	/^# Directories$/ { flush(); sec = ""; next }
	/^# Implicit Rules$/ { flush(); sec = "rule"; next }
	/^# Files$/ { flush(); sec = "rule"; next }
	/^# (No .vpath|No general|VPATH|Finished Make)/ { flush(); sec = ""; next }
	sec == "" { next }
	indef { rec = rec "\\n" $0; if ($0 == "endef") indef = 0; next }
	/^#/ { origin = $0; next }
	/^\t/ { if (rec != "") rec = rec "\\n" $0; next }
	/^$/ { flush(); next }
	sec == "var" {
		flush()
		if (origin !~ /^# makefile/)
			next
		if ($1 == "define") {
			if (!($2 in skipvar)) { rec = "var " $0; indef = 1 }
			next
		}
		if ($1 in skipvar)
			next
		if (($1 in islist) && ($2 == ":=" || $2 == "=")) {
			v = $0; sub(/^[^=]*= ?/, "", v)
			rec = "var " $1 " " $2 " " sortwords(v)
		} else {
			rec = "var " $0
		}
		next
	}
	{
		flush()
		if (sec == "rule" && ($1 == "all:" || $1 == ".PHONY:")) {
			v = $0; sub(/^[^:]*: ?/, "", v)
			rec = sec " " $1 " " sortwords(v)
		} else {
			rec = sec " " $0
		}
	}
	END { flush() }' | sort > "$2"
}

modules="$*"
reversed=$(printf '%s\n' $modules | awk '{ l[NR] = $0 } END { for (i = NR; i; i--) print l[i] }' | tr '\n' ' ')
shuffled=$(printf '%s\n' $modules | shuf | tr '\n' ' ')

db "$modules" "$tmp/forward"
if [ ! -s "$tmp/forward" ]; then
	echo "check-make: FAIL: no make database:"
	cat "$tmp/forward.err"
	exit 1
fi
for order in reversed shuffled; do
	eval list=\$$order
	db "$list" "$tmp/$order"
	if cmp -s "$tmp/forward" "$tmp/$order"; then
		echo "ok   fragments read $order: the same make database ($(wc -l < "$tmp/forward") records)"
	else
		rc=1
		echo "FAIL fragments read $order give another make database; order: $list"
		diff "$tmp/forward" "$tmp/$order" | sed 's/\\n/\n\t/g' | head -n 60
		grep -v '^$' "$tmp/$order.err" | head -n 10
	fi
done

# Every file a check needs is built by `make all`.
unbuilt=$(awk '
	function prereqs(rec,    p) {
		p = rec; sub(/\\n.*/, "", p); sub(/^rule [^:]*:/, "", p)
		return p
	}
	$1 == "var" && $2 == "BUILD" { build = $4 "/" }
	$1 == "var" && $2 == "TARGETS" { for (i = 4; i <= NF; i++) built[$i] = 1 }
	$1 == "var" && $2 == "CHECK_TARGETS" { for (i = 4; i <= NF; i++) todo[$i] = 1 }
	$1 == "var" && $2 == "CHECK_FAST_TARGETS" { for (i = 4; i <= NF; i++) fast[$i] = 1 }
	$1 == "rule" && $2 == ".PHONY:" { for (i = 3; i <= NF; i++) phony[$i] = 1 }
	$1 == "rule" && $2 ~ /:$/ { t = $2; sub(/:$/, "", t); rule[t] = prereqs($0) }
	END {
		do {
			more = 0
			for (c in todo) {
				if (done[c]++)
					continue
				n = split(rule[c], p, " ")
				for (i = 1; i <= n; i++) {
					if (p[i] in phony) {
						if (!(p[i] in todo)) { todo[p[i]] = 1; more = 1 }
					} else if (!(p[i] in built) &&
						   (index(p[i], build) == 1 ||
						    system("test -e \"" p[i] "\"") != 0)) {
						print c " needs " p[i]
					}
				}
			}
		} while (more)
		for (f in fast)
			if (!(f in done))
				print "make check does not run " f " (check-fast does)"
	}' "$tmp/forward" | sort -u)
if [ -z "$unbuilt" ]; then
	echo "ok   make all builds every file the checks need; make check runs all of check-fast"
else
	rc=1
	echo "FAIL files checks need that make all does not build (add them to TARGETS), or checks only check-fast runs:"
	echo "$unbuilt" | sed 's/^/     /'
fi

# Every test source named in a fragment.
unnamed=
for f in $(find tests bench stress fuzz -path fuzz/repro -prune -o -name '*.c' -print 2>/dev/null | sort); do
	stem=${f%.c}
	grep -q -F -e "$stem.c" -e "$stem.o" $modules || unnamed="$unnamed $f"
done
if [ -z "$unnamed" ]; then
	echo "ok   every test source under tests/ bench/ stress/ fuzz/ is named in a fragment"
else
	rc=1
	echo "FAIL test sources no fragment names (list each in its module.mk):$unnamed"
fi
exit $rc
