/* SPDX-License-Identifier: MIT */
/*
 * detector.h - "eviction only recycles the oldest generation", from the
 * kernel's own counters, as a pure state machine.
 *
 * One detector per lruvec (memcg x node).  Each interval the caller passes
 * what lru_gen_full printed for that lruvec (and the time); the detector
 * answers what to do.  It does no I/O, reads no clock and keeps no
 * pointers, so recorded runs replay through it exactly.  The kernel
 * behaviour it is built on is docs/watcher-stepping.md.
 *
 * lru_gen_full prints, on the file type's min_seq row F, the pages evicted
 * (E), refaulted (R) and protected (P, moved to F + 1 by the tier rule)
 * since F took its value: the kernel resets them when F moves.  The
 * detector keeps a window over them, whose start (the baseline) is
 *  - 0 when F moved or the lruvec is seen for the first time (the counters
 *    then count since F took its value) or when a counter went down;
 *  - the counters of the sample when max_seq moved without F (something
 *    aged: the question starts again) and when a burst was written or
 *    logged (dry run).
 * A sample in which F or max_seq moved is healthy (the lruvec ages: the
 * oldest generation is not stuck); the new window is judged from the next
 * one.  Over the window it asks, in this order (each failure is a verdict):
 *  1. turnover: E - E0 >= O * min_turnover_pct / 100, O the file pages in
 *     F now: the oldest generation has been evicted round (not yet:
 *     DET_NOT_TURNED);
 *  2. refaults: R grew this interval, and R - R0 >= (E - E0) *
 *     min_refault_pct / 100 over the window or over this interval alone
 *     (the window's share lags by the working set's reuse distance;
 *     after a burst of its own, until the kernel moves F or max_seq
 *     itself, the window's share alone): what is evicted comes back,
 *     it is the working set
 *     (DET_NOT_REFAULTING; no evictions at all: DET_HEALTHY);
 *  3. exposed: a generation above F holds >= min_exposed_pct of the
 *     lruvec's file pages, not counting in F + 1 the P pages the kernel
 *     protected there (they are the hot part of the working set), nor,
 *     with fault_to_max_seq and four generations, any page of F + 1 (the
 *     working set's RANDOM refaults go there): aging can move them behind
 *     the working set (none: DET_NOTHING_EXPOSED; a working set that does
 *     not fit thrashes with every page in F);
 *  4. settled: the file pages above F (less P) grew this interval by at
 *     most max_inflow_pct of the pages evicted in it: no reader is still
 *     bringing pages in above F (DET_INFLOW).  With fault_to_max_seq
 *     (6.1-6.13) only max_seq's growth counts: there the working set's
 *     RANDOM refaults go to F + 1 once there are four generations, and
 *     only a reader's faults through a mapping with recency reach
 *     max_seq.  The first interval of a window has no growth to judge
 *     and waits.
 * Then it asks to age (DET_AGE) with a burst of out.steps commands in one
 * write(2), unless that exceeds max_agings_per_min (DET_RATE_LIMITED).
 * After a burst of its own (det_aged(), det_dry_aged()) condition 1 asks
 * for a whole turnover (E - E0 >= O) before the next: the burst folded the
 * cold pages into F, and eviction reaches every page of F within one
 * turnover wherever the fold put them; a second burst before that only
 * folds again, and the pages it sees above F are the working set's
 * refaults (on 7.x activated into max_seq - 1), not the cold file.  The
 * first window that turns over whole ends that.
 * The burst folds every generation up to the youngest exposed one into F:
 * MAX_NR_GENS - (max_seq - exposed_seq) steps (4 when the exposed pages
 * are in max_seq).  Folding moves a generation's pages to the tail of the
 * next one, so after the last fold the exposed pages sit at the tail of
 * the oldest generation and are evicted first; fewer steps leave the
 * working set behind them, more turn the order round again.
 */
#ifndef ADVSHIM_WATCH_DETECTOR_H
#define ADVSHIM_WATCH_DETECTOR_H

#include <stdbool.h>
#include <stdint.h>

#define DET_RATE_WINDOW 64	/* most agings remembered for the rate cap */
#define DET_MAX_PER_MIN DET_RATE_WINDOW
#define DET_MAX_GENS 4		/* MAX_NR_GENS: generations lru_gen shows */

struct det_params {
	double min_turnover_pct;	/* window's E, % of F's file pages */
	double min_refault_pct;		/* window's R, % of its E */
	double min_exposed_pct;		/* one gen above F, % of file pages */
	double max_inflow_pct;		/* growth above F, % of interval's E */
	unsigned int max_agings_per_min;	/* aging steps, all bursts */
	/*
	 * Not a setting: the kernel's rule (kver.h fault_to_max_seq), set by
	 * the watcher.  True: a reader's inflow is max_seq's growth alone,
	 * and with four generations F + 1 holds nothing to expose.
	 */
	bool fault_to_max_seq;
};

/* One generation row of lru_gen_full: its sequence number, file pages. */
struct det_gen {
	unsigned long seq;
	unsigned long file;
};

struct det_sample {
	uint64_t now_ms;
	unsigned long max_seq;
	bool has_rep;			/* F's counters present */
	unsigned long file_min_seq;	/* F */
	unsigned long refaulted;	/* R: since F took its value */
	unsigned long evicted;		/* E */
	unsigned long protected;	/* P: into F + 1 */
	/* the youngest (up to) DET_MAX_GENS rows, oldest first */
	unsigned int nr_gens;
	struct det_gen gens[DET_MAX_GENS];
};

/*
 * The verdicts, as X(DET_ suffix, name in the logs and metrics): the enum
 * and det_verdict_name() come from this one list, the names are C
 * identifiers (label and JSON safe).
 *   HEALTHY          nothing evicted in the window, or no data
 *   NOT_TURNED       the oldest generation not evicted round
 *   NOT_REFAULTING   evictions do not come back
 *   NOTHING_EXPOSED  thrash, nothing above F to move behind
 *   INFLOW           thrash, a reader still fills above F
 *   AGE              age now: out.steps commands
 *   RATE_LIMITED     thrash, the burst exceeds the cap
 */
#define DET_VERDICTS(X)						\
	X(HEALTHY, healthy)					\
	X(NOT_TURNED, not_turned_over)				\
	X(NOT_REFAULTING, not_refaulting)			\
	X(NOTHING_EXPOSED, nothing_exposed)			\
	X(INFLOW, inflow)					\
	X(AGE, age)						\
	X(RATE_LIMITED, rate_limited)

#define DET_VERDICT_ENUM(suffix, name)	DET_##suffix,
enum det_verdict {
	DET_VERDICTS(DET_VERDICT_ENUM)
	DET_NR_VERDICTS
};
#undef DET_VERDICT_ENUM

struct det_state {
	bool have_prev;
	struct det_sample prev;
	unsigned long base_evicted;	/* the window's start */
	unsigned long base_refaulted;
	bool fresh;			/* window began at this sample */
	bool moved;			/* ... because F or max_seq moved */
	bool was_thrashing;
	bool after_burst;		/* since det_aged: a whole turnover */
	unsigned long own_max_seq;	/* the max_seq det_aged's burst made,
					   until the kernel moves F or max_seq
					   itself; 0: not a burst's window */
	unsigned int asked;		/* steps of the last DET_AGE */
	uint64_t agings_ms[DET_RATE_WINDOW];	/* ring of step times */
	unsigned int nr_agings;
};

/* What det_step saw: the decision log prints it. */
struct det_out {
	enum det_verdict verdict;
	unsigned int steps;		/* DET_AGE: "+" commands to write */
	bool thrashing;			/* 1 and 2 held */
	bool episode_ended;		/* thrashing last interval, not now */
	const char *why;		/* static text: the deciding reason */
	unsigned long oldest;		/* O: file pages in F */
	unsigned long file_pages;	/* in all generations */
	unsigned long above;		/* above F, less P */
	unsigned long exposed;		/* in the youngest exposed gen */
	unsigned long exposed_seq;
	unsigned long evicted;		/* E - E0 */
	unsigned long refaulted;	/* R - R0 */
	unsigned long evicted_now;	/* this interval */
	long inflow;			/* growth above F this interval */
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
 * det_aged - @steps aging steps took effect at @now_ms: they count toward
 * the rate cap, the window restarts at the last sample's counters, and the
 * next burst waits for a whole turnover of F.
 */
void det_aged(struct det_state *st, uint64_t now_ms, unsigned int steps);

/*
 * det_dry_aged - the burst det_step asked for was only logged (dry run) or
 * refused (lockdown): counted as det_aged with its steps.
 */
void det_dry_aged(struct det_state *st, uint64_t now_ms);

/*
 * det_failed - a write failed with nothing aged: the steps the burst asked
 * for count toward the rate cap (so a kernel that rejects every command
 * sees at most max_agings_per_min / steps writes a minute, not one a
 * step); the window stays, so the next interval may ask again.
 */
void det_failed(struct det_state *st, uint64_t now_ms);

/*
 * det_verdict_name - "healthy", "not_turned_over", "not_refaulting",
 * "nothing_exposed", "inflow", "age", "rate_limited".
 */
const char *det_verdict_name(enum det_verdict v);

#endif /* ADVSHIM_WATCH_DETECTOR_H */
