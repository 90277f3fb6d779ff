#!/bin/sh
# advshim-watch.service must pass systemd-analyze verify (with the built
# binary standing in for the installed one).
# usage: check-unit.sh BUILD_DIR
set -u
B=$(cd "${1:-build}" && pwd)
unit=$(dirname "$0")/advshim-watch.service
if ! command -v systemd-analyze > /dev/null; then
	echo "SKIP advshim-watch.service: systemd-analyze not installed"
	exit 0
fi
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
sed "s|@SBINDIR@/advshim-watch|$B/advshim-watch|; s|@SYSCONFDIR@|/etc|g" \
	"$unit" > "$d/advshim-watch.service"
if out=$(systemd-analyze verify --man=no "$d/advshim-watch.service" 2>&1) &&
   [ -z "$out" ]; then
	echo "ok   advshim-watch.service passes systemd-analyze verify"
	exit 0
fi
echo "FAIL advshim-watch.service:"
echo "$out"
exit 1
