#!/bin/sh
# remap_race.sh BUILD SECONDS - mremap's table update racing an mmap that
# reuses the freed addresses (stress/remap_race.c).  Probabilistic: a pass
# does not prove the race absent; a failure proves it present.
set -u
build=$1
secs=$2
d=$(mktemp -d /tmp/advshim-remaprace.XXXXXX) || exit 1
d=$(realpath "$d")
trap 'rm -rf "$d"' EXIT
mkdir -p "$d/keep" "$d/rewrite"
dd if=/dev/zero of="$d/keep/f" bs=64k count=1 status=none
dd if=/dev/zero of="$d/rewrite/f" bs=64k count=1 status=none
cat >"$d/policy.conf" <<EOC
version = 1;
rules = (
  { name = "keep"; match = "$d/keep/**"; random = "keep"; },
  { name = "rewrite"; match = "$d/rewrite/**"; random = "normal"; }
);
EOC
if ADVSHIM_CONFIG=$d/policy.conf LD_PRELOAD=$build/libadvshim.so \
	"$build/stress/advshim-remap-race" "$d" "$secs" 8; then
	echo "stress[remap-race]: ok ($secs s; the race was not hit)"
else
	echo "stress[remap-race]: FAILED: a moved 'rewrite' mapping was recorded as the 'keep' file mapped at its old address in between"
	exit 1
fi
