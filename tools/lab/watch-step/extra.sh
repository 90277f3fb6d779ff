#!/bin/sh
# SPDX-License-Identifier: MIT
#
# extra.sh - helpers for the watch-step experiments (sourced after the
# lab's guest/common.sh).
LRU_GEN_FULL_FILE=/sys/kernel/debug/lru_gen_full

# lru_gen_full_block CG: CG's generation rows from lru_gen_full, with the
# file rep row of each generation's tier 0..3 summed: "seq age anon file r e p"
lru_gen_full_block() {
	awk -v path="$1" '
		$1 == "memcg" { p = $0; sub(/^memcg +[0-9]+ /, "", p); hit = (p == path); next }
		!hit { next }
		$1 == "node" { next }
		NF == 4 { if (row != "") print row, r, e, pr; row = $1 " " $2 " " $3 " " $4; r = e = pr = 0; next }
		NF == 7 { f5 = $5; f6 = $6; f7 = $7; gsub(/[^0-9]/, "", f5); gsub(/[^0-9]/, "", f6); gsub(/[^0-9]/, "", f7); r += f5; e += f6; pr += f7 }
		END { if (row != "") print row, r, e, pr }' "$LRU_GEN_FULL_FILE" 2>/dev/null
}

# lru_gen_rows CG: "seq:file ..." for CG's generations (one line)
lru_gen_rows() {
	awk -v path="$1" '
		$1 == "memcg" { p = $0; sub(/^memcg +[0-9]+ /, "", p); hit = (p == path); next }
		hit && $1 != "node" && NF >= 4 { printf "%s:%s ", $1, $4 }
		END { print "" }' "$LRU_GEN_FILE" 2>/dev/null
}

# file_min_seq CG: the oldest generation that still counts for file pages
file_min_seq() {
	awk -v path="$1" '
		$1 == "memcg" { p = $0; sub(/^memcg +[0-9]+ /, "", p); hit = (p == path); next }
		hit && NF == 4 && $4 !~ /x$/ { print $1; exit }' "$LRU_GEN_FULL_FILE" 2>/dev/null
}
