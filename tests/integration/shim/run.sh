#!/bin/sh
# run.sh BUILD [SANITIZER] - the shim's integration tests.
#
# Real programs run plain and under LD_PRELOAD=libadvshim.so; the verdict
# comes from the kernel (VmFlags `rr` of the advised VMAs, which the
# programs read from their own /proc/self/smaps) or from strace.  Every
# check compares against the plain run too, so a test that cannot tell
# the shim from no shim fails.  Prints "ok"/"FAIL" per check and a total.
set -u
build=${1:-build}
san=${2:-}
here=$(cd "$(dirname "$0")" && pwd)
bin=$build/tests/shim
lib=$(cd "$build" && pwd)/libadvshim.so
conf=$here/conf
tmp=$(mktemp -d /tmp/advshim-it.XXXXXX)
secure_lib=
trap 'rm -rf "$tmp"; [ -n "$secure_lib" ] && rm -f "$secure_lib"' EXIT INT TERM
pass=0
fail=0

# A sanitized shim in a program needs the sanitizer runtime first in
# LD_PRELOAD (ASan insists on it); the programs here are built with the
# same flags, so that runtime is the one they link anyway.
san_rt=$(ldd "$lib" | awk '/lib(asan|tsan|ubsan)\.so/ { print $3; exit }')
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
export TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1}
unset ADVSHIM_CONFIG ADVSHIM_LOG

preload() {	# preload [EXTRA...]: the LD_PRELOAD value with the shim
	v=${san_rt:+$san_rt:}
	for x in "$@"; do v="$v$x:"; done
	echo "${v}$lib"
}

shim() {	# shim CMD...: run under the shim (plus ADVSHIM_* from the caller)
	LD_PRELOAD=$(preload) "$@"
}

ok() { pass=$((pass + 1)); echo "ok   $1"; }
no() { fail=$((fail + 1)); echo "FAIL $1"; shift; for l in "$@"; do echo "     $l"; done; }

# check NAME OUTPUT PATTERN: OUTPUT must match the extended regex.
check() {
	if printf '%s\n' "$2" | grep -Eq -- "$3"; then ok "$1"; else no "$1" "want /$3/" "got: $2"; fi
}
# check_not NAME OUTPUT PATTERN: OUTPUT must not match.
check_not() {
	if printf '%s\n' "$2" | grep -Eq -- "$3"; then no "$1" "unwanted /$3/" "got: $2"; else ok "$1"; fi
}

dd if=/dev/urandom of="$tmp/data" bs=64k count=16 status=none
chmod 644 "$tmp/data"
f=$tmp/data

# advprog prints "p0=rr p1=rr ..." for the mapping's pages.
all_rr='call=0( p[0-9]+=rr)+$'
no_rr='call=0( p[0-9]+=)+$'

test_entry_points() {
	for fn in madvise posix_madvise; do
		for lk in direct default libc; do
			n="$fn via $lk"
			check "$n: plain has rr" "$("$bin/advprog" -f $fn -l $lk -P 8 "$f")" "$all_rr"
			check "$n: shim removes rr" "$(shim "$bin/advprog" -f $fn -l $lk -P 8 "$f")" "$no_rr"
		done
	done
}

# strace_of OUT CMD...: the system calls CMD makes (fadvise64 and madvise).
strace_of() {
	out=$1; shift
	strace -f -qq -e trace=fadvise64,madvise -o "$out" "$@" >/dev/null 2>&1
}

test_fadvise() {
	for lk in direct default libc; do
		strace_of "$tmp/p" "$bin/advprog" -f posix_fadvise -l $lk -P 4 "$f"
		ADVSHIM_CONFIG=$conf/fadvise.conf strace_of "$tmp/s" \
			env LD_PRELOAD="$(preload)" "$bin/advprog" -f posix_fadvise -l $lk -P 4 "$f"
		check "posix_fadvise via $lk: plain sends RANDOM" "$(cat "$tmp/p")" 'fadvise64\([0-9]+, 0, 0, POSIX_FADV_RANDOM\) = 0'
		check "posix_fadvise via $lk: shim sends NORMAL" "$(cat "$tmp/s")" 'fadvise64\([0-9]+, 0, 0, POSIX_FADV_NORMAL\) = 0'
		check_not "posix_fadvise via $lk: shim sends no RANDOM" "$(cat "$tmp/s")" 'POSIX_FADV_RANDOM'
	done
}

test_policies() {
	check "keep rule keeps rr" \
		"$(ADVSHIM_CONFIG=$conf/keep.conf shim "$bin/advprog" -P 4 "$f")" "$all_rr"
	strace_of "$tmp/p" "$bin/advprog" -P 4 "$f"
	ADVSHIM_CONFIG=$conf/skip.conf strace_of "$tmp/s" env LD_PRELOAD="$(preload)" "$bin/advprog" -P 4 "$f"
	check "skip rule: plain issues madvise RANDOM" "$(cat "$tmp/p")" 'madvise\(0x[0-9a-f]+, 16384, MADV_RANDOM\) = 0'
	check_not "skip rule: shim issues no madvise RANDOM" "$(cat "$tmp/s")" 'MADV_RANDOM'
	check "skip rule: call returns 0, rr absent" \
		"$(ADVSHIM_CONFIG=$conf/skip.conf shim "$bin/advprog" -P 4 "$f")" "$no_rr"
	ADVSHIM_CONFIG=$conf/noreuse.conf strace_of "$tmp/s" env LD_PRELOAD="$(preload)" "$bin/advprog" -P 4 "$f"
	check "on_map noreuse reaches the kernel" "$(cat "$tmp/s")" 'fadvise64\([0-9]+, 0, 0, POSIX_FADV_NOREUSE\) = 0'
	check_not "no NOREUSE without the shim" "$(cat "$tmp/p")" 'NOREUSE'
	out=$(ADVSHIM_CONFIG=$conf/broken.conf shim "$bin/advprog" -P 4 "$f" 2>"$tmp/err")
	check "broken config: pass-through keeps rr" "$out" "$all_rr"
	check "broken config: one log line with file:line" \
		"$(grep -c 'broken.conf:[0-9]*:.*passing everything through' "$tmp/err")" '^1$'
	check "broken config: nothing else logged" "$(wc -l < "$tmp/err")" '^ *1$'
	check "processes filter: other program passes through" \
		"$(ADVSHIM_CONFIG=$conf/other-process.conf shim "$bin/advprog" -P 4 "$f")" "$all_rr"
	out=$(ADVSHIM_LOG=info ADVSHIM_CONFIG=$conf/rewrite.conf shim "$bin/advprog" -P 4 "$f" 2>&1 >/dev/null)
	check "info log names file, advice and rule" "$out" "rewrite $f: random -> normal \\(all\\)"
	check "info log: first rewrite only" "$(echo "$out" | grep -c "rewrite $f")" '^1$'
	out=$(ADVSHIM_LOG=info shim "$bin/advprog" -P 4 "$f" 2>&1 >/dev/null)
	check "info log, default policy: the adaptive choice and its numbers" "$out" \
		'adaptive: start -> normal \(fits: need 16 KiB = 0% of capacity [0-9]+ MiB'
	check "info log, default policy: the file's first RANDOM call named once" \
		"$(echo "$out" | grep -c "adaptive $f: random -> normal (default)")" '^1$'
	check "default log level is quiet" "$(shim "$bin/advprog" -P 4 "$f" 2>&1 >/dev/null | wc -l)" '^ *0$'
}

test_errors() {
	"$bin/errprog" "$f" > "$tmp/plain" 2>&1
	shim "$bin/errprog" "$f" > "$tmp/shim" 2>&1
	if [ -s "$tmp/plain" ] && diff -u "$tmp/plain" "$tmp/shim" > "$tmp/diff"; then
		ok "errors and errno identical to plain libc ($(wc -l < "$tmp/plain") cases)"
	else
		no "errors and errno identical to plain libc" "$(cat "$tmp/diff")"
	fi
	check "errprog: bad fd gives EBADF, errno untouched" "$(cat "$tmp/shim")" 'posix_fadvise bad fd +ret=9 errno=777'
	check "errprog: unmapped gives -1/ENOMEM" "$(cat "$tmp/shim")" 'madvise unmapped +ret=-1 errno=12'
	strace_of "$tmp/s" env LD_PRELOAD="$(preload)" "$bin/errprog" "$f"
	check "advice 23 reaches the kernel untouched" "$(cat "$tmp/s")" 'madvise\(NULL, 0, MADV_POPULATE_WRITE\)'
}

test_layouts() {
	out=$("$bin/advprog" -P 12 -o 4 -n 4 "$f")
	check "partial range: plain rr on pages 4-7 only" "$out" 'p3= p4=rr p5=rr p6=rr p7=rr p8= '
	check "partial range: shim no rr" "$(shim "$bin/advprog" -P 12 -o 4 -n 4 "$f")" "$no_rr"
	check "file|anon|file: plain rr on 1-8" "$("$bin/advprog" -L "$f")" 'p0= p1=rr p2=rr p3=rr p4=rr p5=rr p6=rr p7=rr p8=rr p9=$'
	check "file|anon|file: shim keeps rr on anon only" "$(shim "$bin/advprog" -L "$f")" \
		'call=0 p0= p1= p2= p3= p4=rr p5=rr p6= p7= p8= p9=$'
	check "mremap shrink, move and grow: plain rr" "$("$bin/advprog" -M -P 8 "$f")" "$all_rr"
	check "mremap shrink, move and grow: table follows, no rr" \
		"$(ADVSHIM_LOG=debug shim "$bin/advprog" -M -P 8 "$f" 2>"$tmp/err")" "$no_rr"
	check "mremap: the moved range is known (no kernel-view lookup)" \
		"$(grep -cE 'posix_madvise.*: (rewrite|adaptive, normal)' "$tmp/err") $(grep -c 'kernel view' "$tmp/err")" '^1 0$'
	check "raw mapping: found through the kernel view (control)" \
		"$(ADVSHIM_LOG=debug shim "$bin/advprog" -r -P 8 "$f" 2>&1 >/dev/null | grep -c "kernel view: .*$f")" '^1$'
	check "unknown mapping (raw syscall): kernel view via PROCMAP_QUERY" \
		"$(shim "$bin/advprog" -r -P 8 "$f")" "$no_rr"
	check "unknown mapping: kernel view via /proc/self/maps" \
		"$(ADVSHIM_KVIEW=maps shim "$bin/advprog" -r -P 8 "$f")" "$no_rr"
	check "unknown mapping: plain has rr" "$("$bin/advprog" -r -P 8 "$f")" "$all_rr"
}

test_process_model() {
	out=$(shim "$bin/advprog" -F -P 4 "$f")
	check "fork: parent rewritten" "$out" "parent $no_rr"
	check "fork: child rewritten" "$out" "child $no_rr"
	check "fork: plain child has rr" "$("$bin/advprog" -F -P 4 "$f")" "child $all_rr"
	check "16 threads: plain sees rr" "$("$bin/advprog" -t 16 -i 64 "$f")" 'rr_seen=[1-9][0-9]* errors=0'
	check "16 threads: shim never leaves rr, no errors" \
		"$(shim "$bin/advprog" -t 16 -i 200 "$f")" 'threads=16 iters=200 rr_seen=0 errors=0$'
	out=$(shim "$bin/advprog" -t 16 -F -i 50 "$f")
	check "fork while 16 threads contend for the lock: no child hangs" "$out" \
		'fork_storm children=40 rr_children=0 hung=0 failed=0'
	check "fork storm: plain children have rr" "$("$bin/advprog" -t 4 -F -i 10 "$f")" 'rr_children=40 '
	# MADV_DONTFORK: the child lacks the file range; its anonymous memory
	# there must keep the caller's advice, not get the vanished file's.
	check "DONTFORK, child maps anon there: plain rr" \
		"$("$bin/advprog" -f madvise -D -P 4 "$f")" "child $all_rr"
	check "DONTFORK, child maps anon there: shim keeps rr" \
		"$(shim "$bin/advprog" -f madvise -D -P 4 "$f")" "child $all_rr"
	check "DONTFORK on part: anon rr, inherited file part rewritten" \
		"$(shim "$bin/advprog" -f madvise -D -P 4 -o 1 -n 2 "$f")" \
		'child call=0 p0= p1=rr p2=rr p3=$'
	out=$(ADVSHIM_LOG=debug shim "$bin/advprog" -f madvise -D -D -P 4 "$f" 2>"$tmp/err")
	check "DONTFORK then DOFORK: the child's file rewritten" "$out" "child-kept $no_rr"
	check "DONTFORK then DOFORK: still in the child's table (no kernel view)" \
		"$(grep -c 'kernel view' "$tmp/err")" '^0$'
	check "constructor before the shim's: plain rr" "$(EARLY_FILE=$f "$bin/earlyprog")" 'early call=0 rr=1'
	check "constructor before the shim's: shim rewrites" "$(EARLY_FILE=$f shim "$bin/earlyprog")" 'early call=0 rr=0'
}

test_dlsym_next() {
	wrap=$(cd "$bin" && pwd)/libwrapnext.so
	for order in before after; do
		if [ $order = before ]; then pl=$(preload "$wrap"); else
			pl=${san_rt:+$san_rt:}$lib:$wrap; fi
		out=$(LD_PRELOAD=$pl "$bin/advprog" -f madvise -P 4 "$f" 2>&1)
		rc=$?
		check "RTLD_NEXT wrapper $order the shim: exit 0 (no loop)" "rc=$rc" '^rc=0$'
		check "RTLD_NEXT wrapper $order the shim: shim still rewrites" "$out" "$no_rr"
		check "RTLD_NEXT wrapper $order the shim: wrapper called" "$out" 'wrapnext_calls=[1-9]'
	done
}

test_exports() {
	out=$(nm -D --defined-only "$lib" | awk '{ print $3 }' | sort | tr '\n' ' ')
	check "exports exactly the interposers" "$out" \
		'^dlsym madvise mmap mmap64 mremap munmap posix_fadvise posix_fadvise64 posix_madvise $'
}

# AT_SECURE: a setuid-root copy of advprog run as nobody.  glibc preloads
# only set-user-ID libraries from the system directories in secure mode,
# so a uniquely named copy of the shim goes there for the test.
test_at_secure() {
	if [ "$(id -u)" != 0 ]; then
		echo "SKIP AT_SECURE test: needs root (setuid binary + system lib dir)"
		return
	fi
	if [ -n "$san" ]; then
		echo "SKIP AT_SECURE test under SANITIZER=$san: secure mode ignores the runtime's preload path"
		return
	fi
	libdir=$(dirname "$(ldd "$bin/advprog" | awk '/libc\.so/ { print $3 }')")
	name=libadvshim-it-$$.so
	secure_lib=$libdir/$name
	cp "$lib" "$secure_lib" && chmod 4755 "$secure_lib"
	cp "$bin/advprog" "$tmp/suid-advprog" && chmod 4755 "$tmp/suid-advprog"
	chmod 755 "$tmp"
	run_nobody() {
		setpriv --reuid=65534 --regid=65534 --clear-groups env "$@"
	}
	out=$(run_nobody LD_PRELOAD=$name ADVSHIM_CONFIG=$conf/keep.conf ADVSHIM_LOG=debug \
		"$tmp/suid-advprog" -P 4 "$f" 2>"$tmp/err")
	check "AT_SECURE: ADVSHIM_CONFIG ignored (default policy rewrites)" "$out" "$no_rr"
	check "AT_SECURE: ADVSHIM_LOG ignored" "$(wc -l < "$tmp/err")" '^ *0$'
	out=$(run_nobody LD_PRELOAD=$lib ADVSHIM_CONFIG=$conf/keep.conf "$tmp/suid-advprog" -P 4 "$f" 2>/dev/null)
	check "AT_SECURE: control, the same call without the shim keeps rr" "$out" "$all_rr"
	out=$(run_nobody LD_PRELOAD=$name ADVSHIM_CONFIG=$conf/keep.conf "$bin/advprog" -P 4 "$f" 2>/dev/null)
	check "AT_SECURE: control, not setuid honours ADVSHIM_CONFIG" "$out" "$all_rr"
	rm -f "$secure_lib"
	secure_lib=
}

# inspect_of CMD...: start CMD (advprog -p ...), run advshim inspect ARGS
# on it while it waits, then let it finish.  Output in $tmp/inspect.
inspect_of() {
	iargs=$1; shift
	rm -f "$tmp/ctl" "$tmp/out"
	mkfifo "$tmp/ctl"
	"$@" < "$tmp/ctl" > "$tmp/out" 2>&1 &
	exec 3> "$tmp/ctl"
	i=0
	while ! grep -q '^ready' "$tmp/out" 2>/dev/null && [ $i -lt 600 ]; do
		i=$((i + 1)); sleep 0.05
	done
	ipid=$(awk '/^ready/ { print $2 }' "$tmp/out")
	# shellcheck disable=SC2086
	"$build/advshim" inspect $iargs "$ipid" > "$tmp/inspect" 2>&1
	exec 3>&-
	wait
}

test_inspect() {
	inspect_of "" "$bin/advprog" -p -P 8 "$f"
	check "inspect plain: file shows rr" "$(grep -F "$f" "$tmp/inspect")" "^rr "
	check "inspect plain: shim not loaded" "$(cat "$tmp/inspect")" 'libadvshim.so not loaded'
	inspect_of "" env LD_PRELOAD="$(preload)" "$bin/advprog" -p -P 8 "$f"
	check "inspect shim: rr gone" "$(grep -F "$f" "$tmp/inspect")" '^- '
	check "inspect shim: loaded, policy and counters" "$(cat "$tmp/inspect")" \
		'policy <default>, active'
	check "inspect shim: rewrite counted" "$(cat "$tmp/inspect")" 'rewritten 1,'
	check_not "inspect shim: stats memfd not listed as a file" "$(cat "$tmp/inspect")" 'memfd'
	inspect_of "--json" env LD_PRELOAD="$(preload)" "$bin/advprog" -p -P 8 "$f"
	if command -v python3 >/dev/null; then
		check "inspect --json parses, counters present" \
			"$(python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["shim"]["loaded"], d["shim"]["counters"]["rewritten"])' < "$tmp/inspect" 2>&1)" '^True 1$'
	else
		check "inspect --json has counters" "$(cat "$tmp/inspect")" '"rewritten":1'
	fi
	# Advice no rule acts on is passed on unexamined, and still counted;
	# under the default (adaptive) policy a read hint is examined: the
	# range's tag tracks it.
	inspect_of "" env LD_PRELOAD="$(preload)" "$bin/advprog" -p -a sequential -P 8 "$f"
	check "inspect shim, SEQUENTIAL, default policy: examined and kept" "$(cat "$tmp/inspect")" \
		'rewritten 0, skipped 0, kept 1, passed unexamined 0,'
	inspect_of "" env LD_PRELOAD="$(preload)" ADVSHIM_CONFIG="$conf/rewrite.conf" \
		"$bin/advprog" -p -a sequential -P 8 "$f"
	check "inspect shim, SEQUENTIAL: the kernel has sr" "$(grep -F "$f" "$tmp/inspect")" '^sr '
	check "inspect shim, SEQUENTIAL: the call is counted" "$(cat "$tmp/inspect")" \
		'madvise calls: random 0, sequential 1, normal 0, willneed 0;'
	check "inspect shim, SEQUENTIAL: counted as passed unexamined" "$(cat "$tmp/inspect")" \
		'rewritten 0, skipped 0, kept 0, passed unexamined [1-9][0-9]*,'
	inspect_of "--json" env LD_PRELOAD="$(preload)" "$bin/advprog" -p -a willneed -P 8 "$f"
	if command -v python3 >/dev/null; then
		check "inspect --json, WILLNEED: counted in calls and passed" \
			"$(python3 -c 'import json,sys; c=json.load(sys.stdin)["shim"]["counters"]; print(c["calls"]["madvise"]["willneed"], c["passed"]["madvise"]["willneed"], c["kept"])' < "$tmp/inspect" 2>&1)" '^1 1 0$'
	else
		check "inspect --json, WILLNEED: counted" "$(cat "$tmp/inspect")" '"willneed":1'
	fi
	out=$("$build/advshim" inspect 2147483 2>&1); rc=$?
	check "inspect vanished pid: clear error, exit 1" "rc=$rc $out" '^rc=1 advshim inspect: no process 2147483'
	if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
		out=$(setpriv --reuid=65534 --regid=65534 --clear-groups "$build/advshim" inspect 1 2>&1); rc=$?
		check "inspect as another user: permission denied, exit 1" "rc=$rc $out" '^rc=1 .*permission denied'
	else
		echo "SKIP inspect permission test: needs root to switch user"
	fi
}

# Advice on anonymous memory: the kernel is asked once, not per call, and
# its answer is not trusted once a mapping call changed the address space.
test_nofile() {
	dd if=/dev/urandom of="$tmp/mib" bs=64k count=16 status=none
	strace -f -qq -e trace=openat -o "$tmp/anon.strace" \
		env LD_PRELOAD="$(preload)" "$bin/anonprog" repeat 500 >/dev/null 2>&1
	n=$(grep -c '/proc/self/maps' "$tmp/anon.strace")
	if [ "$n" -ge 1 ] && [ "$n" -le 3 ]; then
		ok "anonymous advice: 1500 calls ask the kernel $n time(s)"
	else
		no "anonymous advice: 1500 calls ask the kernel 1-3 times" "asked $n times"
	fi
	check "anonymous advice: plain program" "$("$bin/anonprog" reuse "$tmp/mib")" '^rr=1$'
	check "anonymous advice: a file mapped where anonymous memory was is asked again" \
		"$(ADVSHIM_CONFIG=$conf/rewrite.conf shim "$bin/anonprog" reuse "$tmp/mib")" '^rr=0$'
}

test_exports
test_inspect
test_nofile
test_entry_points
test_fadvise
test_policies
test_errors
test_layouts
test_process_model
test_dlsym_next
test_at_secure
echo "shim integration: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
