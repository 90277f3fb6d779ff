#!/bin/sh
# prereq.sh CC - fail loudly unless CC can build a libFuzzer program with
# ASan and UBSan (Debian: clang and libclang-rt-14-dev, see mk/deps.sh).
cc=${1:-clang}
if ! command -v "$cc" >/dev/null 2>&1; then
	echo "fuzz: SKIPPED: '$cc' not found (install clang and libclang-rt-14-dev: make deps)" >&2
	exit 1
fi
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
printf '%s\n' '#include <stddef.h>' '#include <stdint.h>' \
	'int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);' \
	'int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }' \
	>"$tmp/t.c"
if ! "$cc" -fsanitize=fuzzer,address,undefined -o "$tmp/t" "$tmp/t.c" \
		>"$tmp/log" 2>&1; then
	echo "fuzz: SKIPPED: '$cc' cannot link -fsanitize=fuzzer,address,undefined" \
		"(libclang-rt-14-dev missing? make deps):" >&2
	cat "$tmp/log" >&2
	exit 1
fi
