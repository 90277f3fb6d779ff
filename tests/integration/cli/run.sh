#!/bin/sh
# run.sh ADVSHIM FIXTURES - `advshim check` and `advshim explain` against
# the policy fixtures: output, stderr and exit status of the real binary.
set -u
advshim=$1
fx=$2
pass=0
fail=0
# Make sanitizer findings in a sanitized build fail the run.
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# t NAME EXPECTED_STATUS CMD... : run, keep stdout/stderr in $out/$err.
t() {
	name=$1 want=$2
	shift 2
	"$@" >"$tmp/out" 2>"$tmp/err"
	st=$?
	out=$tmp/out err=$tmp/err
	if [ "$st" -ne "$want" ]; then
		bad "$name: exit $st, expected $want"
		return 1
	fi
	return 0
}
ok() { pass=$((pass + 1)); }
bad() {
	fail=$((fail + 1))
	echo "FAIL: $*"
	sed 's/^/  stdout: /' "$tmp/out"
	sed 's/^/  stderr: /' "$tmp/err"
}
# has NAME FILE TEXT: FILE contains the fixed string TEXT.
has() {
	if grep -qF -- "$3" "$2"; then ok; else bad "$1: no '$3'"; fi
}
# only NAME FILE TEXT: FILE is exactly the line TEXT.
only() {
	if [ "$(cat "$2")" = "$3" ]; then ok; else bad "$1: expected exactly '$3'"; fi
}
empty() {
	if [ ! -s "$2" ]; then ok; else bad "$1: expected empty $2"; fi
}

# --- check: valid policies
if t check-good 0 "$advshim" check "$fx/good.conf"; then
	has check-good "$out" "$fx/good.conf: OK"
	has check-good "$out" "1. rule \"vectors\" ($fx/good.conf:6)"
	has check-good "$out" "  random        rewrite to normal   rewrite to normal"
	has check-good "$out" "  noreuse       -                   skip"
	has check-good "$out" "processes: java"
	has check-good "$out" "on_map: posix_fadvise(fd, 0, 0, POSIX_FADV_NOREUSE)"
	empty check-good "$err"
fi
if t check-quiet 0 "$advshim" check -q "$fx/good.conf"; then
	only check-quiet "$out" "$fx/good.conf: OK"
fi
if t check-default 0 "$advshim" check -; then
	has check-default "$out" "rule \"default\" (<default>:3)"
	has check-default "$out" "<default>: OK"
fi
if t check-examples 0 "$advshim" check -q examples/advshim.conf; then
	only check-examples "$out" "examples/advshim.conf: OK"
fi

# --- check: invalid policies -> FILE:LINE: message on stderr, exit 2
bad_case() {
	name=$1 file=$2 msg=$3
	if t "check-$name" 2 "$advshim" check "$fx/$file"; then
		only "check-$name" "$err" "$fx/$file:$msg"
		empty "check-$name" "$out"
	fi
}
bad_case advice bad-advice.conf '5: rule "vectors": unknown advice "rnadom" for key random (expected keep, skip, adaptive, normal, random, sequential, willneed)'
bad_case syntax bad-syntax.conf '4: syntax error'
bad_case version bad-version.conf '2: unsupported version 2 (expected 1)'
bad_case unreachable bad-unreachable.conf '4: rule "vectors" can never match: rule "everything" (line 3) before it matches every path with "**" (move the catch-all rule last)'
bad_case glob bad-glob.conf "4: rule \"rule 1\": bad glob \"/data/[ab\": unbalanced '[' (missing ']')"
bad_case key bad-key.conf '3: unknown key "rule" (expected version, log, processes, rules, adaptive, watch)'
bad_case dontneed bad-dontneed.conf '3: rule "rule 1": madvise dontneed can only be keep: on MAP_PRIVATE file mappings it discards private copies, so "skip" would change memory contents (fadvise dontneed may be skipped)'

if t check-missing 1 "$advshim" check "$fx/does-not-exist.conf"; then
	has check-missing "$err" "$fx/does-not-exist.conf: cannot open: No such file or directory"
fi
if t check-usage 2 "$advshim" check; then has check-usage "$err" "missing FILE"; fi
if t check-usage2 2 "$advshim" check a b; then has check-usage2 "$err" "usage: advshim check"; fi
if t check-badopt 2 "$advshim" check --frobnicate "$fx/good.conf"; then
	has check-badopt "$err" "usage: advshim check"
fi
if t check-help 0 "$advshim" check --help; then
	has check-help "$out" "usage: advshim check [-q] FILE"
	empty check-help "$err"
fi

bad_case adaptive bad-adaptive.conf '4: adaptive.nofit_pct (100) must be greater than adaptive.fit_pct (100): between the two the choice stays as it is'

# --- check and explain: random = "adaptive"
if t check-adaptive 0 "$advshim" check "$fx/adaptive.conf"; then
	has check-adaptive "$out" "adaptive (the group at line 3): random = \"adaptive\" chooses at run time, per process"
	has check-adaptive "$out" "normal advice while need <= 90% of capacity, MADV_RANDOM from 120%"
	has check-adaptive "$out" "switches >= 10000 ms apart,"
	has check-adaptive "$out" "  random        adaptive            keep"
fi
if t explain-adaptive 0 "$advshim" explain "$fx/adaptive.conf" /idx/_0.vec random; then
	has explain-adaptive "$out" "madvise random (1 = MADV_RANDOM): adaptive (decided at run time: see below)"
	has explain-adaptive "$out" "fadvise random (1 = POSIX_FADV_RANDOM): keep"
	has explain-adaptive "$out" "adaptive: madvise RANDOM on this file is decided at run time, per process:"
	has explain-adaptive "$out" "need <= 90%"
fi
if t explain-adaptive-other 0 "$advshim" explain "$fx/adaptive.conf" /idx/_0.vec willneed; then
	if grep -q '^adaptive:' "$out"; then bad "explain-adaptive-other: adaptive shown for willneed"; else ok; fi
fi
if t explain-adaptive-rest 0 "$advshim" explain "$fx/adaptive.conf" /idx/_0.tim random; then
	if grep -q '^adaptive:' "$out"; then bad "explain-adaptive-rest: adaptive shown for a keep rule"; else ok; fi
fi

# --- check: the watch group is validated too (advshim-watch's reader)
if t check-watch-good 0 "$advshim" check "$fx/good.conf"; then
	has check-watch-good "$out" "advshim-watch settings:"
	has check-watch-good "$out" "  interval_ms = 1000;"
fi
if t check-watch-bad 2 "$advshim" check "$fx/bad-watch.conf"; then
	has check-watch-bad "$err" "$fx/bad-watch.conf:6: "
	has check-watch-bad "$err" "min_turnover_pct"
	# the policy's style: FILE:LINE: NAME: message
	only check-watch-bad "$err" "$fx/bad-watch.conf:6: watch.min_turnover_pct: 0 is out of range (expected 1 to 1000)"
	empty check-watch-bad "$out"
fi

# --- explain
if t explain-advice 0 "$advshim" explain "$fx/good.conf" /idx/_0.vec random; then
	has explain-advice "$out" "rule: \"vectors\" ($fx/good.conf:6), glob \"**/*.vec\" matched"
	has explain-advice "$out" "madvise random (1 = MADV_RANDOM): rewrite to normal (0 = MADV_NORMAL)"
	has explain-advice "$out" "fadvise random (1 = POSIX_FADV_RANDOM): rewrite to normal (0 = POSIX_FADV_NORMAL)"
	has explain-advice "$out" "processes: only in java"
fi
if t explain-glob2 0 "$advshim" explain "$fx/good.conf" /idx/_0.veq madvise:random; then
	has explain-glob2 "$out" "glob \"**/*.veq\" matched"
	has explain-glob2 "$out" "madvise random (1 = MADV_RANDOM): rewrite to normal"
	if grep -q '^fadvise' "$out"; then bad "explain-glob2: fadvise shown"; else ok; fi
fi
if t explain-noreuse 0 "$advshim" explain "$fx/good.conf" /idx/_0.vec posix_fadvise:noreuse; then
	only explain-noreuse "$tmp/out" "$(printf '%s\n' "policy: $fx/good.conf" "path: /idx/_0.vec" \
		"processes: only in java (every other process passes everything through)" \
		"rule: \"vectors\" ($fx/good.conf:6), glob \"**/*.vec\" matched" \
		"fadvise noreuse (5 = POSIX_FADV_NOREUSE): skip (not issued; the caller sees success)")"
fi
if t explain-cname 0 "$advshim" explain "$fx/good.conf" /backups/db.tar POSIX_FADV_NOREUSE; then
	has explain-cname "$out" "rule: \"backups\" ($fx/good.conf:13)"
	has explain-cname "$out" "fadvise noreuse (5 = POSIX_FADV_NOREUSE): keep"
fi
if t explain-number 0 "$advshim" explain - /x/y 23; then
	has explain-number "$out" "madvise others (23 = MADV_POPULATE_WRITE): keep"
	has explain-number "$out" "fadvise others (23): keep"
fi
if t explain-number-fam 0 "$advshim" explain - /x/y madvise:1; then
	has explain-number-fam "$out" "madvise random (1 = MADV_RANDOM): adaptive (decided at run time: see below)"
fi
if t explain-default-all 0 "$advshim" explain - /var/lib/x.vec; then
	has explain-default-all "$out" "rule: \"default\" (<default>:3), glob \"**\" matched"
	has explain-default-all "$out" "  random        adaptive            keep"
	has explain-default-all "$out" "adaptive: madvise RANDOM on this file is decided at run time, per process:"
	has explain-default-all "$out" "on_map: nothing"
fi
if t explain-nomatch 0 "$advshim" explain "$fx/nomatch.conf" /other/x random; then
	has explain-nomatch "$out" "no rule matches: every advice passes through"
fi
if t explain-relative 0 "$advshim" explain - relative/file.vec; then
	has explain-relative "$out" "path: $(pwd)/relative/file.vec (relative/file.vec, as the shim sees it)"
fi
mkdir -p "$tmp/d" && : >"$tmp/d/real.vec" && ln -s real.vec "$tmp/d/link.vec"
real=$(cd "$tmp/d" && pwd -P)/real.vec
if t explain-symlink 0 "$advshim" explain "$fx/good.conf" "$tmp/d/link.vec" random; then
	has explain-symlink "$out" "path: $real ($tmp/d/link.vec, as the shim sees it)"
fi
if t explain-dir 0 "$advshim" explain - "$tmp/d"; then
	has explain-dir "$out" "note: not a regular file"
fi
if t explain-bad-advice 2 "$advshim" explain - /x rnadom; then
	has explain-bad-advice "$err" 'unknown advice "rnadom" (expected normal, random'
fi
if t explain-madv-noreuse 2 "$advshim" explain - /x madvise:noreuse; then
	has explain-madv-noreuse "$err" "noreuse is not a madvise advice"
fi
if t explain-bad-policy 2 "$advshim" explain "$fx/bad-advice.conf" /x random; then
	has explain-bad-policy "$err" "$fx/bad-advice.conf:5: rule \"vectors\": unknown advice"
	empty explain-bad-policy "$out"
fi
if t explain-missing 1 "$advshim" explain "$fx/nope.conf" /x; then
	has explain-missing "$err" "cannot open"
fi
if t explain-usage 2 "$advshim" explain -; then has explain-usage "$err" "missing FILE or PATH"; fi
if t explain-usage3 2 "$advshim" explain - /x random extra; then
	has explain-usage3 "$err" "too many arguments"
fi
if t explain-help 0 "$advshim" explain -h; then
	has explain-help "$out" "usage: advshim explain [-h] FILE|- PATH [ADVICE]"
fi

echo "cli policy tests: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
