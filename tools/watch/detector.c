// SPDX-License-Identifier: MIT
/*
 * detector.c - the thrash detector (see detector.h, and
 * docs/watcher-stepping.md for the kernel behaviour it is built on).
 */
#include "tools/watch/detector.h"

#include <string.h>

/* Where one sample's file pages sit. */
struct layout {
	unsigned long total;		/* file pages in all generations */
	unsigned long oldest;		/* in F */
	unsigned long above;		/* above F, less P in F + 1 */
	unsigned long exposed;		/* in the youngest exposed gen */
	unsigned long exposed_seq;	/* 0 with exposed 0: none */
	unsigned long inflow_base;	/* what a reader's inflow grows */
};

void det_init(struct det_state *st)
{
	memset(st, 0, sizeof(*st));
}

static unsigned int nr_rows(const struct det_sample *s)
{
	return s->nr_gens > DET_MAX_GENS ? DET_MAX_GENS : s->nr_gens;
}

static bool pct_of(unsigned long part, unsigned long whole, double pct)
{
	return (double)part * 100.0 >= (double)whole * pct;
}

/*
 * File pages of row @i that aging could move behind the working set: all
 * of them, except in F + 1, where the kernel moved the pages it protected
 * from F (folio_inc_gen() for tiers that refault more than tier 0): the
 * hot part of the working set.  With fault_to_max_seq (6.1-6.13) and four
 * generations none in F + 1: the working set's RANDOM refaults go there.
 */
static unsigned long movable(const struct det_params *p,
			     const struct det_sample *s, unsigned int i)
{
	unsigned long pages = s->gens[i].file;

	if (s->gens[i].seq != s->file_min_seq + 1)
		return pages;
	if (p->fault_to_max_seq &&
	    s->max_seq >= s->file_min_seq + DET_MAX_GENS - 1)
		return 0;
	return pages > s->protected ? pages - s->protected : 0;
}

/*
 * Whether row @i holds what a reader faulting pages in through a mapping
 * with recency adds (kver.h): max_seq alone on 6.1-6.13, where the working
 * set's RANDOM refaults never go; on 6.14+ everything above F.
 */
static bool inflow_row(const struct det_params *p, const struct det_sample *s,
		       unsigned int i)
{
	if (p->fault_to_max_seq)
		return s->gens[i].seq == s->max_seq &&
		       s->gens[i].seq > s->file_min_seq;
	return s->gens[i].seq > s->file_min_seq;
}

static void layout_of(const struct det_params *p, const struct det_sample *s,
		      struct layout *l)
{
	unsigned int i, n = nr_rows(s);

	memset(l, 0, sizeof(*l));
	for (i = 0; i < n; i++) {
		l->total += s->gens[i].file;
		if (s->gens[i].seq == s->file_min_seq)
			l->oldest = s->gens[i].file;
		else if (s->gens[i].seq > s->file_min_seq)
			l->above += movable(p, s, i);
		if (inflow_row(p, s, i))
			l->inflow_base += movable(p, s, i);
	}
	for (i = n; i-- > 0;) {
		unsigned long m;

		if (s->gens[i].seq <= s->file_min_seq)
			break;
		m = movable(p, s, i);
		if (m && pct_of(m, l->total, p->min_exposed_pct)) {
			l->exposed = m;
			l->exposed_seq = s->gens[i].seq;
			break;
		}
	}
}

/* Steps that fold the exposed generation into the oldest one, once. */
static unsigned int burst_size(const struct det_sample *s,
			       const struct layout *l)
{
	unsigned long behind = s->max_seq - l->exposed_seq;

	return behind >= DET_MAX_GENS ? 1 : DET_MAX_GENS - (unsigned int)behind;
}

/* Steps within the last minute, for the rate cap. */
static unsigned int agings_last_min(const struct det_state *st,
				    uint64_t now_ms)
{
	unsigned int i, n = 0, nr = st->nr_agings;

	if (nr > DET_RATE_WINDOW)
		nr = DET_RATE_WINDOW;
	for (i = 0; i < nr; i++)
		if (st->agings_ms[i] + 60000 > now_ms)
			n++;
	return n;
}

static void note_agings(struct det_state *st, uint64_t now_ms,
			unsigned int n)
{
	while (n--) {
		st->agings_ms[st->nr_agings % DET_RATE_WINDOW] = now_ms;
		st->nr_agings++;
	}
}

/* Move the window's start as detector.h says, for sample @s. */
static void rebase(struct det_state *st, const struct det_sample *s)
{
	const struct det_sample *prev = &st->prev;

	st->fresh = true;
	st->moved = st->have_prev && prev->has_rep &&
		    (s->file_min_seq != prev->file_min_seq ||
		     s->max_seq != prev->max_seq);
	/* our burst's own move is max_seq reaching what it asked for */
	if (st->moved && (s->max_seq == prev->max_seq ||
			  s->max_seq != st->own_max_seq))
		st->own_max_seq = 0;
	if (!st->have_prev || !prev->has_rep ||
	    s->file_min_seq != prev->file_min_seq ||
	    s->evicted < st->base_evicted ||
	    s->refaulted < st->base_refaulted) {
		st->base_evicted = 0;
		st->base_refaulted = 0;
	} else if (s->max_seq != prev->max_seq) {
		st->base_evicted = s->evicted;
		st->base_refaulted = s->refaulted;
	} else {
		st->fresh = false;
	}
}

static void verdict(struct det_out *out, enum det_verdict v, const char *why)
{
	out->verdict = v;
	out->why = why;
}

/*
 * Conditions 1 and 2 over the window: is the oldest generation recycling?
 * After a burst of our own, condition 1 wants a whole turnover, and the
 * first window that has one ends that (detector.h).  The refault share is
 * met over the window or over this interval alone (e0, r0: the previous
 * sample's counters, or the window's start in its first interval): a page
 * evicted in the window counts only once it comes back (on 6.1-6.13 only
 * pages evicted since F took its value count at all), so a window's share
 * starts near 0 and climbs to the thrash's share over the working set's
 * reuse distance, while this interval's share has it as soon as the pages
 * evicted at the window's start come back.  After a burst of its own the
 * window's share alone counts, until the kernel moves F or max_seq
 * itself: there the working set just refaulted in is what a second burst
 * would fold to the tail of F, and it must be the thrash over the whole
 * window, not one interval, that asks for that.
 */
static bool recycling(struct det_state *st, const struct det_params *p,
		      const struct det_sample *s, struct det_out *out)
{
	double turnover_pct = st->after_burst ? 100.0 : p->min_turnover_pct;
	/* a fresh window compares with its start: F's counters restarted */
	unsigned long e0 = st->fresh ? st->base_evicted : st->prev.evicted;
	unsigned long r0 = st->fresh ? st->base_refaulted : st->prev.refaulted;
	bool grew = s->refaulted > r0;

	out->evicted = s->evicted - st->base_evicted;
	out->refaulted = s->refaulted - st->base_refaulted;
	if (st->moved) {
		verdict(out, DET_HEALTHY, "min_seq or max_seq moved this "
			"interval: the lruvec is aging");
		return false;
	}
	if (!out->evicted) {
		verdict(out, DET_HEALTHY, "nothing evicted from the oldest "
			"generation");
		return false;
	}
	if (!out->oldest || !pct_of(out->evicted, out->oldest,
				    turnover_pct)) {
		verdict(out, DET_NOT_TURNED, st->after_burst ?
			"since the last burst the oldest generation has not "
			"been evicted round once" :
			"the oldest generation has not been evicted round yet");
		return false;
	}
	st->after_burst = false;
	if (!grew || !(pct_of(out->refaulted, out->evicted,
			      p->min_refault_pct) ||
		       (!st->own_max_seq &&
			pct_of(s->refaulted - r0, s->evicted - e0,
			       p->min_refault_pct)))) {
		verdict(out, DET_NOT_REFAULTING, "evicted pages do not come "
			"back (not the working set)");
		return false;
	}
	return true;
}

/* Condition 4: did the pages above F stop growing?  Needs an interval. */
static bool settled(const struct det_state *st, const struct det_params *p,
		    const struct det_sample *s, const struct layout *l,
		    struct det_out *out)
{
	struct layout before;

	if (st->fresh || !st->have_prev) {
		verdict(out, DET_INFLOW, "a new window: waiting one interval "
			"to see whether pages still come in above the oldest "
			"generation");
		return false;
	}
	layout_of(p, &st->prev, &before);
	out->evicted_now = s->evicted - st->prev.evicted;
	out->inflow = (long)l->inflow_base - (long)before.inflow_base;
	if (out->inflow > 0 && (double)out->inflow * 100.0 >
	    (double)out->evicted_now * p->max_inflow_pct) {
		verdict(out, DET_INFLOW, "a reader still brings pages in above "
			"the oldest generation");
		return false;
	}
	return true;
}

static void judge(struct det_state *st, const struct det_params *p,
		  const struct det_sample *s, struct det_out *out)
{
	struct layout l;
	unsigned int k;

	layout_of(p, s, &l);
	out->oldest = l.oldest;
	out->file_pages = l.total;
	out->above = l.above;
	out->exposed = l.exposed;
	out->exposed_seq = l.exposed_seq;
	if (!s->has_rep || !s->nr_gens) {
		verdict(out, DET_HEALTHY, "no lru_gen_full counters");
		return;
	}
	out->thrashing = recycling(st, p, s, out);
	if (!out->thrashing)
		return;
	if (!l.exposed) {
		verdict(out, DET_NOTHING_EXPOSED, "nothing above the oldest "
			"generation for aging to move behind the working set");
		return;
	}
	if (!settled(st, p, s, &l, out))
		return;
	k = burst_size(s, &l);
	if (agings_last_min(st, s->now_ms) + k > p->max_agings_per_min) {
		verdict(out, DET_RATE_LIMITED, "max_agings_per_min reached");
		return;
	}
	out->steps = k;
	st->asked = k;
	verdict(out, DET_AGE, "the oldest generation only recycles the "
		"working set and pages sit above it");
}

void det_step(struct det_state *st, const struct det_params *p,
	      const struct det_sample *s, struct det_out *out)
{
	memset(out, 0, sizeof(*out));
	rebase(st, s);
	judge(st, p, s, out);
	out->episode_ended = st->was_thrashing && !out->thrashing;
	st->was_thrashing = out->thrashing;
	st->prev = *s;
	st->have_prev = true;
}

void det_aged(struct det_state *st, uint64_t now_ms, unsigned int steps)
{
	note_agings(st, now_ms, steps);
	st->after_burst = true;
	st->own_max_seq = st->prev.max_seq + steps;
	st->base_evicted = st->prev.evicted;
	st->base_refaulted = st->prev.refaulted;
}

void det_dry_aged(struct det_state *st, uint64_t now_ms)
{
	det_aged(st, now_ms, st->asked);
}

void det_failed(struct det_state *st, uint64_t now_ms)
{
	note_agings(st, now_ms, st->asked ? st->asked : 1);
}

const char *det_verdict_name(enum det_verdict v)
{
#define DET_VERDICT_NAME(suffix, name)	[DET_##suffix] = #name,
	static const char *const names[DET_NR_VERDICTS] = {
		DET_VERDICTS(DET_VERDICT_NAME)
	};
#undef DET_VERDICT_NAME

	return (unsigned int)v < DET_NR_VERDICTS ? names[v] : "?";
}
