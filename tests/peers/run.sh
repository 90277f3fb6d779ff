#!/bin/bash
# run.sh BUILD ASAN_BUILD
# check-peers: other projects' own test suites, run plain and under
# BUILD/libadvshim.so, judged by their own verdicts (tests/peers/README.md).
#
#   plain       no preload: the reference, run at the same time as the rest
#   default     BUILD/libadvshim.so, the embedded policy (no ADVSHIM_CONFIG)
#   everything  BUILD/libadvshim.so, everything.conf.in: every read hint
#               rewritten for "**", on_map noreuse, level debug to a file
#   asan        ASAN_BUILD/libadvshim.so (ASan+UBSan) after libasan, the
#               embedded policy; any sanitizer report fails
#   asan-everything  the same build under the everything policy
#   control     test_posix under libpeers-leakfd.so, a preload that holds a
#               descriptor as the shim did before issue 18: must DIFF
#
# Suites: CPython 3.11's regrtest (Debian's /usr/bin/python3.11 and
# libpython3.11-testsuite) on PEERS_PY_TESTS, all configurations at once;
# then stress-ng's PEERS_STRESSORS with --verify, PEERS_SECONDS each, one
# configuration after the other, a configuration's stressors at once.
# Fails on any verdict that differs from plain's, a sanitizer report, a
# configuration in which the shim is not shown loaded and acting, or a
# control that does not differ.  Results are kept in BUILD/peers/.
set -u
build=$(realpath "$1") || exit 1
asan_build=$(realpath "$2") || exit 1
here=$(cd "$(dirname "$0")" && pwd)
py=/usr/bin/python3.11
py_tests=${PEERS_PY_TESTS:-test_mmap test_posix test_os test_fcntl test_io test_fileio test_threading test_subprocess}
stressors=${PEERS_STRESSORS:-mmap madvise mremap mmapfork fault mmapmany mmapaddr msync}
secs=${PEERS_SECONDS:-3}
jobs=${PEERS_JOBS:-2}
# The control runs test_posix: the reference must have run it too.
case " $py_tests " in *" test_posix "*) ;; *) py_tests="$py_tests test_posix" ;; esac
configs=${PEERS_CONFIGS:-default everything asan asan-everything}

fail() { echo "peers: FAILED: $*"; exit 1; }

shim=$build/libadvshim.so
shim_asan=$asan_build/libadvshim.so
leakfd=$build/tests/peers/libpeers-leakfd.so
freeram=$build/tests/peers/libpeers-freeram.so
asan_rt=$(${CC:-cc} -print-file-name=libasan.so)
for f in "$py" /usr/lib/python3.11/test/libregrtest/main.py "$shim" \
	 "$shim_asan" "$leakfd" "$freeram" "$asan_rt" "$build/advshim"; do
	[ -e "$f" ] || fail "$f is missing (make deps; make all; make stress-build-asan)"
done
command -v stress-ng >/dev/null || fail "stress-ng is not installed (make deps)"
# A SANITIZER= build of BUILD needs its runtime first, as in stress/run.sh.
shim_rt=$(ldd "$shim" 2>/dev/null | awk '/lib[at]san\.so/ { print $3; exit }')
if [ -e /etc/advshim.conf ]; then
	echo "peers: note: /etc/advshim.conf exists: 'default' and 'asan' run under it, not the embedded policy"
fi

tmp=$(mktemp -d /tmp/advshim-peers.XXXXXX) || exit 1
tmp=$(realpath "$tmp")
pids=
# The background jobs are subshells waiting for timeout(1), which passes
# a TERM on to the suite it runs.
cleanup() {
	local p
	for p in $pids; do
		kill $(ps -o pid= --ppid "$p" 2>/dev/null) "$p" 2>/dev/null
	done
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
# Tests drop privileges (test_subprocess runs children as nobody): the log
# files and sanitizer reports must stay reachable and writable for them.
chmod 755 "$tmp"
mkdir -m 1777 "$tmp/san"
# The act-on-everything policy, one per configuration and suite so that
# each log holds only that run's processes.
for c in everything asan-everything; do
	for part in py sng probe; do
		: >"$tmp/shim-$c-$part.log"
		chmod 666 "$tmp/shim-$c-$part.log"
		sed "s|@LOG@|$tmp/shim-$c-$part.log|" "$here/everything.conf.in" \
			>"$tmp/everything-$c-$part.conf"
		"$build/advshim" check -q "$tmp/everything-$c-$part.conf" >/dev/null ||
			fail "$tmp/everything-$c-$part.conf: advshim check refuses it"
	done
done

# cfg_env CFG PART: the environment of configuration CFG for suite PART.
cfg_env() {
	unset LD_PRELOAD ADVSHIM_CONFIG ADVSHIM_LOG PYTHONPATH PYTHONHOME PYTHONSTARTUP
	case $1 in
	plain)	;;
	default) export LD_PRELOAD="${shim_rt:+$shim_rt }$shim" ;;
	everything)
		export LD_PRELOAD="${shim_rt:+$shim_rt }$shim"
		export ADVSHIM_CONFIG=$tmp/everything-$1-$2.conf ;;
	asan|asan-everything)
		export LD_PRELOAD="$asan_rt $shim_asan"
		[ "$1" = asan ] || export ADVSHIM_CONFIG=$tmp/everything-$1-$2.conf
		# Leaks off: CPython itself does not free everything at exit
		# (LSan reports it plain), and a leak report changes the exit
		# status the suites judge.  The shim's leaks: check-stress.
		# allocator_may_return_null: test_io asks for 2**63 bytes and
		# wants MemoryError, which plain malloc gives.
		export ASAN_OPTIONS=detect_leaks=0:allocator_may_return_null=1:abort_on_error=0:halt_on_error=1:log_path=$tmp/san/$1.asan
		export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:log_path=$tmp/san/$1.ubsan ;;
	control) export LD_PRELOAD=$leakfd ;;
	esac
}

# run_py CFG TESTS...: regrtest on TESTS in the background, in $tmp/CFG.
run_py() {
	local cfg=$1 d=$tmp/$1
	shift
	mkdir -p "$d/work"
	(
		cfg_env "$cfg" py
		# The environment, for verdicts.py's reruns under a sanitizer.
		env | grep -E '^(LD_PRELOAD|ADVSHIM_CONFIG|ADVSHIM_LOG|ASAN_OPTIONS|UBSAN_OPTIONS)=' >"$d/py.env"
		cd "$d" || exit 1
		timeout -k 10 280 "$py" -m test -j"$jobs" --timeout 200 \
			--tempdir "$d/work" --junit-xml "$d/py.xml" "$@" >"$d/py.out" 2>&1
		echo $? >"$d/py.rc"
		times >"$d/py.times"	# line 2: every process it waited for
	) &
	pids="$pids $!"
}

# run_stress CFG: every stressor at once under CFG, in $tmp/CFG/sng.
run_stress() {
	local cfg=$1 d=$tmp/$1/sng s ps=
	mkdir -p "$d/work"
	for s in $stressors; do
		(
			cfg_env "$cfg" sng
			if [ "$s" = mmapfork ]; then
				export LD_PRELOAD="${LD_PRELOAD:+$LD_PRELOAD }$freeram"
			fi
			cd "$d/work" || exit 1
			# sizes for many rounds in a few seconds (256 MiB default)
			timeout -k 10 $((secs + 60)) stress-ng --"$s" 1 --verify \
				-t "$secs" --metrics-brief --temp-path "$d/work" \
				--mmap-bytes 16M --mremap-bytes 16M \
				>"$d/$s.out" 2>&1
			echo $? >"$d/$s.rc"
		) &
		ps="$ps $!"
	done
	pids="$pids $ps"
	wait $ps
}

# probe CFG: probe.py's line under CFG.
probe() {
	mkdir -p "$tmp/$1"
	( cfg_env "$1" probe; exec "$py" "$here/probe.py" "$tmp/$1" ) 2>&1
}

t0=$(date +%s)
echo "peers: CPython $($py -c 'import sys; print(sys.version.split()[0])') regrtest: $py_tests"
echo "peers: configurations: plain $configs, control; -j$jobs each, all at once"
for c in plain $configs; do
	run_py "$c" $py_tests
done
run_py control test_posix
wait
pids=
t1=$(date +%s)
echo "peers: regrtest done in $((t1 - t0)) s"
for c in plain $configs control; do
	echo "peers[$c]: regrtest exit $(cat "$tmp/$c/py.rc" 2>/dev/null || echo '?'), $(grep -h '^Total duration' "$tmp/$c/py.out" | tail -n 1), CPU user/sys $(sed -n 2p "$tmp/$c/py.times" 2>/dev/null)"
done

echo "peers: stress-ng $(stress-ng --version | awk '{ print $3 }'): $stressors, --verify -t $secs"
for c in plain $configs; do
	run_stress "$c"
done
pids=
t2=$(date +%s)
echo "peers: stress-ng done in $((t2 - t1)) s"

rc=0
# Was the shim loaded and acting?  The same probe in every configuration
# (probe.py), and the debug log's lines from the suites' own processes.
for c in plain $configs control; do
	got=$(probe "$c")
	case $c in
	plain|control) want="shim=no rr=yes" ;;
	*)	want="shim=yes rr=no" ;;
	esac
	if [ "$got" = "$want" ]; then
		echo "peers[$c]: probe: $got (as expected)"
	else
		echo "peers[$c]: FAILED: probe says '$got', expected '$want'"
		rc=1
	fi
done
stamp='[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}[.][0-9]{3}Z '
for c in $configs; do
	case $c in *everything) ;; *) continue ;; esac
	for part in py sng; do
		log=$tmp/shim-$c-$part.log
		# a file target: every line starts with the UTC time
		procs=$(sed -En "s/^${stamp}advshim\[([0-9]*)\]: active, .*/\1/p" "$log" | sort -u | wc -l)
		calls=$(grep -Ec "^${stamp}advshim\[[0-9]*\]: [a-z_]*advise\(" "$log")
		maps=$(grep -Ec "^${stamp}advshim\[[0-9]*\]: mmap $tmp/$c/" "$log")
		echo "peers[$c]: $part log: $(wc -l <"$log") lines, $procs processes active, $calls advice calls logged, $maps mappings of the suite's own files"
		if [ "$procs" -lt 2 ] || [ $((calls + maps)) -lt 1 ]; then
			echo "peers[$c]: FAILED: the $part log does not show the shim acting in the suite's processes"
			rc=1
		fi
		cp "$log" "$tmp/$c/shim-$part.log"
	done
done

# Sanitizer reports, in the log_path files or in any output.  The
# runtime's "failed to allocate" warnings (allocator_may_return_null,
# test_io's 2**63-byte request) are counted, not failed.
san_rx='ERROR: [A-Za-z]*Sanitizer\|runtime error:\|SUMMARY: [A-Za-z]*Sanitizer'
reports=$(grep -l "$san_rx" "$tmp"/san/* "$tmp"/asan*/py.out "$tmp"/asan*/sng/*.out 2>/dev/null)
warnings=$(cat "$tmp"/san/* 2>/dev/null | grep -c 'WARNING: AddressSanitizer failed to allocate')
if [ -n "$reports" ]; then
	echo "peers[asan]: FAILED: sanitizer reports:"
	for f in $reports; do
		echo "--- $f"
		grep -A 30 "$san_rx" "$f" | head -n 40
	done
	rc=1
else
	echo "peers[asan]: no sanitizer report ($warnings 'failed to allocate' warnings, allocator_may_return_null)"
fi

echo
"$py" -I "$here/verdicts.py" "$tmp" plain $configs --control control || rc=1

rm -rf "$build/peers"
mkdir -p "$build/peers"
for c in plain $configs control; do
	mkdir -p "$build/peers/$c"
	cp -r "$tmp/$c"/py.* "$tmp/$c"/*.log "$build/peers/$c/" 2>/dev/null
	[ -d "$tmp/$c/sng" ] && mkdir -p "$build/peers/$c/sng" &&
		cp "$tmp/$c"/sng/*.out "$tmp/$c"/sng/*.rc "$build/peers/$c/sng/"
done
cp -r "$tmp/san" "$build/peers/"
echo
if [ $rc -eq 0 ]; then
	echo "check-peers: OK: every verdict as plain under $configs; the control differs ($(( $(date +%s) - t0 )) s; results in $build/peers)"
else
	echo "check-peers: FAILED ($(( $(date +%s) - t0 )) s; results in $build/peers)"
fi
exit $rc
