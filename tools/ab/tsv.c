// SPDX-License-Identifier: MIT
/*
 * tsv.c - arm timelines and the summary as TSV files.
 *
 * An arm's file is self-contained ("# key<TAB>value" comments carry the
 * label, the event times and the summary parameters), so `advshim-ab
 * report DIR` can recompute everything on another machine.  "-" stands
 * for a value that was not available.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/fields.h"
#include "tools/ab/timeline.h"

static void put_num(FILE *f, double v, int prec)
{
	if (isnan(v))
		fputs("\t-", f);
	else
		fprintf(f, "\t%.*f", prec, v);
}

static void put_long(FILE *f, long v)
{
	if (v < 0)
		fputs("\t-", f);
	else
		fprintf(f, "\t%ld", v);
}

int tsv_write_arm(FILE *f, const struct arm_result *r)
{
	const struct watch_counts *w = &r->watch;

	fprintf(f, "# advshim-ab arm timeline v1\n# arm\t%s\n# label\t%s\n",
		r->name, r->label);
	fputs("# event_start_s", f);
	put_num(f, r->event_start, 3);
	fputs("\n# event_end_s", f);
	put_num(f, r->event_end, 3);
	fputc('\n', f);
	fprintf(f, "# baseline_s\t%g\n# recover_pct\t%g\n# settle_majflt_s\t%g\n# settle_intervals\t%u\n",
		r->params.baseline_s, r->params.recover_pct,
		r->params.settle_majflt, r->params.settle_intervals);
	fprintf(f, "# watcher\t%d\t%d\t%lu\t%lu\t%lu\t%lu\t%lu\n", w->enabled,
		w->dry_run, w->thrash, w->age, w->would_age, w->age_failed,
		w->other);
	fprintf(f, "# io_source\t%s\n", r->io_source);
	if (r->note[0])
		fprintf(f, "# note\t%s\n", r->note);
	fputs("t_s\treads_s\tqps\tp99_us\tmajflt_s\trefault_s\tactiv_s\tread_mib_s", f);
	for (size_t i = 0; i < r->nfiles; i++)
		fprintf(f, "\t%s_mib", r->files[i]);
	fputs("\tmin_seq\tmax_seq\trr\n", f);
	for (size_t i = 0; i < r->n; i++) {
		const struct sample *s = &r->s[i];

		fprintf(f, "%.3f", s->t);
		put_num(f, s->reads_s, 1);
		put_num(f, s->qps, 1);
		put_num(f, s->p99_us, 2);
		put_num(f, s->majflt_s, 1);
		put_num(f, s->refault_s, 1);
		put_num(f, s->activ_s, 1);
		put_num(f, s->read_mib_s, 2);
		for (size_t j = 0; j < r->nfiles; j++)
			put_num(f, s->resid_mib[j], 1);
		put_long(f, s->min_seq);
		put_long(f, s->max_seq);
		fprintf(f, "\t%s\n", s->rr < 0 ? "-" : s->rr ? "rr" : "no");
	}
	return ferror(f) ? -1 : 0;
}

__attribute__((format(printf, 4, 5)))
static int terr(char *err, size_t size, int line, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(err, size, "line %d: ", line);

	va_start(ap, fmt);
	if (n >= 0 && (size_t)n < size)
		vsnprintf(err + n, size - (size_t)n, fmt, ap);
	va_end(ap);
	errno = EINVAL;
	return -1;
}

static int num(const char *s, double *v)
{
	char *end;

	if (!strcmp(s, "-")) {
		*v = NAN;
		return 0;
	}
	*v = strtod(s, &end);
	return *s && !*end ? 0 : -1;
}

static int comment(char *line, struct arm_result *r)
{
	char *f[10];
	int n = fields_split(line + 2, f, 10);
	double v;

	if (n < 2)
		return 0;
#define KEY(k) (!strcmp(f[0], k))
	if (KEY("arm"))
		snprintf(r->name, sizeof(r->name), "%s", f[1]);
	else if (KEY("label"))
		snprintf(r->label, sizeof(r->label), "%s", f[1]);
	else if (KEY("io_source"))
		snprintf(r->io_source, sizeof(r->io_source), "%s", f[1]);
	else if (KEY("note"))
		snprintf(r->note, sizeof(r->note), "%s", f[1]);
	else if (KEY("watcher") && n == 8) {
		r->watch.enabled = atoi(f[1]);
		r->watch.dry_run = atoi(f[2]);
		r->watch.thrash = strtoul(f[3], NULL, 10);
		r->watch.age = strtoul(f[4], NULL, 10);
		r->watch.would_age = strtoul(f[5], NULL, 10);
		r->watch.age_failed = strtoul(f[6], NULL, 10);
		r->watch.other = strtoul(f[7], NULL, 10);
	} else if (num(f[1], &v))
		return 0;	/* unknown or free text: ignore */
	else if (KEY("event_start_s"))
		r->event_start = v;
	else if (KEY("event_end_s"))
		r->event_end = v;
	else if (KEY("baseline_s"))
		r->params.baseline_s = v;
	else if (KEY("recover_pct"))
		r->params.recover_pct = v;
	else if (KEY("settle_majflt_s"))
		r->params.settle_majflt = v;
	else if (KEY("settle_intervals"))
		r->params.settle_intervals = (unsigned int)v;
#undef KEY
	return 0;
}

static int header(char *line, struct arm_result *r, char *err, size_t size,
		  int lno)
{
	char *f[8 + AB_MAX_FILES + 3];
	int n = fields_split(line, f, 8 + AB_MAX_FILES + 3);

	if (n < 11 || strcmp(f[0], "t_s") || strcmp(f[n - 1], "rr"))
		return terr(err, size, lno, "not an advshim-ab timeline header");
	r->nfiles = (size_t)(n - 11);
	for (int i = 0; i < n - 11; i++) {
		size_t len = strlen(f[8 + i]);

		if (len < 5 || strcmp(f[8 + i] + len - 4, "_mib"))
			return terr(err, size, lno, "column \"%s\" is not FILE_mib", f[8 + i]);
		snprintf(r->files[i], sizeof(r->files[i]), "%.*s",
			 (int)(len - 4), f[8 + i]);
	}
	return 0;
}

static int row(char *line, struct arm_result *r, char *err, size_t size,
	       int lno)
{
	char *f[8 + AB_MAX_FILES + 3];
	int want = 11 + (int)r->nfiles;
	int n = fields_split(line, f, 8 + AB_MAX_FILES + 3);
	double v[8], seq[2];
	struct sample s;

	if (n != want)
		return terr(err, size, lno, "%d fields, expected %d", n, want);
	for (int i = 0; i < 8; i++)
		if (num(f[i], &v[i]))
			return terr(err, size, lno, "field %d \"%s\" is not a number", i + 1, f[i]);
	sample_blank(&s, v[0]);
	s.reads_s = v[1], s.qps = v[2], s.p99_us = v[3], s.majflt_s = v[4];
	s.refault_s = v[5], s.activ_s = v[6], s.read_mib_s = v[7];
	for (size_t j = 0; j < r->nfiles; j++)
		if (num(f[8 + j], &s.resid_mib[j]))
			return terr(err, size, lno, "residency \"%s\" is not a number", f[8 + j]);
	if (num(f[want - 3], &seq[0]) || num(f[want - 2], &seq[1]))
		return terr(err, size, lno, "bad generation numbers");
	s.min_seq = isnan(seq[0]) ? -1 : (long)seq[0];
	s.max_seq = isnan(seq[1]) ? -1 : (long)seq[1];
	s.rr = !strcmp(f[want - 1], "rr") ? 1 : !strcmp(f[want - 1], "no") ? 0 : -1;
	if (arm_add(r, &s))
		return terr(err, size, lno, "out of memory");
	return 0;
}

int tsv_read_arm(const char *buf, struct arm_result *r, char *err, size_t size)
{
	char *copy = strdup(buf), *line, *next;
	bool have_header = false;
	int lno = 0, ret = 0;

	if (!copy)
		return terr(err, size, 0, "out of memory");
	arm_init(r);
	for (line = copy; line && *line && !ret; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		lno++;
		if (line[0] == '#' && line[1] == ' ')
			ret = comment(line, r);
		else if (!*line)
			continue;
		else if (!have_header) {
			ret = header(line, r, err, size, lno);
			have_header = true;
		} else
			ret = row(line, r, err, size, lno);
	}
	free(copy);
	if (!ret && !have_header)
		ret = terr(err, size, lno, "no header line (t_s ...)");
	if (!ret && !r->name[0])
		ret = terr(err, size, 1, "no \"# arm\" line");
	if (ret)
		arm_free(r);
	return ret;
}

int tsv_write_summary(FILE *f, const struct arm_result *r, size_t n)
{
	fputs("arm\tlabel\tpre_reads_s\tworst_reads_s\tworst_pct\trecovery_s\tsettle_s"
	      "\tmajflt_after\tgib_read_after\tp99_before_us\tp99_after_us\trr"
	      "\tgens_added\twatch\tthrash\tage\twould_age\tage_failed"
	      "\twarmup_s\ttail_pct\tages_per_min\n", f);
	for (size_t i = 0; i < n; i++) {
		struct summary s;

		summarize(&r[i], &s);
		fprintf(f, "%s\t%s", r[i].name, r[i].label);
		put_num(f, s.pre_median, 1);
		put_num(f, s.worst_after, 1);
		put_num(f, 100 * s.worst_after / s.pre_median, 1);
		/* never: "-" here; "never" in the printed table */
		put_num(f, s.recovery_s, 1);
		put_num(f, s.settle_s, 1);
		put_num(f, s.majflt_after, 0);
		put_num(f, s.gib_after, 3);
		put_num(f, s.p99_before, 2);
		put_num(f, s.p99_after, 2);
		fprintf(f, "\t%s", s.rr_seen < 0 ? "-" : s.rr_seen ? "yes" : "no");
		put_long(f, s.gens_added);
		fprintf(f, "\t%s\t%lu\t%lu\t%lu\t%lu", !r[i].watch.enabled ? "off" :
			r[i].watch.dry_run ? "dry-run" : "on", r[i].watch.thrash,
			r[i].watch.age, r[i].watch.would_age, r[i].watch.age_failed);
		put_num(f, s.warmup_s, 1);
		put_num(f, s.tail_pct, 1);
		put_num(f, s.ages_per_min, 2);
		fputc('\n', f);
	}
	return ferror(f) ? -1 : 0;
}
