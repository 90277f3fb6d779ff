// SPDX-License-Identifier: MIT
/*
 * table.c - the seed's tables: a timeline per arm and the summary.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tools/ab/timeline.h"

/* Right-aligned number or "-" in a field of @w. */
static void cell(FILE *f, int w, double v, int prec)
{
	if (isnan(v))
		fprintf(f, " %*s", w, "-");
	else
		fprintf(f, " %*.*f", w, prec, v);
}

void print_arm_head(FILE *f, const struct arm_result *r)
{
	fprintf(f, "\n== arm %s: %s\n", r->name, r->label);
	fprintf(f, "%5s %10s %9s %9s %9s %9s %8s", "t", "reads/s", "p99_us",
		"majflt/s", "refault/s", "activ/s", "rd_MiB/s");
	for (size_t i = 0; i < r->nfiles; i++) {
		char h[AB_NAME + 4];

		snprintf(h, sizeof(h), "%.*s_MB", 8, r->files[i]);
		fprintf(f, " %8s", h);
	}
	fprintf(f, " %9s %3s\n", "gens", "rr");
	fflush(f);
}

void print_arm_row(FILE *f, const struct arm_result *r, const struct sample *s)
{
	char gens[48] = "-";

	if (s->min_seq >= 0 && s->max_seq >= 0)
		snprintf(gens, sizeof(gens), "%ld-%ld", s->min_seq, s->max_seq);
	fprintf(f, "%5.0f", s->t);
	cell(f, 10, s->reads_s, 0);
	cell(f, 9, s->p99_us, 1);
	cell(f, 9, s->majflt_s, 0);
	cell(f, 9, s->refault_s, 0);
	cell(f, 9, s->activ_s, 0);
	cell(f, 8, s->read_mib_s, 1);
	for (size_t i = 0; i < r->nfiles; i++)
		cell(f, 8, s->resid_mib[i], 0);
	fprintf(f, " %9s %3s\n", gens, s->rr < 0 ? "-" : s->rr ? "rr" : "no");
	fflush(f);
}

static void secs(FILE *f, int w, double v, bool never_ok)
{
	if (isnan(v))
		fprintf(f, " %*s", w, never_ok ? "never" : "-");
	else
		fprintf(f, " %*.1f", w, v);
}

void print_summary(FILE *f, const struct arm_result *r, size_t n)
{
	size_t lw = 5;

	for (size_t i = 0; i < n; i++)
		if (strlen(r[i].label) > lw)
			lw = strlen(r[i].label);
	if (lw > 40)
		lw = 40;
	fprintf(f, "\nsummary (reads/s; recovery to >= %g%% of the pre-event median and settle to <= %g major faults/s for %u intervals, in s after the cold read ends; warmup: s from the arm's start, cold cache, to that level; tail%%: median from 5 s after the cold read, %% of pre; age/min: the watcher's agings, live or would-be, per minute)\n",
		n ? r[0].params.recover_pct : 80, n ? r[0].params.settle_majflt : 100,
		n ? r[0].params.settle_intervals : 3);
	fprintf(f, "%-*s %11s %10s %5s %5s %8s %7s %7s %11s %9s %9s %9s %3s %5s %-7s %6s %5s %9s %7s\n",
		(int)lw, "arm", "pre", "worst", "%", "tail%", "recover", "settle",
		"warmup", "majflt_aft", "GiB_aft", "p99_pre", "p99_aft", "rr",
		"+gens", "watcher", "thrash", "age", "would_age", "age/min");
	for (size_t i = 0; i < n; i++) {
		const struct watch_counts *w = &r[i].watch;
		bool ev = !isnan(r[i].event_start);
		struct summary s;

		summarize(&r[i], &s);
		fprintf(f, "%-*.*s", (int)lw, (int)lw, r[i].label);
		cell(f, 11, s.pre_median, 0);
		cell(f, 10, s.worst_after, 0);
		cell(f, 5, 100 * s.worst_after / s.pre_median, 0);
		cell(f, 5, s.tail_pct, 0);
		secs(f, 8, s.recovery_s, ev && !isnan(r[i].event_end));
		secs(f, 7, s.settle_s, ev && !isnan(r[i].event_end));
		secs(f, 7, s.warmup_s, true);
		cell(f, 11, s.majflt_after, 0);
		cell(f, 9, s.gib_after, 3);
		cell(f, 9, s.p99_before, 1);
		cell(f, 9, s.p99_after, 1);
		fprintf(f, " %3s", s.rr_seen < 0 ? "-" : s.rr_seen ? "yes" : "no");
		if (s.gens_added < 0)
			fprintf(f, " %5s", "-");
		else
			fprintf(f, " %5ld", s.gens_added);
		fprintf(f, " %-7s", !w->enabled ? "off" : w->dry_run ? "dry-run" : "on");
		if (w->enabled)
			fprintf(f, " %6lu %5lu %9lu", w->thrash, w->age, w->would_age);
		else
			fprintf(f, " %6s %5s %9s", "-", "-", "-");
		cell(f, 7, s.ages_per_min, 1);
		fputc('\n', f);
		if (r[i].note[0])
			fprintf(f, "  note (%s): %s\n", r[i].name, r[i].note);
	}
	fflush(f);
}
