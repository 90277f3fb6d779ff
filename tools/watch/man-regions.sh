#!/bin/sh
# man-regions.sh check|update GEN PAGE... - the lists of watcher settings
# in the manual pages, generated from tools/watch/watch_settings.c.
#
# A region is the lines between `.\" generated: NAME ...` and
# `.\" end: NAME`; `GEN NAME` prints what belongs there.  check: fail and
# show the difference when a page disagrees with the table; update:
# rewrite the regions (make watch-man).
set -u
mode=$1 gen=$2
shift 2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
rc=0
for page; do
	regions=$(sed -n 's/^\.\\" generated: \([a-z-]*\).*/\1/p' "$page")
	if [ -z "$regions" ]; then
		echo "FAIL $page: no generated region"; rc=1; continue
	fi
	cp "$page" "$tmp/page"
	for r in $regions; do
		if ! "$gen" "$r" > "$tmp/want"; then
			echo "FAIL $page: $gen $r failed"; rc=1; continue
		fi
		awk -v r="$r" '
			$1 == ".\\\"" && $2 == "end:" && $3 == r { inr = 0 }
			inr { print }
			$1 == ".\\\"" && $2 == "generated:" && $3 == r { inr = 1 }
		' "$tmp/page" > "$tmp/have"
		cmp -s "$tmp/want" "$tmp/have" && continue
		if [ "$mode" = update ]; then
			awk -v r="$r" -v f="$tmp/want" '
				$1 == ".\\\"" && $2 == "end:" && $3 == r {
					while ((getline l < f) > 0) print l
					inr = 0
				}
				!inr { print }
				$1 == ".\\\"" && $2 == "generated:" && $3 == r { inr = 1 }
			' "$tmp/page" > "$tmp/new" && mv "$tmp/new" "$tmp/page"
		else
			echo "FAIL $page: region $r disagrees with the settings table (run make watch-man):"
			diff -u "$tmp/have" "$tmp/want" | sed 's/^/    /'
			rc=1
		fi
	done
	if [ "$mode" = update ] && ! cmp -s "$tmp/page" "$page"; then
		cp "$tmp/page" "$page" && echo "updated $page"
	fi
done
if [ "$mode" = check ] && [ $rc -eq 0 ]; then
	echo "ok   $* list the settings as tools/watch/watch_settings.c does"
fi
exit $rc
