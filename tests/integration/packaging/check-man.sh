#!/bin/sh
# check-man.sh PAGE... - each man page exists and renders with man-db and
# groff without a single warning (MANWIDTH=80 man --warnings -l).  A page
# with an undefined macro must be reported, so the check itself can fail.
set -u
pass=0 fail=0 failed=
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); failed="$failed $1"; echo "FAIL $1: $2"; }

if ! command -v man >/dev/null || ! command -v groff >/dev/null; then
	echo "check-man: man-db and groff-base are needed (make deps)" >&2
	exit 1
fi
render() {	# PAGE: warnings on stdout, rendered text discarded
	MANWIDTH=80 man --warnings -l "$1" 2>&1 >/dev/null
}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT INT TERM

for p in "$@"; do
	if [ ! -f "$p" ]; then
		bad "$p" "missing (not in the tree yet)"
		continue
	fi
	out=$(render "$p")
	if [ -n "$out" ]; then
		bad "$p" "$out"
		continue
	fi
	# It must say something: NAME, SYNOPSIS or DESCRIPTION sections.
	txt=$(MANWIDTH=80 man -l "$p" 2>/dev/null)
	case $txt in
	*NAME*DESCRIPTION*) ok "$p renders without warnings" ;;
	*) bad "$p" "rendered text has no NAME/DESCRIPTION" ;;
	esac
done

# Control: the same check reports an undefined macro.
printf '.TH X 1\n.SH NAME\nx \\- y\n.ZZ oops\n' > "$T/bad.1"
if [ -n "$(render "$T/bad.1")" ]; then
	ok "an undefined macro is reported (control)"
else
	bad "control" "man --warnings stayed silent on an undefined macro"
fi

echo "check-man: $pass passed, $fail failed${failed:+ (failed:$failed)}"
[ $fail -eq 0 ]
