// SPDX-License-Identifier: MIT
/*
 * timeline.c - arm timelines and their summary.
 *
 * Definitions (also in advshim-ab(1)); a sample at t covers (t_prev, t]:
 * - pre-event median: median reads/s of the samples ending in
 *   (event_start - baseline_s, event_start] (warm-up is left out).
 * - worst after: the smallest reads/s of the samples ending after the
 *   event start.
 * - recovery: the first sample of the final streak of samples with
 *   reads/s >= recover_pct% of the pre-event median that lasts to the end
 *   of the run, among the samples ending after the event end; the
 *   seconds from the event end to that sample's start (0 if it never
 *   dropped after the end).  NaN (never) if the last sample is below.
 * - settle: the same for major faults/s <= settle_majflt during
 *   settle_intervals consecutive samples (need not last to the end).
 * - tail: the median reads/s of the samples ending from TAIL_DELAY_S
 *   after the event end on, % of the pre-event median: how much of the
 *   throughput an arm keeps when the working set does not fit and there
 *   is no "recovered" point to count to.
 * - agings per minute: the watcher's agings (decisions to age, live or
 *   would-be) over the arm's length, from its first to its last sample.
 */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "tools/ab/timeline.h"

void arm_init(struct arm_result *r)
{
	memset(r, 0, sizeof(*r));
	r->event_start = r->event_end = NAN;
	r->params.baseline_s = 10;
	r->params.recover_pct = 80;
	r->params.settle_majflt = 100;
	r->params.settle_intervals = 3;
	snprintf(r->io_source, sizeof(r->io_source), "-");
}

void arm_free(struct arm_result *r)
{
	free(r->s);
	r->s = NULL;
	r->n = r->cap = 0;
}

int arm_add(struct arm_result *r, const struct sample *s)
{
	struct sample *ns = grow_array(r->s, r->n, &r->cap, sizeof(*ns), 256);

	if (!ns)
		return -1;
	r->s = ns;
	r->s[r->n++] = *s;
	return 0;
}

void sample_blank(struct sample *s, double t)
{
	s->t = t;
	s->reads_s = s->qps = s->p99_us = NAN;
	s->majflt_s = s->refault_s = s->activ_s = s->read_mib_s = NAN;
	for (int i = 0; i < AB_MAX_FILES; i++)
		s->resid_mib[i] = NAN;
	s->min_seq = s->max_seq = -1;
	s->rr = -1;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double median_of(const double *v, size_t n)
{
	double *c = malloc((n ? n : 1) * sizeof(*c)), m;
	size_t k = 0;

	if (!c)
		return NAN;
	for (size_t i = 0; i < n; i++)
		if (!isnan(v[i]))
			c[k++] = v[i];
	if (!k) {
		free(c);
		return NAN;
	}
	qsort(c, k, sizeof(*c), cmp_double);
	m = k % 2 ? c[k / 2] : (c[k / 2 - 1] + c[k / 2]) / 2;
	free(c);
	return m;
}

/* Start of sample i's interval. */
static double t_start(const struct arm_result *r, size_t i)
{
	return i ? r->s[i - 1].t : 0;
}

/* Median of field @off of the samples ending in (lo, hi]. */
static double median_window(const struct arm_result *r, size_t off,
			    double lo, double hi)
{
	double *v = malloc((r->n ? r->n : 1) * sizeof(*v)), m;
	size_t k = 0;

	if (!v)
		return NAN;
	for (size_t i = 0; i < r->n; i++)
		if (r->s[i].t > lo && r->s[i].t <= hi)
			v[k++] = *(const double *)((const char *)&r->s[i] + off);
	m = median_of(v, k);
	free(v);
	return m;
}

static double recovery(const struct arm_result *r, double floor_)
{
	size_t first = r->n;

	if (!r->n || isnan(floor_))
		return NAN;
	/* Walk back from the end while the samples are good. */
	for (size_t i = r->n; i-- > 0;) {
		if (r->s[i].t <= r->event_end)
			break;
		if (isnan(r->s[i].reads_s) || r->s[i].reads_s < floor_)
			break;
		first = i;
	}
	if (first == r->n)
		return NAN;
	return fmax(0, t_start(r, first) - r->event_end);
}

static double settle(const struct arm_result *r)
{
	unsigned int need = r->params.settle_intervals, run = 0;

	for (size_t i = 0; i < r->n; i++) {
		if (r->s[i].t <= r->event_end)
			continue;
		if (!isnan(r->s[i].majflt_s) &&
		    r->s[i].majflt_s <= r->params.settle_majflt)
			run++;
		else
			run = 0;
		if (run == need)
			return fmax(0, t_start(r, i + 1 - need) - r->event_end);
	}
	return NAN;
}

/*
 * Warm-up: from the arm's start (its files evicted first) to the end of
 * the first of settle_intervals samples in a row at >= @floor_ reads/s.
 */
static double warmup(const struct arm_result *r, double floor_)
{
	unsigned int need = r->params.settle_intervals, run = 0;

	if (isnan(floor_) || !need)
		return NAN;
	for (size_t i = 0; i < r->n; i++) {
		if (!isnan(r->s[i].reads_s) && r->s[i].reads_s >= floor_)
			run++;
		else
			run = 0;
		if (run == need)
			return r->s[i + 1 - need].t;
	}
	return NAN;
}

static void after_event(const struct arm_result *r, struct summary *o)
{
	long seq0 = -1, seq1 = -1;

	o->worst_after = NAN;
	o->majflt_after = o->gib_after = 0;
	for (size_t i = 0; i < r->n; i++) {
		const struct sample *s = &r->s[i];
		double dt = s->t - t_start(r, i);

		if (s->t <= r->event_start) {
			if (s->max_seq >= 0)
				seq0 = s->max_seq;
			continue;
		}
		if (!isnan(s->reads_s) &&
		    (isnan(o->worst_after) || s->reads_s < o->worst_after))
			o->worst_after = s->reads_s;
		if (!isnan(s->majflt_s))
			o->majflt_after += s->majflt_s * dt;
		if (!isnan(s->read_mib_s))
			o->gib_after += s->read_mib_s * dt / 1024.0;
		if (s->max_seq >= 0)
			seq1 = s->max_seq;
	}
	o->gens_added = seq0 >= 0 && seq1 >= 0 ? seq1 - seq0 : -1;
}

/* The tail starts this long after the event end (the lab's definition). */
#define TAIL_DELAY_S 5.0

static double ages_per_min(const struct arm_result *r)
{
	double len_s;

	if (!r->watch.enabled || r->n < 2)
		return NAN;
	len_s = r->s[r->n - 1].t - t_start(r, 0);
	if (len_s <= 0)
		return NAN;
	return (r->watch.age + r->watch.would_age) * 60.0 / len_s;
}

void summarize(const struct arm_result *r, struct summary *o)
{
	double hi = isnan(r->event_start) ? INFINITY : r->event_start;
	double lo = isnan(r->event_start) ? -1 : hi - r->params.baseline_s;

	memset(o, 0, sizeof(*o));
	o->rr_seen = -1;
	for (size_t i = 0; i < r->n; i++)
		if (r->s[i].rr >= 0)
			o->rr_seen = o->rr_seen == 1 || r->s[i].rr == 1;
	o->pre_median = median_window(r, offsetof(struct sample, reads_s), lo, hi);
	o->p99_before = median_window(r, offsetof(struct sample, p99_us), lo, hi);
	o->warmup_s = warmup(r, o->pre_median * r->params.recover_pct / 100);
	o->ages_per_min = ages_per_min(r);
	o->tail_pct = NAN;
	if (isnan(r->event_start)) {
		o->worst_after = o->recovery_s = o->settle_s = NAN;
		o->majflt_after = o->gib_after = o->p99_after = NAN;
		o->gens_added = -1;
		return;
	}
	after_event(r, o);
	if (isnan(r->event_end)) {
		/* The event never ended within the run. */
		o->recovery_s = o->settle_s = o->p99_after = NAN;
		return;
	}
	o->p99_after = median_window(r, offsetof(struct sample, p99_us),
				     r->event_end, INFINITY);
	o->recovery_s = recovery(r, o->pre_median * r->params.recover_pct / 100);
	o->settle_s = settle(r);
	if (o->pre_median > 0)
		o->tail_pct = 100 * median_window(r, offsetof(struct sample, reads_s),
						  r->event_end + TAIL_DELAY_S,
						  INFINITY) / o->pre_median;
}
