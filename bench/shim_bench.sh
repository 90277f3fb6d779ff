#!/bin/sh
# shim_bench.sh BUILD - run shim_bench without and with the shim.
#
# Each run interleaves raw system calls (A) with libc entry points (B) in
# one process; without the shim B/A is libc's own wrapper cost, with it
# B/A is what the goals are about (the shim's overhead on the raw call).
set -u
build=${1:-build}
lib=$(cd "$build" && pwd)/libadvshim.so
echo "--- without the shim"
"$build/bench/shim_bench" "${ROUNDS:-31}"
echo "--- with the shim (embedded default policy)"
LD_PRELOAD=$lib "$build/bench/shim_bench" "${ROUNDS:-31}"
