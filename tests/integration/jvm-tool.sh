# jvm-tool.sh - what the tests of the Maven-built Java tools share
# (tests/integration/lucene/run.sh, tests/integration/opensearch/run.sh).
# Sourced by a test run as `run.sh BUILD [SANITIZER]`, with its positional
# parameters and $here (its own directory, tests/integration/NAME) set.
# Sets build (BUILD, absolute), san, top (the source tree), lib (the shim)
# and the pass and fail counters; defines ok, no and jvm_tool_ready.

build=$(cd "${1:-build}" && pwd)
san=${2:-}
top=$(cd "$here/../../.." && pwd)
lib=$build/libadvshim.so
pass=0
fail=0

# ok WHAT - a check passed.
ok() { pass=$((pass + 1)); echo "ok   $1"; }
# no WHAT [DETAIL...] - a check failed; each DETAIL on a line of its own.
no() { fail=$((fail + 1)); echo "FAIL $1"; shift; for l in "$@"; do echo "     $l"; done; }

# jvm_tool_ready NAME SANITIZER BIN JAR LOG - the test NAME can run: under
# a SANITIZER prints SKIP and exits 0 (a sanitizer runtime preloaded into
# java tests nothing); when the launcher BIN or JAR was not built prints
# FAIL with the reason (no JDK 21+, no Maven, or the build's LOG) and exits
# 1.  Then unsets the shim's variables, so that each arm sets its own.
jvm_tool_ready() {
	if [ -n "$2" ]; then
		echo "SKIP $1 test under SANITIZER=$2: a sanitizer runtime preloaded into java is not a meaningful test"
		exit 0
	fi
	if [ ! -x "$3" ] || [ ! -f "$4" ]; then
		why=$(sh "$top/tools/lucene/find-jdk.sh") || { echo "FAIL $1 test: $why"; exit 1; }
		command -v mvn >/dev/null 2>&1 || { echo "FAIL $1 test: mvn not found (make deps)"; exit 1; }
		echo "FAIL $1 test: $3 was not built (see $5)"
		exit 1
	fi
	unset ADVSHIM_CONFIG ADVSHIM_LOG LD_PRELOAD
}
