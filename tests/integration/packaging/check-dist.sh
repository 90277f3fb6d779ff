#!/bin/sh
# check-dist.sh "MAKE" BUILD - `make dist` writes build/advshim-VERSION.tar.gz:
# every file under advshim-VERSION/, exactly the files of HEAD plus a
# VERSION file, VERSION matching the name; the unpacked tree (no git)
# reports that version through packaging/version.sh.
set -u
MAKE_CMD=${1:-make}
B=${2:-build}
pass=0 fail=0 failed=
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); failed="$failed $1"; echo "FAIL $1: $2"; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT INT TERM

ver=$(sh packaging/version.sh)
if $MAKE_CMD dist > "$T/dist.log" 2>&1 && [ -f "$B/advshim-$ver.tar.gz" ]; then
	ok "make dist wrote $B/advshim-$ver.tar.gz"
else
	bad "make dist" "$(tail -n 10 "$T/dist.log")"
	echo "check-dist: $pass passed, $fail failed"; exit 1
fi
tar -tzf "$B/advshim-$ver.tar.gz" | grep -v '/$' | sort > "$T/list"
{ git ls-tree -r --name-only HEAD | sed "s|^|advshim-$ver/|"; echo "advshim-$ver/VERSION"; } |
	sort > "$T/expected"
if cmp -s "$T/list" "$T/expected"; then
	ok "tarball = HEAD's $(git ls-tree -r --name-only HEAD | wc -l) files + VERSION, under advshim-$ver/"
else
	bad "tarball contents" "$(diff "$T/expected" "$T/list" | head)"
fi
mkdir "$T/x"
tar -xzf "$B/advshim-$ver.tar.gz" -C "$T/x"
got=$(cd "$T/x/advshim-$ver" && GIT_CEILING_DIRECTORIES="$T" sh packaging/version.sh)
if [ "$got" = "$ver" ]; then
	ok "unpacked tree reports version $got without git"
else
	bad "unpacked version" "'$got' vs '$ver'"
fi
echo "check-dist: $pass passed, $fail failed${failed:+ (failed:$failed)}"
[ $fail -eq 0 ]
