/* SPDX-License-Identifier: MIT */
/*
 * detector.h - "oldest generation thrashing" as a pure state machine.
 *
 * One detector per memcg x node.  Each interval the caller passes a sample
 * (what lru_gen, lru_gen_full and memory.stat said, and the time); the
 * detector answers what to do.  It does no I/O, reads no clock and keeps
 * no pointers, so timelines can be replayed in a table.
 *
 * An interval is "thrashing" when all of these hold:
 *  a. max_seq is unchanged and the youngest generation's age grew (nothing
 *     aged: neither the kernel nor, outside an episode, us);
 *  b. file refaults per second >= min_refaults_per_s (an unknown rate is
 *     not thrash: the watcher never acts on a guess);
 *  c. on kernels where activations mean something (not 6.6-6.13),
 *     activations <= max_activations_pct of refaults;
 *  d. with lru_gen_full, the file min_seq row's refaulted and evicted
 *     counters both grew, at an unchanged file min_seq.
 * A thrashing interval in which the youngest generation's file page count
 * grew by more than max_youngest_growth_pct of the lruvec's file pages is
 * reported ("youngest_growing") but does not count: a reader is still
 * faulting pages in through a normal mapping, each aging step would only
 * fold the oldest generation forward while the new pages keep landing in
 * max_seq, and the step is wasted.  Aging helps once the promotion is over:
 * two steps bring the generations holding the promoted pages down to
 * min_seq, where eviction drains them.
 *
 * After `persist` such settled thrashing intervals in a row the detector
 * asks to age (an episode starts).  Inside an episode it asks again when an
 * interval still thrashes (settled) and at least min_spacing_ms passed
 * since the last step, which gives eviction time to drain the generation
 * the step made oldest (the interval right after our own step counts
 * although max_seq moved: we moved it); at most max_agings_per_min per
 * minute and max_steps per episode.  The episode ends at the first interval
 * that does not thrash (refaults fell, or the kernel aged or advanced
 * min_seq itself) or at max_steps; cooldown_ms follows, during which it
 * never asks to age.
 */
#ifndef ADVSHIM_WATCH_DETECTOR_H
#define ADVSHIM_WATCH_DETECTOR_H

#include <stdbool.h>
#include <stdint.h>

#define DET_RATE_WINDOW 64	/* most agings remembered for the rate cap */
#define DET_MAX_PER_MIN DET_RATE_WINDOW

struct det_params {
	unsigned int persist;
	double min_refaults_per_s;
	double max_activations_pct;
	bool activations_meaningful;
	unsigned int max_agings_per_min;
	unsigned int max_steps;
	uint64_t cooldown_ms;
	uint64_t min_spacing_ms;	/* between two steps; 0: none */
	double max_youngest_growth_pct;	/* of file pages, per interval */
};

struct det_sample {
	uint64_t now_ms;
	unsigned long max_seq;
	unsigned long youngest_age_ms;
	double refaults_per_s;		/* < 0: unknown */
	double activations_per_s;	/* < 0: unknown */
	bool has_rep;			/* lru_gen_full counters present */
	unsigned long file_min_seq;
	unsigned long refaulted;
	unsigned long evicted;
	unsigned long youngest_file;	/* file pages in max_seq */
	unsigned long file_pages;	/* file pages in all generations */
};

enum det_verdict {
	DET_HEALTHY,		/* not thrashing this interval */
	DET_THRASH,		/* thrashing, not (yet) acting */
	DET_AGE,		/* age now */
	DET_COOLDOWN,		/* thrashing, but cooling down */
	DET_RATE_LIMITED,	/* thrashing in an episode, rate cap hit */
	DET_PROMOTING,		/* thrashing, youngest generation growing */
	DET_SPACING,		/* thrashing in an episode, step too recent */
};

struct det_state {
	bool have_prev;
	struct det_sample prev;
	unsigned int streak;		/* consecutive thrashing intervals */
	bool in_episode;
	unsigned int steps;		/* agings in this episode */
	unsigned long expect_max_seq;	/* what our last step left */
	bool own_step_pending;		/* next sample follows our step */
	uint64_t cooldown_until_ms;
	bool have_last_age;
	uint64_t last_age_ms;		/* last step (written or dry run) */
	uint64_t agings_ms[DET_RATE_WINDOW];	/* ring of aging times */
	unsigned int nr_agings;
};

struct det_out {
	enum det_verdict verdict;
	bool thrashing;			/* this interval counted as thrash */
	bool episode_ended;		/* an episode just ended */
	unsigned int streak;		/* settled thrashing intervals */
	const char *why;		/* static text: the deciding reason */
};

/* det_init - a fresh detector (no history). */
void det_init(struct det_state *st);

/*
 * det_step - feed one interval's sample; fills *out.  Samples must come in
 * time order.
 */
void det_step(struct det_state *st, const struct det_params *p,
	      const struct det_sample *s, struct det_out *out);

/*
 * det_aged - record a step that took effect at @now_ms and left max_seq at
 * @new_max_seq (verified, or found advanced after EEXIST).
 */
void det_aged(struct det_state *st, uint64_t now_ms,
	      unsigned long new_max_seq);

/*
 * det_dry_aged - record a step that was only logged (--dry-run): it counts
 * toward the rate cap, the spacing and the episode's steps, and max_seq is
 * expected to stay where it is.
 */
void det_dry_aged(struct det_state *st, uint64_t now_ms);

/*
 * det_failed - record a failed write: counts toward the rate cap only (not
 * the spacing: a retry with other arguments may follow next interval).
 */
void det_failed(struct det_state *st, uint64_t now_ms);

/*
 * det_verdict_name - "healthy", "thrash", "age", "cooldown", "rate_limited",
 * "youngest_growing", "spacing".
 */
const char *det_verdict_name(enum det_verdict v);

#endif /* ADVSHIM_WATCH_DETECTOR_H */
