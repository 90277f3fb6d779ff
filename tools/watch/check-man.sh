#!/bin/sh
# The man page must render with man-db/groff without a single warning.
set -u
page=$(dirname "$0")/advshim-watch.8
if ! command -v man > /dev/null; then
	echo "SKIP advshim-watch.8: man(1) not installed (apt-get install man-db)"
	exit 0
fi
out=$(MANWIDTH=80 man --warnings -l "$page" 2>&1 > /dev/null)
if [ -n "$out" ]; then
	echo "FAIL advshim-watch.8 renders with warnings:"
	echo "$out"
	exit 1
fi
echo "ok   advshim-watch.8 renders without warnings"
