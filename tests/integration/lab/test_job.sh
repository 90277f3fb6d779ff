#!/bin/sh
# SPDX-License-Identifier: MIT
#
# test_job.sh - the documented way to run one's own guest job (make
# check-lab-job, after make all): lab.sh initramfs with every binary of
# the build, the static Go advshim-bolt among them (copied without
# libraries; ldd of it used to end the builder silently), then
# `lab.sh job OUT SCRIPT FILE` with a one-line script that returns a file
# and runs advshim-bolt in the guest, a job that exits 3 (lab.sh exits 3
# and says so) and a missing script (lab.sh names the step that failed).
# Boots the lab's default kernel twice (TCG: 10-20 s each).
set -u
top=$(cd "$(dirname "$0")/../../.." && pwd)
build=${BUILD:-$top/build}
case $build in /*) ;; *) build=$top/$build ;; esac
lab="env BUILD=$build LAB_TIMEOUT=${LAB_TIMEOUT:-120} bash $top/tools/lab/lab.sh"
fails=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

ok() { echo "ok   $*"; }
fail() { echo "FAIL $*"; fails=$((fails + 1)); }

if [ ! -x "$build/advshim-bolt" ] || readelf -lW "$build/advshim-bolt" | grep -q '^ *DYNAMIC '; then
	echo "FAIL $build/advshim-bolt is missing or not static: run make all first"
	exit 1
fi

# 1. The base initramfs: every project binary, the static one too, and
# the libraries of the dynamic ones.
if $lab initramfs >"$tmp/initramfs.out" 2>"$tmp/initramfs.err"; then
	img=$(tail -n 1 "$tmp/initramfs.out")
	zcat "$img" | cpio -t --quiet >"$tmp/list" 2>/dev/null
	missing=
	for f in opt/advshim/bin/advshim-bolt opt/advshim/bin/libadvshim.so opt/advshim/bin/advshim \
		$(ldd "$build/advshim" | awk '/=> \// { print substr($3, 2) }'); do
		grep -qx "$f" "$tmp/list" || missing="$missing $f"
	done
	if [ -z "$missing" ]; then
		ok "lab.sh initramfs: advshim-bolt (static), the shim and advshim with their libraries"
	else
		fail "lab.sh initramfs lacks:$missing"
	fi
else
	fail "lab.sh initramfs exited $? with advshim-bolt in the build: $(tr '\n' ' ' <"$tmp/initramfs.err")"
fi

# 2. A one-line job with a file next to it.
echo "token $$" >"$tmp/token"
printf '#!/bin/sh\ncat token >/out/token; /opt/advshim/bin/advshim-bolt >/out/bolt.txt 2>&1; true\n' \
	>"$tmp/job.sh"
if $lab job "$tmp/run" "$tmp/job.sh" "$tmp/token" >"$tmp/job.out" 2>&1; then
	if cmp -s "$tmp/token" "$tmp/run/out/token" && grep -q 'usage: advshim-bolt' "$tmp/run/out/bolt.txt"; then
		ok "lab.sh job: the script ran with its file in /lab/job, advshim-bolt ran, /out came back"
	else
		fail "lab.sh job: /out/token or advshim-bolt's usage line missing in $tmp/run/out"
	fi
else
	fail "lab.sh job exited $? on a one-line script:"
	sed 's/^/    /' "$tmp/job.out"
fi

# 3. A job that fails: its status is lab.sh's, with a line that says so.
printf '#!/bin/sh\nexit 3\n' >"$tmp/fail.sh"
$lab job "$tmp/run3" "$tmp/fail.sh" >"$tmp/fail.out" 2>&1
rc=$?
if [ "$rc" = 3 ] && grep -q 'lab: the guest job fail.sh exited 3' "$tmp/fail.out"; then
	ok "a failing guest job: lab.sh exits 3 and says which job"
else
	fail "a guest job exiting 3: lab.sh exited $rc, printed:"
	sed 's/^/    /' "$tmp/fail.out"
fi

# 4. A step that fails on the host (the script is not there): the ERR
# trap names the command, once.
$lab job "$tmp/run4" "$tmp/no-such-script.sh" >"$tmp/missing.out" 2>&1
rc=$?
if [ "$rc" != 0 ] && [ "$(grep -c '^lab: error: ' "$tmp/missing.out")" = 1 ] &&
	grep -q "^lab: error: 'cp .*' failed (exit 1) at line [0-9]* of lab.sh in run_qemu boot_job cmd_job main\$" \
		"$tmp/missing.out" && grep -q "no-such-script.sh" "$tmp/missing.out"; then
	ok "a failing host step: one line naming the command, its line and function"
else
	fail "a missing job script: lab.sh exited $rc, printed:"
	sed 's/^/    /' "$tmp/missing.out"
fi

[ "$fails" = 0 ] && echo "check-lab-job: all passed" || echo "check-lab-job: $fails failed"
[ "$fails" = 0 ]
