// SPDX-License-Identifier: MIT
/*
 * detector.c - the thrash detector state machine (see detector.h, and
 * docs/watcher-stepping.md for the kernel behaviour it is built on).
 */
#include "tools/watch/detector.h"

#include <string.h>

/* After a drain, a leftover this many times smaller than min_stuck_pct. */
#define DET_LEFTOVER_DIV 4
/* Draining: the oldest generation shrinks by 1/this of the file pages. */
#define DET_DRAIN_DIV 100

/* Where the file pages sit in one sample's generations. */
struct layout {
	unsigned long total;		/* file pages in all generations */
	unsigned long above;		/* file pages above file_min */
	unsigned long file_min;		/* oldest generation for file */
	unsigned long oldest;		/* its file pages; 0: no rows */
	bool stuck;			/* a younger generation to fold */
	unsigned long stuck_seq;	/* the youngest such generation */
};

void det_init(struct det_state *st)
{
	memset(st, 0, sizeof(*st));
}

/* The generation rows of @s that hold numbers. */
static unsigned int nr_rows(const struct det_sample *s)
{
	return s->nr_gens > DET_MAX_GENS ? DET_MAX_GENS : s->nr_gens;
}

static bool big_share(unsigned long pages, unsigned long total, double pct)
{
	return total && pages && (double)pages * 100.0 >= (double)total * pct;
}

/*
 * File pages of row @i that may be stuck: all of them, except in the
 * generation right above the oldest, where the kernel moves the pages it
 * protects (folio_inc_gen() from the oldest generation, tiers with a high
 * refault rate: the hot part of a working set that does not fit, a few
 * percent of the file pages each interval on 6.12).  lru_gen_full's
 * min_seq row counts them since the file min_seq took its value; they are
 * not cold, and folding them to the tail would evict them first.
 */
static unsigned long maybe_stuck(const struct det_sample *s, unsigned int i,
				 unsigned long file_min)
{
	unsigned long pages = s->gens[i].file;

	if (!s->has_rep || s->gens[i].seq != file_min + 1)
		return pages;
	return pages > s->protected ? pages - s->protected : 0;
}

/*
 * Without generation rows only max_seq's share is known: the stuck pages
 * are taken to be there (where a normal mapping's fresh faults land).
 */
static void layout_at(double stuck_pct, const struct det_sample *s,
		      struct layout *l)
{
	unsigned int i, n = nr_rows(s);

	memset(l, 0, sizeof(*l));
	if (!n) {
		l->file_min = s->has_rep ? s->file_min_seq : 0;
		l->total = s->file_pages;
		l->above = s->youngest_file;
		l->stuck = l->above < l->total &&
			   big_share(l->above, l->total, stuck_pct);
		l->stuck_seq = s->max_seq;
		return;
	}
	l->file_min = s->gens[n - 1].seq;
	for (i = 0; i < n; i++) {
		l->total += s->gens[i].file;
		if (s->gens[i].file && s->gens[i].seq < l->file_min)
			l->file_min = s->gens[i].seq;
	}
	if (s->has_rep)
		l->file_min = s->file_min_seq;
	for (i = 0; i < n; i++) {
		if (s->gens[i].seq > l->file_min)
			l->above += s->gens[i].file;
		else if (s->gens[i].seq == l->file_min)
			l->oldest = s->gens[i].file;
	}
	for (i = n; i-- > 0;) {
		if (s->gens[i].seq <= l->file_min)
			break;
		if (big_share(maybe_stuck(s, i, l->file_min), l->total,
			      stuck_pct)) {
			l->stuck = true;
			l->stuck_seq = s->gens[i].seq;
			break;
		}
	}
}

static void layout_of(const struct det_params *p, const struct det_sample *s,
		      struct layout *l)
{
	layout_at(p->min_stuck_pct, s, l);
}

/* Steps that fold the stuck generation into the oldest one, once. */
static unsigned int burst_size(const struct det_params *p,
			       const struct det_sample *s,
			       const struct layout *l)
{
	unsigned long behind = s->max_seq - l->stuck_seq;
	unsigned int k = behind >= DET_MAX_GENS ? 1 :
			 DET_MAX_GENS - (unsigned int)behind;
	unsigned int cap = p->max_burst ? p->max_burst : DET_MAX_GENS;

	return k > cap ? cap : k;
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

/* Refaults high and not protected by activations?  NULL if so. */
static const char *refault_check(const struct det_params *p,
				 const struct det_sample *s)
{
	if (s->refaults_per_s < 0)
		return "refault rate unknown";
	if (s->refaults_per_s < p->min_refaults_per_s)
		return "refaults below threshold";
	if (p->activations_meaningful && s->activations_per_s >= 0 &&
	    s->activations_per_s * 100.0 >
	    s->refaults_per_s * p->max_activations_pct)
		return "refaults are being activated (working set protected)";
	return NULL;
}

/* Outside an episode: is this interval thrashing?  NULL if so. */
static const char *classify(const struct det_state *st,
			    const struct det_params *p,
			    const struct det_sample *s)
{
	const struct det_sample *prev = &st->prev;
	const char *why;

	if (!st->have_prev)
		return "first sample";
	if (s->max_seq != prev->max_seq)
		return "max_seq moved (the kernel is aging)";
	if (s->youngest_age_ms <= prev->youngest_age_ms)
		return "youngest generation's age did not grow";
	why = refault_check(p, s);
	if (why)
		return why;
	if (s->has_rep && prev->has_rep) {
		if (s->file_min_seq != prev->file_min_seq)
			return "file min_seq moved";
		if (s->refaulted <= prev->refaulted ||
		    s->evicted <= prev->evicted)
			return "oldest generation not recycling";
	}
	return NULL;
}

/* File pages in @s's generations from @seq up to max_seq. */
static unsigned long file_from(const struct det_sample *s, unsigned long seq)
{
	unsigned int i, n = nr_rows(s);
	unsigned long sum = 0;

	for (i = 0; i < n; i++)
		if (s->gens[i].seq >= seq)
			sum += s->gens[i].file;
	return sum;
}

/*
 * Is a reader still bringing pages in where the stuck pages are?  Aging
 * now would be wasted: the reader's next pages land above the oldest
 * generation again, and the aging walk promotes the pages it still maps
 * (normal VMA, young PTEs) to the new max_seq.  A normal mapping's first
 * touch lands in max_seq on 6.x and in max_seq-2 on 7.x, which is where
 * layout_of() finds the stuck generation; so the test is the growth of
 * the stuck generation and the ones above it (a second cold file in a
 * younger one counts too).  Pages a RANDOM reader brings in land below
 * it (6.x: min_seq, or min_seq+1 with 4 generations; 7.x: the oldest),
 * so a working set that does not fit, whose first touches never stop,
 * does not hold the burst back: counting every new page (evicted minus
 * refaulted on lru_gen_full's oldest row) did, for the whole run.
 * Without generation rows: the growth of the pages above the oldest.
 * Called only when max_seq did not move since @prev.
 */
static bool promoting(const struct det_params *p,
		      const struct det_sample *prev,
		      const struct det_sample *s,
		      const struct layout *lp, const struct layout *l)
{
	double limit = (double)l->total * p->max_youngest_growth_pct / 100.0;
	unsigned long now, before;

	if (s->nr_gens && prev->nr_gens) {
		if (!l->stuck)
			return false;
		now = file_from(s, l->stuck_seq);
		before = file_from(prev, l->stuck_seq);
		return now > before && (double)(now - before) > limit;
	}
	return l->above > lp->above && (double)(l->above - lp->above) > limit;
}

static void end_episode(struct det_state *st, const struct det_params *p,
			uint64_t now_ms, struct det_out *out)
{
	if (!st->in_episode)
		return;
	st->in_episode = false;
	st->burst_left = 0;
	st->steps = 0;
	st->cooldown_until_ms = now_ms + p->cooldown_ms;
	out->episode_ended = true;
}

static void verdict(struct det_out *out, enum det_verdict v, const char *why)
{
	out->verdict = v;
	out->why = why;
}

/*
 * Ask for @k steps, unless a cap says no.  The whole burst must fit in
 * the minute's budget (a partial one leaves the working set ahead of the
 * stuck pages); caps set below a burst's size shorten it instead.
 */
static void ask(struct det_state *st, const struct det_params *p,
		const struct det_sample *s, const struct layout *l,
		unsigned int k, struct det_out *out, const char *why)
{
	if (st->steps >= p->max_steps) {
		end_episode(st, p, s->now_ms, out);
		verdict(out, DET_COOLDOWN, "episode reached max_steps");
		return;
	}
	if (k > p->max_steps - st->steps)
		k = p->max_steps - st->steps;
	if (k > p->max_agings_per_min)
		k = p->max_agings_per_min;
	if (agings_last_min(st, s->now_ms) + k > p->max_agings_per_min) {
		verdict(out, DET_RATE_LIMITED, "max_agings_per_min reached");
		return;
	}
	st->planned = k;
	st->planned_from = s->max_seq;
	st->planned_min = l->file_min;
	out->steps = k;
	verdict(out, DET_AGE, why);
}

static void idle_step(struct det_state *st, const struct det_params *p,
		      const struct det_sample *s, struct det_out *out)
{
	const char *why = classify(st, p, s);
	struct layout l, lp;

	if (why) {
		st->streak = 0;
		verdict(out, DET_HEALTHY, why);
		return;
	}
	st->streak++;
	out->thrashing = true;
	layout_of(p, s, &l);
	layout_of(p, &st->prev, &lp);
	if (s->now_ms < st->cooldown_until_ms)
		verdict(out, DET_COOLDOWN, "cooling down after an episode");
	else if (st->streak < p->persist)
		verdict(out, DET_THRASH, "thrashing, not yet persistent");
	else if (promoting(p, &st->prev, s, &lp, &l))
		verdict(out, DET_PROMOTING, "youngest_growing");
	else if (!l.stuck)
		verdict(out, DET_NOTHING_STUCK, "no younger generation holds "
			"min_stuck_pct of the file pages: aging cannot help");
	else
		ask(st, p, s, &l, burst_size(p, s, &l), out,
		    "persistent oldest-generation thrash");
}

/*
 * Drained: step again only if it still thrashes with pages stuck.  Pages
 * above the oldest generation now were put there during our burst: the
 * aging walk of each step promotes what a reader still maps with young
 * PTEs (fio's cold job was still mapped when its last fault came: 6.12
 * lab, 1,801 pages of a 40 MiB cold file left in the two generations the
 * burst made last, 6% of the file pages).  Refaults land in the oldest
 * generation or the one above it, which is where the drain left them, so
 * a leftover of min_stuck_pct / DET_LEFTOVER_DIV is folded once more;
 * below min_stuck_pct they would stay cached for good, and the working
 * set, short of that much memory, refaulted at twice the rate before the
 * cold read (tail 78% against lru_gen off's 98%).
 */
static void after_drain(struct det_state *st, const struct det_params *p,
			const struct det_sample *s, struct layout *l,
			struct det_out *out, const char *why)
{
	if (!l->stuck)
		layout_at(p->min_stuck_pct / DET_LEFTOVER_DIV, s, l);
	if (!l->stuck) {
		end_episode(st, p, s->now_ms, out);
		verdict(out, DET_HEALTHY, "oldest generation drained, nothing "
			"stuck above it");
		return;
	}
	out->thrashing = true;
	if (st->have_last_age &&
	    s->now_ms < st->last_age_ms + p->min_spacing_ms) {
		verdict(out, DET_SPACING, "waiting min_age_spacing_ms since "
			"the last burst");
		return;
	}
	ask(st, p, s, l, burst_size(p, s, l), out, why);
}

/*
 * Draining, but has the oldest generation stopped shrinking?  On 7.x a
 * RANDOM mapping's refaults land in the oldest generation, as fast as
 * it is evicted, so with the working set there (as a burst leaves it)
 * the file min_seq never moves, and whatever the burst's own walks put
 * above it stays cached (7.3 lab, fio: 2,743 pages of the cold file in
 * seq 3 for the 41 s left of the run, the oldest generation between
 * 26,149 and 27,172 pages, tail 15%).  On 6.12 the same drain sheds
 * about 6% of the file pages an interval.  Stalled: persist intervals
 * in a row without the oldest generation falling by 1/DET_DRAIN_DIV of
 * the file pages.  Unknown without generation rows: never stalled; nor
 * after a dry-run burst, which left the generations as they were.
 */
static bool drain_stalled(struct det_state *st, const struct det_params *p,
			  const struct det_sample *s, const struct layout *l)
{
	if (!nr_rows(s) || !l->total || st->drain_dry)
		return false;
	if (!st->drain_seen || l->oldest + l->total / DET_DRAIN_DIV <=
			       st->drain_ref) {
		st->drain_seen = true;
		st->drain_ref = l->oldest;
		st->drain_flat = 0;
		return false;
	}
	return ++st->drain_flat >= p->persist;
}

static void episode_step(struct det_state *st, const struct det_params *p,
			 const struct det_sample *s, struct det_out *out)
{
	const char *why = refault_check(p, s);
	struct layout l;

	if (s->max_seq != st->expect_max_seq)
		why = "max_seq moved (the kernel is aging)";
	if (why) {
		st->streak = 0;
		end_episode(st, p, s->now_ms, out);
		verdict(out, DET_HEALTHY, why);
		return;
	}
	st->streak++;
	layout_of(p, s, &l);
	if (st->burst_left) {
		out->thrashing = true;
		ask(st, p, s, &l, st->burst_left, out,
		    "the rest of a burst that was cut short");
	} else if (l.file_min >= st->drain_seq) {
		after_drain(st, p, s, &l, out, "still thrashing after the drain");
	} else if (drain_stalled(st, p, s, &l)) {
		after_drain(st, p, s, &l, out, "the oldest generation stopped "
			    "draining (refaults land in it)");
	} else if (p->drain_timeout_ms &&
		   s->now_ms >= st->last_age_ms + p->drain_timeout_ms) {
		out->thrashing = true;
		end_episode(st, p, s->now_ms, out);
		verdict(out, DET_COOLDOWN, "the oldest generation did not "
			"drain within drain_timeout_ms");
	} else {
		out->thrashing = true;
		verdict(out, DET_DRAINING, "waiting for the oldest generation "
			"to drain");
	}
}

void det_step(struct det_state *st, const struct det_params *p,
	      const struct det_sample *s, struct det_out *out)
{
	memset(out, 0, sizeof(*out));
	if (st->in_episode)
		episode_step(st, p, s, out);
	else
		idle_step(st, p, s, out);
	out->streak = st->streak;
	st->prev = *s;
	st->have_prev = true;
}

/* A burst of @done steps took effect; max_seq is now @new_max_seq. */
static void took_effect(struct det_state *st, uint64_t now_ms,
			unsigned int done, unsigned long new_max_seq)
{
	unsigned long oldest = new_max_seq - (DET_MAX_GENS - 1);

	st->in_episode = true;
	st->steps += done;
	st->burst_left = done < st->planned ? st->planned - done : 0;
	st->expect_max_seq = new_max_seq;
	if (new_max_seq < DET_MAX_GENS - 1 || oldest < st->planned_min)
		oldest = st->planned_min;
	st->drain_seq = oldest + 1;
	st->drain_seen = false;
	st->drain_dry = false;
	st->have_last_age = true;
	st->last_age_ms = now_ms;
	note_agings(st, now_ms, done);
}

void det_aged(struct det_state *st, uint64_t now_ms,
	      unsigned long new_max_seq)
{
	unsigned long done = new_max_seq > st->planned_from ?
			     new_max_seq - st->planned_from : 1;

	if (done > st->planned && st->planned)
		done = st->planned;
	took_effect(st, now_ms, (unsigned int)done, new_max_seq);
	st->planned_from = new_max_seq;
}

void det_dry_aged(struct det_state *st, uint64_t now_ms)
{
	unsigned int k = st->planned ? st->planned : 1;

	took_effect(st, now_ms, k, st->planned_from);
	st->drain_seq = st->planned_min + 1;
	st->drain_dry = true;
}

void det_failed(struct det_state *st, uint64_t now_ms)
{
	note_agings(st, now_ms, 1);
}

const char *det_verdict_name(enum det_verdict v)
{
	switch (v) {
	case DET_HEALTHY:
		return "healthy";
	case DET_THRASH:
		return "thrash";
	case DET_AGE:
		return "age";
	case DET_COOLDOWN:
		return "cooldown";
	case DET_RATE_LIMITED:
		return "rate_limited";
	case DET_PROMOTING:
		return "youngest_growing";
	case DET_SPACING:
		return "spacing";
	case DET_DRAINING:
		return "draining";
	case DET_NOTHING_STUCK:
		return "nothing_stuck";
	}
	return "?";
}
