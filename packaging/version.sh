#!/bin/sh
# version.sh [--dirty] - the package version, from `git describe`, in a
# form Debian accepts (starts with a digit; only [0-9A-Za-z.+~]).
#
#   tag v1.2.3, on the tag            -> 1.2.3
#   tag v1.2.3, 5 commits later       -> 1.2.3+git5.gabc1234
#   no tag yet, 42 commits, abc1234   -> 0.1.0+git42.gabc1234
#   --dirty and uncommitted changes   -> ... + ".dirty"
#   not a git checkout                -> the contents of ./VERSION, else 0.1.0
#
# The "+gitN" part sorts after the tag and grows with every commit, so
# dpkg sees each build of a later commit as an upgrade.
set -eu
dirty=
[ "${1:-}" = --dirty ] && dirty=1
base=0.1.0

if ! git rev-parse --is-inside-work-tree >/dev/null 2>&1 ||
   [ "$(git rev-parse --show-toplevel)" != "$(pwd -P)" ]; then
	# An unpacked tarball (maybe inside some other repository).
	if [ -f VERSION ]; then
		cat VERSION
	else
		echo "$base"
	fi
	exit 0
fi

if desc=$(git describe --tags --long --match 'v[0-9]*' 2>/dev/null); then
	# v1.2.3-5-gabc1234
	hash=${desc##*-}
	rest=${desc%-*}
	count=${rest##*-}
	tag=${rest%-*}
	ver=${tag#v}
	[ "$count" != 0 ] && ver="$ver+git$count.$hash"
else
	count=$(git rev-list --count HEAD)
	hash=g$(git rev-parse --short=7 HEAD)
	ver="$base+git$count.$hash"
fi
ver=$(printf '%s' "$ver" | tr -c '0-9A-Za-z.+~' '.')
if [ -n "$dirty" ] && [ -n "$(git status --porcelain --untracked-files=no 2>/dev/null)" ]; then
	ver="$ver.dirty"
fi
echo "$ver"
