// SPDX-License-Identifier: MIT
/*
 * detector.c - the thrash detector state machine (see detector.h).
 */
#include "tools/watch/detector.h"

#include <string.h>

void det_init(struct det_state *st)
{
	memset(st, 0, sizeof(*st));
}

/* Agings within the last minute, for the rate cap. */
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

static void note_aging(struct det_state *st, uint64_t now_ms)
{
	st->agings_ms[st->nr_agings % DET_RATE_WINDOW] = now_ms;
	st->nr_agings++;
}

/*
 * Is this interval thrashing?  Returns NULL if so, else the reason it is
 * not.  @own_step: max_seq moved because of our own last step.
 */
static const char *classify(const struct det_state *st,
			    const struct det_params *p,
			    const struct det_sample *s, bool own_step)
{
	const struct det_sample *prev = &st->prev;

	if (!st->have_prev)
		return "first sample";
	if (!own_step) {
		if (s->max_seq != prev->max_seq)
			return "max_seq moved (the kernel is aging)";
		if (s->youngest_age_ms <= prev->youngest_age_ms)
			return "youngest generation's age did not grow";
	}
	if (s->refaults_per_s < 0)
		return "refault rate unknown";
	if (s->refaults_per_s < p->min_refaults_per_s)
		return "refaults below threshold";
	if (p->activations_meaningful && s->activations_per_s >= 0 &&
	    s->activations_per_s * 100.0 >
	    s->refaults_per_s * p->max_activations_pct)
		return "refaults are being activated (working set protected)";
	if (!own_step && s->has_rep && prev->has_rep) {
		if (s->file_min_seq != prev->file_min_seq)
			return "file min_seq moved";
		if (s->refaulted <= prev->refaulted ||
		    s->evicted <= prev->evicted)
			return "oldest generation not recycling";
	}
	return NULL;
}

/*
 * Is a reader still promoting pages into the youngest generation?  The
 * interval right after our own step is not judged: max_seq is then a new
 * generation (empty on 6.x, but what the aging walk moved into it is not
 * the reader's doing), the next interval compares against it.
 */
static bool youngest_growing(const struct det_state *st,
			     const struct det_params *p,
			     const struct det_sample *s, bool own_step)
{
	double limit;

	if (own_step || s->youngest_file <= st->prev.youngest_file)
		return false;
	limit = (double)s->file_pages * p->max_youngest_growth_pct / 100.0;
	return (double)(s->youngest_file - st->prev.youngest_file) > limit;
}

static void end_episode(struct det_state *st, const struct det_params *p,
			uint64_t now_ms, struct det_out *out)
{
	if (!st->in_episode)
		return;
	st->in_episode = false;
	st->steps = 0;
	st->cooldown_until_ms = now_ms + p->cooldown_ms;
	out->episode_ended = true;
}

static void decide(struct det_state *st, const struct det_params *p,
		   const struct det_sample *s, struct det_out *out)
{
	if (s->now_ms < st->cooldown_until_ms) {
		out->verdict = DET_COOLDOWN;
		out->why = "cooling down after an episode";
		return;
	}
	if (!st->in_episode) {
		if (st->streak < p->persist) {
			out->verdict = DET_THRASH;
			out->why = "thrashing, not yet persistent";
			return;
		}
	} else if (st->steps >= p->max_steps) {
		end_episode(st, p, s->now_ms, out);
		out->verdict = DET_COOLDOWN;
		out->why = "episode reached max_steps";
		return;
	}
	if (st->in_episode && st->have_last_age &&
	    s->now_ms < st->last_age_ms + p->min_spacing_ms) {
		out->verdict = DET_SPACING;
		out->why = "waiting min_age_spacing_ms since the last step";
		return;
	}
	if (agings_last_min(st, s->now_ms) >= p->max_agings_per_min) {
		out->verdict = DET_RATE_LIMITED;
		out->why = "max_agings_per_min reached";
		return;
	}
	out->verdict = DET_AGE;
	out->why = st->in_episode ? "still thrashing after aging" :
		   "persistent oldest-generation thrash";
}

void det_step(struct det_state *st, const struct det_params *p,
	      const struct det_sample *s, struct det_out *out)
{
	bool own_step = st->own_step_pending && st->in_episode &&
			s->max_seq == st->expect_max_seq &&
			st->have_prev && s->max_seq != st->prev.max_seq;
	const char *why = classify(st, p, s, own_step);

	memset(out, 0, sizeof(*out));
	st->own_step_pending = false;
	if (why) {
		st->streak = 0;
		end_episode(st, p, s->now_ms, out);
		out->verdict = DET_HEALTHY;
		out->why = why;
	} else if (youngest_growing(st, p, s, own_step)) {
		/* thrash, but aging now would be wasted: start over */
		st->streak = 0;
		out->thrashing = true;
		out->verdict = DET_PROMOTING;
		out->why = "youngest_growing";
	} else {
		st->streak++;
		out->thrashing = true;
		decide(st, p, s, out);
	}
	out->streak = st->streak;
	st->prev = *s;
	st->have_prev = true;
}

void det_aged(struct det_state *st, uint64_t now_ms,
	      unsigned long new_max_seq)
{
	st->in_episode = true;
	st->steps++;
	st->expect_max_seq = new_max_seq;
	st->own_step_pending = true;
	st->have_last_age = true;
	st->last_age_ms = now_ms;
	note_aging(st, now_ms);
}

void det_dry_aged(struct det_state *st, uint64_t now_ms)
{
	st->in_episode = true;
	st->steps++;
	st->own_step_pending = false;
	st->have_last_age = true;
	st->last_age_ms = now_ms;
	note_aging(st, now_ms);
}

void det_failed(struct det_state *st, uint64_t now_ms)
{
	note_aging(st, now_ms);
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
	}
	return "?";
}
