#!/bin/sh
# run_shim.sh BUILD - fault injection for the shim.
#
# Each case runs advshim-fault-calls (tests/fault/calls.c) twice under the
# same fault, without and with BUILD/libadvshim.so, and compares the
# transcripts of every intercepted call (return value and errno) and the
# exit status: they must be identical, and the shim may write one log line
# at most.  Lines starting with "info" (rr in force) are reported, not
# compared: under a fault the shim is allowed to pass advice through.
# Prints a matrix: case | expected | seen.  Cases needing root (mount
# namespaces) are SKIPPED loudly when not root, and then count as failed.
set -u
B=$1
CALLS=$B/tests/fault/advshim-fault-calls
FAILMALLOC=$B/tests/fault/libadvshim-failmalloc.so
LIB=$(cd "$B" && pwd)/libadvshim.so
# A SANITIZER= build: its runtime goes first in LD_PRELOAD, in both runs
# (the failing allocator then sits behind the sanitizer's malloc).
RT=$(ldd "$LIB" 2>/dev/null | awk '/lib[at]san\.so/ { print $3; exit }')
# LeakSanitizer's exit-time scan needs /proc, descriptors and memory: the
# very things these cases take away.
[ -n "$RT" ] && export ASAN_OPTIONS=detect_leaks=0
T=$(mktemp -d /tmp/advshim-fault.XXXXXX) || exit 1
T=$(realpath "$T")
trap 'rm -rf "$T"' EXIT INT TERM
dd if=/dev/urandom of="$T/data.vec" bs=4k count=16 status=none
# FAULT_POLICY=rewrite (the default here) or adaptive: the embedded
# default's rule, whose first RANDOM call samples the memory cgroup and
# starts the sampler thread under the same faults.
case ${FAULT_POLICY:-rewrite} in
adaptive) action=adaptive ;;
*) action=normal ;;
esac
cat >"$T/policy.conf" <<EOC
version = 1;
log = { level = "warn"; target = "stderr"; };
rules = ( { name = "all-random-$action"; match = "**"; random = "$action"; } );
EOC
printf 'version = 1;\nrules = ( { match = [ "**" ; } );\n' >"$T/bad.conf"
pass=0
fail=0
MATRIX=$T/matrix

row() {	# case expected seen
	printf '%-26s | %-52s | %s\n' "$1" "$2" "$3" >>"$MATRIX"
}

# run_case NAME PRELOAD_EXTRA ENV WRAP ARGS...: WRAP is "" or a command
# prefix (a shell snippet receiving the command as "$@").
run_pair() {
	name=$1 extra=$2 envs=$3 wrap=$4
	shift 4
	pre=${extra:+$extra }
	extra=${RT:+$RT }$extra
	pre=${RT:+$RT }$pre
	# The environment applies to the test program only (env right before
	# it), not to the wrapping shells.
	# shellcheck disable=SC2086
	sh -c "$wrap"' env "$@"' sh LD_PRELOAD="$extra" \
		ADVSHIM_CONFIG="$T/policy.conf" $envs "$CALLS" "$T/data.vec" "$@" \
		>"$T/$name.plain" 2>"$T/$name.plain.err"
	echo "exit $?" >>"$T/$name.plain"
	# shellcheck disable=SC2086
	sh -c "$wrap"' env "$@"' sh LD_PRELOAD="$pre$LIB" \
		ADVSHIM_CONFIG="$T/policy.conf" $envs "$CALLS" "$T/data.vec" "$@" \
		>"$T/$name.shim" 2>"$T/$name.shim.err"
	echo "exit $?" >>"$T/$name.shim"
}

# judge NAME EXPECTED: transcripts equal, <= 1 log line, setup worked.
judge() {
	name=$1 expected=$2
	grep -v '^info' "$T/$name.plain" >"$T/$name.plain.cmp"
	grep -v '^info' "$T/$name.shim" >"$T/$name.shim.cmp"
	logs=$(grep -c '^advshim' "$T/$name.shim.err")
	rr=$(grep '^info after madvise RANDOM' "$T/$name.shim" | sed 's/.* rr //')
	if ! grep -q '^exit 0$' "$T/$name.plain" ||
	   [ "$(grep -v '^info' "$T/$name.plain" | grep -c ' errno ')" -ne 27 ]; then
		seen="FAIL: the program did not run through ($(tail -n 1 "$T/$name.plain"), $(grep -v '^info' "$T/$name.plain" | grep -c ' errno ') of 27 calls)"
	elif ! cmp -s "$T/$name.plain.cmp" "$T/$name.shim.cmp"; then
		seen="FAIL: calls differ: $(diff "$T/$name.plain.cmp" "$T/$name.shim.cmp" | grep '^>' | head -n 2 | tr '\n' ';')"
	elif [ "$logs" -gt 1 ]; then
		seen="FAIL: $logs log lines"
	else
		seen="same as libc, $logs log line(s), shim rr=$rr"
	fi
	case $seen in
	FAIL*) fail=$((fail + 1))
		echo "--- $name: plain vs shim"; diff "$T/$name.plain" "$T/$name.shim" | head -n 20
		sed 's/^/    stderr| /' "$T/$name.shim.err" | head -n 5 ;;
	*) pass=$((pass + 1)) ;;
	esac
	row "$name" "$expected" "$seen"
}

for f in "$CALLS" "$FAILMALLOC" "$LIB"; do
	if [ ! -e "$f" ]; then
		echo "fault[shim]: FAILED: $f not built"
		exit 1
	fi
done

# 0. Baseline: no fault; the shim must be active (rr gone after RANDOM).
run_pair baseline "" "" ""
judge baseline "same calls; rr 1 without, 0 with the shim"
if ! grep -q '^info after madvise RANDOM rr 1' "$T/baseline.plain" ||
   ! grep -q '^info after madvise RANDOM rr 0' "$T/baseline.shim"; then
	row baseline-active "shim active: rr 0 with, 1 without" \
		"FAIL: plain $(grep -c 'RANDOM rr 1' "$T/baseline.plain") shim $(grep -c 'RANDOM rr 0' "$T/baseline.shim")"
	fail=$((fail + 1))
else
	row baseline-active "shim active: rr 0 with, 1 without" "ok"
	pass=$((pass + 1))
fi

# 1. Every malloc fails from the start (the policy parse meets ENOMEM).
run_pair malloc-always "$FAILMALLOC" "FAULT_MALLOC=always" ""
judge malloc-always "same calls (pass-through), <= 1 log line"

# 2. Every malloc fails after the shim initialised.
run_pair malloc-after-init "$FAILMALLOC" "" "" --arm-malloc
judge malloc-after-init "same calls, <= 1 log line"

# 3. Address space exhausted (RLIMIT_AS = mapped + 64 KiB): slab chunks fail.
run_pair rlimit-as "" "" "" --eat-as
judge rlimit-as "same calls (ENOMEM where libc has it)"

# 4. No file descriptor left before the first mmap (EMFILE).
run_pair emfile "" "" "" --eat-fds
judge emfile "same calls; kernel view (maps) unreadable"

# 5. Unreadable config file and a config with a syntax error: fail open.
run_pair config-missing "" "ADVSHIM_CONFIG=$T/none.conf" ""
judge config-missing "pass-through, 1 log line"
run_pair config-bad "" "ADVSHIM_CONFIG=$T/bad.conf" ""
judge config-bad "pass-through, 1 log line"

# 6/7. /proc unreadable, /proc/self/fd unavailable: private mount namespace.
if [ "$(id -u)" != 0 ] || ! command -v unshare >/dev/null ||
   ! unshare -m true 2>/dev/null; then
	for c in proc-hidden proc-self-fd-hidden; do
		row "$c" "same calls" "SKIPPED: needs root and unshare -m (counted as failed)"
		fail=$((fail + 1))
	done
else
	if [ -n "$RT" ]; then
		# Not a gap of the shim: ASan/TSan read /proc/self/maps at start.
		row proc-hidden "same calls" "SKIPPED: the sanitizer runtime itself needs /proc (run without SANITIZER=)"
	else
		run_pair proc-hidden "" "" "unshare -m sh -c 'mount -t tmpfs none /proc && exec \"\$@\"' sh"
		judge proc-hidden "same calls; /proc is an empty tmpfs"
	fi
	run_pair proc-self-fd-hidden "" "" "unshare -m sh -c 'mount -t tmpfs none /proc/\$\$/fd && exec \"\$@\"' sh"
	judge proc-self-fd-hidden "same calls; readlink /proc/self/fd fails"
fi

echo "shim fault matrix, policy ${FAULT_POLICY:-rewrite} (case | expected | seen):"
cat "$MATRIX"
echo "fault[shim, ${FAULT_POLICY:-rewrite}]: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
