/* SPDX-License-Identifier: MIT */
/*
 * outparse.h - parsers of what the programs of an arm print: the TSV of
 * `advshim-load random`, the start/end events of `advshim-load stream`
 * and advshim-watch's JSON-lines decision log.  All take NUL-terminated
 * text, allocate nothing, take no locks and do no I/O.  (Kernel text is
 * read through common/: lrugen.h, memstat.h, iostat.h, smaps.h.)
 */
#ifndef ADVSHIM_AB_OUTPARSE_H
#define ADVSHIM_AB_OUTPARSE_H

#include <stdbool.h>
#include <stdint.h>

/* One interval row of `advshim-load random` TSV output. */
struct load_row {
	uint64_t elapsed_ms, mono_ms, queries;
	double qps, reads_s, p50_us, p90_us, p99_us;
	uint64_t majflt;
	double majflt_s;
};

/*
 * parse_load_row - parse one line (with its '\n') into *row.  Returns 1
 * for an interval row, 0 for anything else (comments, header, stream
 * lines, partial junk; *row is then unspecified).
 */
int parse_load_row(const char *line, struct load_row *row);

/*
 * parse_stream_event - a `advshim-load stream` start/end line: sets
 * *is_end, *loop and *mono_ms and returns 1; 0 for any other line.
 */
int parse_stream_event(const char *line, bool *is_end, unsigned int *loop,
		       uint64_t *mono_ms);

struct watch_counts;

/*
 * parse_watch_log - count advshim-watch's JSON-lines decisions ("event":
 * "thrash", "age", "would_age", "age_failed"; anything else is "other")
 * into @w, whose counters it resets first.  Lines that are not JSON
 * objects are ignored.  Cannot fail.
 */
void parse_watch_log(const char *buf, struct watch_counts *w);

#endif /* ADVSHIM_AB_OUTPARSE_H */
