#!/bin/sh
# remap_race.sh BUILD SECONDS - mremap's table update racing an mmap that
# reuses the freed addresses: first deterministically (stress/
# remap_window.c: a library preloaded after the shim maps the other file
# inside the window), then by luck with threads for SECONDS (stress/
# remap_race.c: a pass there does not prove the race absent).
set -u
# A shim built with SANITIZER= needs its runtime first in LD_PRELOAD.
san_rt() {
	ldd "$1" 2>/dev/null | awk '/lib[at]san\.so/ { print $3; exit }'
}
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
rt=$(san_rt "$build/libadvshim.so")
ADVSHIM_CONFIG=$d/policy.conf \
LD_PRELOAD="${rt:+$rt }$build/libadvshim.so $build/stress/libadvshim-remapwindow.so" \
	"$build/stress/advshim-remap-window" "$d"
case $? in
0)	echo "stress[remap-window]: ok (the moved mapping kept its own file's policy)" ;;
1)	echo "stress[remap-window]: FAILED: the moved 'rewrite' mapping took the policy of the 'keep' file mapped at its old address"
	exit 1 ;;
*)	echo "stress[remap-window]: FAILED: inconclusive (setup)"
	exit 1 ;;
esac
if ADVSHIM_CONFIG=$d/policy.conf LD_PRELOAD="${rt:+$rt }$build/libadvshim.so" \
	"$build/stress/advshim-remap-race" "$d" "$secs" 8; then
	echo "stress[remap-race]: ok ($secs s; the race was not hit)"
else
	echo "stress[remap-race]: FAILED: a moved 'rewrite' mapping was recorded as the 'keep' file mapped at its old address in between"
	exit 1
fi
