// SPDX-License-Identifier: MIT
/*
 * inspect_seccomp.c - `advshim inspect PID` for a process under `advshim
 * run --seccomp`: its supervisor's counters and files, asked over the
 * supervisor's socket (seccomp_ctl.c).  The supervisor knows what it
 * answered; smaps (the rest of inspect) shows what is in force.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/json.h"
#include "common/readfile.h"
#include "tools/cli/inspect.h"
#include "tools/cli/seccomp.h"

/* SECCOMP_ENV=PID in @pid's environment: PID, or 0. */
static int sup_of(int pid)
{
	size_t len, off, n = strlen(SECCOMP_ENV "=");
	char rel[64], *buf;
	long sup = 0;

	snprintf(rel, sizeof(rel), "/proc/%d/environ", pid);
	if (read_file_at(NULL, rel, &buf, &len, 0))
		return 0;
	for (off = 0; off < len; off += strlen(buf + off) + 1)
		if (!strncmp(buf + off, SECCOMP_ENV "=", n))
			sup = strtol(buf + off + n, NULL, 10);
	free(buf);
	return sup > 0 && sup < (1L << 30) ? (int)sup : 0;
}

void inspect_seccomp_read(int pid, struct inspect_sec *s)
{
	static char all[64 << 10];
	char *line, *next, *p;
	size_t len = 0;
	ssize_t n;
	int tgid;

	memset(s, 0, sizeof(*s));
	s->sup = sup_of(pid);
	if (!s->sup)
		return;
	n = secc_query(s->sup, all, sizeof(all));
	if (n < 0) {
		s->err = (int)n;
		return;
	}
	for (line = all; *line; line = next) {
		next = strchr(line, '\n');
		next = next ? next + 1 : line + strlen(line);
		if (!strncmp(line, "supervisor ", 11)) {
			p = strstr(line, " policy ");
			if (p)
				snprintf(s->policy, sizeof(s->policy), "%.*s",
					 (int)(next - p - 9), p + 8);
			continue;
		}
		p = strchr(line, ' ');
		if (!p || sscanf(p + 1, "%d", &tgid) != 1 || tgid != pid)
			continue;
		if (!strncmp(line, "process ", 8))
			sscanf(line, "process %*d trapped %" SCNu64
			       " continued %" SCNu64 " dropped %" SCNu64,
			       &s->trapped, &s->continued, &s->dropped);
		if ((size_t)(next - line) < sizeof(s->report) - len) {
			memcpy(s->report + len, line, (size_t)(next - line));
			len += (size_t)(next - line);
		}
	}
	s->report[len] = '\0';
}

/* Each report line of kind @kind ("why ", "file "), after "KIND TGID ". */
static const char *each(const char *at, const char *kind, const char **end)
{
	size_t k = strlen(kind);
	const char *p;

	for (; at && *at; at = strchr(at, '\n') ? strchr(at, '\n') + 1 : NULL) {
		if (strncmp(at, kind, k))
			continue;
		p = strchr(at + k, ' ');	/* past the tgid */
		*end = strchr(at, '\n');
		if (!*end)
			*end = at + strlen(at);
		return p ? p + 1 : *end;
	}
	return NULL;
}

/* A file line's fields (after "file TGID "): 0, or -1 if malformed. */
struct file_line {
	unsigned long long dropped, continued;
	char rule[256], why[128], path[4096];
};

static int file_fields(const char *p, const char *end, struct file_line *l)
{
	const char *r, *w, *path;
	int off = 0;

	if (sscanf(p, "%llu %llu | %n", &l->dropped, &l->continued, &off) < 2 ||
	    !off)
		return -1;
	r = p + off;
	w = strstr(r, " | ");
	path = w ? strstr(w + 3, " | ") : NULL;
	if (!w || !path || path > end)
		return -1;
	snprintf(l->rule, sizeof(l->rule), "%.*s", (int)(w - r), r);
	snprintf(l->why, sizeof(l->why), "%.*s", (int)(path - w - 3), w + 3);
	snprintf(l->path, sizeof(l->path), "%.*s", (int)(end - path - 3),
		 path + 3);
	return 0;
}

static const char *after(const char *p)
{
	return strchr(p, '\n') ? strchr(p, '\n') + 1 : p + strlen(p);
}

void inspect_seccomp_text(const struct inspect_sec *s, FILE *f)
{
	static struct file_line l;
	const char *p, *end, *at;

	if (!s->sup)
		return;
	if (s->err) {
		fprintf(f, "  under advshim run --seccomp: supervisor %d does not "
			"answer (%s)\n", s->sup, strerror(-s->err));
		return;
	}
	fprintf(f, "  under advshim run --seccomp: supervisor %d, policy %s\n",
		s->sup, s->policy[0] ? s->policy : "?");
	fprintf(f, "  madvise random calls trapped %" PRIu64 ": continued %"
		PRIu64 ", dropped (left normal) %" PRIu64 "\n", s->trapped,
		s->continued, s->dropped);
	for (at = s->report; (p = each(at, "why ", &end)); at = after(p))
		fprintf(f, "    %.*s\n", (int)(end - p), p);
	for (at = s->report; (p = each(at, "file ", &end)); at = after(p)) {
		if (file_fields(p, end, &l))
			continue;
		fprintf(f, "    dropped %llu, continued %llu: %s (%s: %s)\n",
			l.dropped, l.continued, l.path, l.rule, l.why);
	}
}

void inspect_seccomp_json(const struct inspect_sec *s, FILE *f)
{
	static struct file_line l;
	const char *p, *end, *at;
	unsigned long long n;
	char buf[1024];
	bool first = true;
	int off;

	fprintf(f, "\"seccomp\":");
	if (!s->sup) {
		fprintf(f, "null");
		return;
	}
	fprintf(f, "{\"supervisor\":%d", s->sup);
	if (s->err) {
		fprintf(f, ",\"error\":");
		json_put_string(f, strerror(-s->err));
		fputc('}', f);
		return;
	}
	fprintf(f, ",\"policy\":");
	json_put_string(f, s->policy);
	fprintf(f, ",\"trapped\":%" PRIu64 ",\"continued\":%" PRIu64
		",\"dropped\":%" PRIu64 ",\"why\":{", s->trapped, s->continued,
		s->dropped);
	for (at = s->report; (p = each(at, "why ", &end)); at = after(p)) {
		off = 0;
		if (sscanf(p, "%llu %n", &n, &off) < 1 || !off)
			continue;
		snprintf(buf, sizeof(buf), "%.*s", (int)(end - p - off), p + off);
		fputs(first ? "" : ",", f);
		json_put_string(f, buf);
		fprintf(f, ":%llu", n);
		first = false;
	}
	fprintf(f, "},\"files\":[");
	first = true;
	for (at = s->report; (p = each(at, "file ", &end)); at = after(p)) {
		if (file_fields(p, end, &l))
			continue;
		fprintf(f, "%s{\"path\":", first ? "" : ",");
		json_put_string(f, l.path);
		fprintf(f, ",\"dropped\":%llu,\"continued\":%llu,\"rule\":",
			l.dropped, l.continued);
		json_put_string(f, l.rule);
		fprintf(f, ",\"why\":");
		json_put_string(f, l.why);
		fputc('}', f);
		first = false;
	}
	fprintf(f, "]}");
}
