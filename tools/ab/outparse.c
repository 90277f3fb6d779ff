// SPDX-License-Identifier: MIT
/*
 * outparse.c - parsers of what the programs of an arm print: advshim-load's
 * TSV rows and stream events, advshim-watch's JSON decision log.  Kernel
 * text is read through common/ (lrugen, memstat, iostat, smaps).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "tools/ab/outparse.h"
#include "tools/ab/timeline.h"

int parse_load_row(const char *line, struct load_row *r)
{
	char tail;
	int k;

	if (*line < '0' || *line > '9')
		return 0;
	k = sscanf(line, "%" SCNu64 "\t%" SCNu64 "\t%" SCNu64 "\t%lf\t%lf\t%lf\t%lf\t%lf\t%" SCNu64 "\t%lf%c",
		   &r->elapsed_ms, &r->mono_ms, &r->queries, &r->qps,
		   &r->reads_s, &r->p50_us, &r->p90_us, &r->p99_us, &r->majflt,
		   &r->majflt_s, &tail);
	return k == 11 && tail == '\n';
}

int parse_stream_event(const char *line, bool *is_end, unsigned int *loop,
		       uint64_t *mono_ms)
{
	char tail;

	if (!strncmp(line, "start\t", 6))
		*is_end = false;
	else if (!strncmp(line, "end\t", 4))
		*is_end = true;
	else
		return 0;
	line = strchr(line, '\t') + 1;
	return sscanf(line, "%u\t%" SCNu64 "%c", loop, mono_ms, &tail) == 3 &&
	       tail == '\t';
}

void parse_watch_log(const char *buf, struct watch_counts *w)
{
	static const char key[] = "\"event\":";

	w->thrash = w->age = w->would_age = w->age_failed = w->other = 0;
	for (const char *p = buf; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		const char *nl = strchr(p, '\n'), *e, *q;
		size_t len;

		if (*p != '{')
			continue;
		e = strstr(p, key);
		if (!e || (nl && e > nl))
			continue;
		e += sizeof(key) - 1;
		while (*e == ' ')
			e++;
		if (*e++ != '"' || !(q = strchr(e, '"')) || (nl && q > nl))
			continue;
		len = (size_t)(q - e);
#define EV(s) (len == sizeof(s) - 1 && !strncmp(e, s, len))
		if (EV("thrash"))
			w->thrash++;
		else if (EV("age"))
			w->age++;
		else if (EV("would_age"))
			w->would_age++;
		else if (EV("age_failed"))
			w->age_failed++;
		else
			w->other++;
#undef EV
	}
}
