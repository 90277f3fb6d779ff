// SPDX-License-Identifier: MIT
/*
 * kparse.c - parsers for memory.stat, io.stat, /proc/PID/io, lru_gen,
 * smaps and advshim-load output.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/ab/kparse.h"
#include "tools/ab/timeline.h"

/* The value after "@key " at the start of a line of @buf. */
static bool key_value(const char *buf, const char *key, uint64_t *v)
{
	size_t len = strlen(key);

	for (const char *p = buf; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (!strncmp(p, key, len) && p[len] == ' ') {
			*v = strtoull(p + len + 1, NULL, 10);
			return true;
		}
	}
	return false;
}

/* First key found among @keys (in order). */
static bool any_key(const char *buf, const char *const *keys, uint64_t *v)
{
	for (; *keys; keys++)
		if (key_value(buf, *keys, v))
			return true;
	return false;
}

int parse_memstat(const char *buf, bool v1, struct memstat *out)
{
	static const char *const maj1[] = { "total_pgmajfault", "pgmajfault", NULL };
	static const char *const maj2[] = { "pgmajfault", NULL };
	static const char *const ref1[] = { "total_workingset_refault_file",
		"workingset_refault_file", "total_workingset_refault",
		"workingset_refault", NULL };
	static const char *const ref2[] = { "workingset_refault_file",
		"workingset_refault", NULL };
	static const char *const act1[] = { "total_workingset_activate_file",
		"workingset_activate_file", "total_workingset_activate",
		"workingset_activate", NULL };
	static const char *const act2[] = { "workingset_activate_file",
		"workingset_activate", NULL };

	memset(out, 0, sizeof(*out));
	out->has_pgmajfault = any_key(buf, v1 ? maj1 : maj2, &out->pgmajfault);
	out->has_refault = any_key(buf, v1 ? ref1 : ref2, &out->refault_file);
	out->has_activate = any_key(buf, v1 ? act1 : act2, &out->activate_file);
	return 0;
}

uint64_t parse_iostat_rbytes(const char *buf)
{
	uint64_t sum = 0;

	for (const char *p = strstr(buf, "rbytes="); p; p = strstr(p + 7, "rbytes="))
		if (p == buf || p[-1] == ' ')
			sum += strtoull(p + 7, NULL, 10);
	return sum;
}

int64_t parse_proc_io(const char *buf)
{
	uint64_t v;

	return key_value(buf, "read_bytes:", &v) ? (int64_t)v : -1;
}

/* Does the "memcg ID PATH" line at @p name @path? */
static bool memcg_line_is(const char *p, const char *path)
{
	const char *end = strchr(p, '\n');
	size_t len;

	if (strncmp(p, "memcg ", 6))
		return false;
	p += 6;
	while (*p == ' ')
		p++;
	while (*p >= '0' && *p <= '9')
		p++;
	if (*p != ' ')
		return false;
	p++;
	len = end ? (size_t)(end - p) : strlen(p);
	return strlen(path) == len && !strncmp(p, path, len);
}

/*
 * A generation row: " %10lu %10u" seq and age, then " %10lu%c" anon and
 * file pages with a one-character mark.  Tier rows (lru_gen_full) start
 * with 12 spaces and the mm-stats row with 22, so a row with at most 11
 * leading spaces and exactly four fields is a generation; its seq is
 * returned in *seq.
 */
static bool gen_row(const char *p, unsigned long *seq)
{
	const char *end = strchr(p, '\n'), *q = p;
	int lead = 0, fields = 0;

	if (!end)
		end = p + strlen(p);
	while (q < end && *q == ' ') {
		q++;
		lead++;
	}
	if (lead == 0 || lead > 11 || q == end || *q < '0' || *q > '9')
		return false;
	*seq = strtoul(q, NULL, 10);
	while (q < end) {
		while (q < end && *q == ' ')
			q++;
		if (q == end)
			break;
		fields++;
		while (q < end && *q != ' ')
			q++;
	}
	return fields == 4;
}

int parse_lrugen(const char *buf, const char *path, struct gens *out)
{
	bool in = false, any = false;
	int n = 0;

	memset(out, 0, sizeof(*out));
	out->min_seq = (unsigned long)-1;
	for (const char *p = buf; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		unsigned long seq;

		if (!strncmp(p, "memcg ", 6)) {
			if (in)
				break;
			in = memcg_line_is(p, path);
			continue;
		}
		if (!in)
			continue;
		if (!strncmp(p, " node ", 6)) {
			n = 0;
			continue;
		}
		if (!gen_row(p, &seq))
			continue;
		any = true;
		if (++n == 1 && seq < out->min_seq)
			out->min_seq = seq;
		if (seq > out->max_seq)
			out->max_seq = seq;
		if (n > out->nr_gens)
			out->nr_gens = n;
	}
	if (!any) {
		out->min_seq = 0;
		return -1;
	}
	return 0;
}

int parse_smaps_rr(const char *buf, const char *const *paths, size_t n,
		   int *state)
{
	const char *p = buf;
	int cur = -1, mapped = 0;

	for (size_t i = 0; i < n; i++)
		state[i] = -1;
	for (; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);

		if (!strncmp(p, "VmFlags:", 8)) {
			bool rr = false;

			for (const char *q = p + 8; q + 2 <= p + len; q++)
				if (q[0] == 'r' && q[1] == 'r' && q[-1] == ' ' &&
				    (q + 2 == p + len || q[2] == ' '))
					rr = true;
			if (cur >= 0) {
				if (state[cur] < 0)
					mapped++;
				if (rr || state[cur] < 0)
					state[cur] = rr || state[cur] == 1;
			}
			continue;
		}
		/* A mapping header: "start-end perms off dev inode   path". */
		if ((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f')) {
			const char *dash = memchr(p, '-', len);
			const char *path = memchr(p, '/', len);

			if (!dash || dash > p + 16)
				continue;
			cur = -1;
			if (!path)
				continue;
			for (size_t i = 0; i < n; i++) {
				size_t pl = strlen(paths[i]);

				if ((size_t)(p + len - path) == pl &&
				    !strncmp(path, paths[i], pl))
					cur = (int)i;
			}
		}
	}
	return mapped;
}

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
