/* SPDX-License-Identifier: MIT */
/*
 * detector.h - "oldest generation thrashing" as a pure state machine.
 *
 * One detector per memcg x node.  Each interval the caller passes a sample
 * (what lru_gen, lru_gen_full and memory.stat said, and the time); the
 * detector answers what to do.  It does no I/O, reads no clock and keeps
 * no pointers, so timelines can be replayed in a table.  Why it steps the
 * way it does is docs/watcher-stepping.md.
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
 *
 * Aging can only help when file pages sit in a generation younger than the
 * oldest one (a cold file read through a normal mapping lands in max_seq
 * and is never evicted while the working set cycles in min_seq).  So the
 * detector asks to age when, after `persist` thrashing intervals in a row:
 *  - a generation above the file min_seq holds >= min_stuck_pct of the
 *    lruvec's file pages ("stuck" pages; none: DET_NOTHING_STUCK; in the
 *    generation right above the oldest, the pages the kernel protected
 *    there, lru_gen_full's count, are hot and do not count), and
 *  - no reader brought in more than max_youngest_growth_pct of the file
 *    pages this interval into the stuck generation or one above it (a
 *    reader still faulting pages in through a normal mapping, which land
 *    in max_seq on 6.x and in max_seq-2 on 7.x: DET_PROMOTING).  A RANDOM
 *    reader's pages land below the stuck generation and do not count;
 *    without generation rows the growth above the oldest generation does.
 *
 * It then asks for a burst: out.steps aging commands written back to back
 * (one write(2), each "+" for the next max_seq).  The burst folds every
 * generation up to and including the youngest one holding stuck pages
 * into the oldest, which takes MAX_NR_GENS - (max_seq - stuck_seq) steps
 * (4 when the stuck pages are in max_seq).  Folding moves a generation's
 * pages to the tail of the next one in reverse order, so after the last
 * fold the stuck pages are at the tail of the oldest generation and are
 * evicted first; fewer steps leave the working set ahead of them, more
 * steps turn the order round again.
 *
 * After a burst the episode waits ("draining") until the file min_seq has
 * passed the generation the burst made oldest; only then, if the interval
 * still thrashes with stuck pages, may another burst follow.  There a
 * quarter of min_stuck_pct counts as stuck: whatever sits above the
 * oldest generation then was promoted by the burst's own aging walks (a
 * reader that still mapped the cold file), and would otherwise stay
 * cached for good.  A drain that stalls counts as done: `persist`
 * intervals in a row in which the oldest generation did not shrink by 1%
 * of the file pages (on 7.x a RANDOM mapping's refaults land in the
 * oldest generation, which then never empties).  The episode
 * ends when refaults fall below the threshold, when the kernel ages by
 * itself (max_seq moved beyond what our steps left), when nothing is
 * stuck after the drain, at drain_timeout_ms, or when the next burst would
 * exceed max_steps; cooldown_ms follows, during which it never asks to
 * age.  Every step counts toward max_agings_per_min (a burst is asked for
 * only when all its steps fit), and min_spacing_ms separates two bursts.
 */
#ifndef ADVSHIM_WATCH_DETECTOR_H
#define ADVSHIM_WATCH_DETECTOR_H

#include <stdbool.h>
#include <stdint.h>

#define DET_RATE_WINDOW 64	/* most agings remembered for the rate cap */
#define DET_MAX_PER_MIN DET_RATE_WINDOW
#define DET_MAX_GENS 4		/* MAX_NR_GENS: generations lru_gen shows */

struct det_params {
	unsigned int persist;
	double min_refaults_per_s;
	double max_activations_pct;
	bool activations_meaningful;
	unsigned int max_agings_per_min;	/* aging steps, all bursts */
	unsigned int max_steps;		/* aging steps per episode */
	uint64_t cooldown_ms;
	uint64_t min_spacing_ms;	/* between two bursts; 0: none */
	double max_youngest_growth_pct;	/* new pages, % of file pages */
	double min_stuck_pct;		/* of file pages, in one younger gen */
	unsigned int max_burst;		/* steps per burst; 0: DET_MAX_GENS */
	uint64_t drain_timeout_ms;	/* wait for min_seq; 0: no limit */
};

/* One generation row of lru_gen: its sequence number and file pages. */
struct det_gen {
	unsigned long seq;
	unsigned long file;
};

struct det_sample {
	uint64_t now_ms;
	unsigned long max_seq;
	unsigned long youngest_age_ms;
	double refaults_per_s;		/* < 0: unknown */
	double activations_per_s;	/* < 0: unknown */
	bool has_rep;			/* lru_gen_full counters present */
	unsigned long file_min_seq;	/* exact when has_rep */
	unsigned long refaulted;
	unsigned long evicted;
	unsigned long protected;	/* into file_min_seq + 1, since it moved */
	/*
	 * The node's generation rows, oldest first (lru_gen prints them from
	 * the anon min_seq; rows below the file min_seq have no file pages).
	 * nr_gens 0: unknown, then youngest_file and file_pages stand in
	 * (the stuck pages are taken to be in max_seq).
	 */
	unsigned int nr_gens;
	struct det_gen gens[DET_MAX_GENS];
	unsigned long youngest_file;	/* file pages in max_seq */
	unsigned long file_pages;	/* file pages in all generations */
};

enum det_verdict {
	DET_HEALTHY,		/* not thrashing this interval */
	DET_THRASH,		/* thrashing, not (yet) acting */
	DET_AGE,		/* age now: out.steps commands */
	DET_COOLDOWN,		/* thrashing, but cooling down */
	DET_RATE_LIMITED,	/* thrashing, the next burst exceeds the cap */
	DET_PROMOTING,		/* thrashing, a reader brings new pages */
	DET_SPACING,		/* thrashing in an episode, burst too recent */
	DET_DRAINING,		/* after a burst, oldest generation draining */
	DET_NOTHING_STUCK,	/* thrashing, but no younger generation to fold */
};

struct det_state {
	bool have_prev;
	struct det_sample prev;
	unsigned int streak;		/* consecutive thrashing intervals */
	bool in_episode;
	unsigned int steps;		/* aging steps in this episode */
	unsigned int planned;		/* steps of the last DET_AGE */
	unsigned long planned_from;	/* max_seq that DET_AGE saw */
	unsigned long planned_min;	/* file min_seq that DET_AGE saw */
	unsigned int burst_left;	/* steps of a cut-short burst */
	unsigned long drain_seq;	/* file min_seq that means drained */
	bool drain_seen;		/* drain_ref holds a sample's count */
	bool drain_dry;			/* the last burst was a dry run */
	unsigned long drain_ref;	/* oldest gen's pages at last shrink */
	unsigned int drain_flat;	/* draining intervals since */
	unsigned long expect_max_seq;	/* what our last step left */
	uint64_t cooldown_until_ms;
	bool have_last_age;
	uint64_t last_age_ms;		/* last burst (written or dry run) */
	uint64_t agings_ms[DET_RATE_WINDOW];	/* ring of step times */
	unsigned int nr_agings;
};

struct det_out {
	enum det_verdict verdict;
	unsigned int steps;		/* DET_AGE: "+" commands to write */
	bool thrashing;			/* this interval counted as thrash */
	bool episode_ended;		/* an episode just ended */
	unsigned int streak;		/* thrashing intervals in a row */
	const char *why;		/* static text: the deciding reason */
};

/* det_init - a fresh detector (no history). */
void det_init(struct det_state *st);

/*
 * det_step - feed one interval's sample; fills *out.  Samples must come in
 * time order.  On DET_AGE the caller writes out.steps commands in one
 * write(2), "+ ID NODE S", "+ ID NODE S+1", ... from the max_seq S it
 * re-read, and reports the outcome with det_aged(), det_dry_aged() or
 * det_failed() before the next det_step().
 */
void det_step(struct det_state *st, const struct det_params *p,
	      const struct det_sample *s, struct det_out *out);

/*
 * det_aged - the burst took effect at @now_ms and left max_seq at
 * @new_max_seq (verified, or found advanced after EEXIST/EINVAL).  Fewer
 * steps than asked for (a command lost a race) are asked for again at the
 * next interval.
 */
void det_aged(struct det_state *st, uint64_t now_ms,
	      unsigned long new_max_seq);

/*
 * det_dry_aged - the burst was only logged (--dry-run, lockdown): all its
 * steps count toward the rate cap and the episode, and max_seq is expected
 * to stay where it is (the drain then times out).
 */
void det_dry_aged(struct det_state *st, uint64_t now_ms);

/*
 * det_failed - a write failed with nothing aged: counts one step toward
 * the rate cap only (a retry with other arguments may follow next
 * interval).
 */
void det_failed(struct det_state *st, uint64_t now_ms);

/*
 * det_verdict_name - "healthy", "thrash", "age", "cooldown", "rate_limited",
 * "youngest_growing", "spacing", "draining", "nothing_stuck".
 */
const char *det_verdict_name(enum det_verdict v);

#endif /* ADVSHIM_WATCH_DETECTOR_H */
