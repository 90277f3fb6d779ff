/* SPDX-License-Identifier: MIT */
/*
 * adapt.h - the adaptive advice's decision: keep MADV_RANDOM or give
 * normal advice, re-made from samples of what the process can measure
 * (issue 13; the rule and its reasons are in docs/adaptive.md).
 *
 * A leaf of the tree (adapt/ includes nothing of the project; policy/,
 * shim/ and the tools use it).  A pure state machine: no I/O, no clock,
 * no allocation, no globals, no errno.  Its caller (the shim's sampler) reads the memory cgroup and the
 * files' residency, stamps each sample with a monotonic time, and applies
 * the choice when a step says `switched`.  One state per decision group:
 * the adaptive files of one process, which share its memory cgroup.
 *
 * Locking: none inside.  One thread steps a state at a time (the
 * sampler); readers of the verdict for `advshim inspect` copy it under
 * the caller's lock.
 */
#ifndef ADVSHIM_ADAPT_ADAPT_H
#define ADVSHIM_ADAPT_ADAPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum adapt_choice {
	ADAPT_RANDOM,		/* keep the application's MADV_RANDOM */
	ADAPT_NORMAL,		/* normal advice: recency and read-around */
};

/*
 * Why the current choice stands (or why a wanted switch was held).  The
 * values are kept in the shim's stats page and read by `advshim inspect`
 * of another build: new reasons go at the end.
 */
enum adapt_reason {
	ADAPT_R_START,		/* no good sample yet: the application's advice */
	ADAPT_R_FITS,		/* need <= fit_pct of capacity */
	ADAPT_R_NOFIT,		/* need >= nofit_pct of capacity */
	ADAPT_R_BAND,		/* in between: the choice stays */
	ADAPT_R_THRASH,		/* in the band, normal, memcg full, faulting,
				   and most faults refault what read-around
				   evicted: RANDOM */
	ADAPT_R_UNREADABLE,	/* figures unreadable fail_after times: RANDOM */
	ADAPT_R_PERSIST,	/* a switch wanted, not yet for `persist` */
	ADAPT_R_DWELL,		/* a switch wanted, the dwell time not over */
	ADAPT_R_RATE,		/* a switch wanted, max_per_min reached */
	ADAPT_R_GUARD_THRASH,	/* guarded, above guard_fit_pct, normal,
				   memcg full and faulting: RANDOM */
	ADAPT_R_GUARDED,	/* guarded, RANDOM kept above guard_fit_pct */
	ADAPT_R_UNGUARDED,	/* RANDOM of ADAPT_R_GUARD_THRASH, in the band,
				   unguarded for `persist` samples: normal */
	ADAPT_R_NR,
};

/* Sample figures no limit: then the machine's MemAvailable is the room. */
#define ADAPT_NO_LIMIT		UINT64_MAX
#define ADAPT_RATE_SLOTS	8	/* max_per_min is at most this */

struct adapt_params {
	unsigned int fit_pct;		/* need <= this % of capacity: normal */
	unsigned int nofit_pct;		/* need >= this % of capacity: RANDOM */
	unsigned int guard_fit_pct;	/* guarded: normal again only at or
					   below this % (above fit_pct: the
					   band only); 0: ignore the mark */
	unsigned int persist;		/* samples a size verdict must hold */
	unsigned int thrash_persist;	/* samples the thrash verdict must hold */
	unsigned int thrash_usage_pct;	/* thrash: usage >= this % of limit */
	unsigned int thrash_majflt_s;	/* thrash: major faults/s >= this */
	unsigned int thrash_refaults;	/* thrash: memcg refaults per major
					   fault of the process >= this */
	unsigned int dwell_ms;		/* at least this long between switches */
	unsigned int max_per_min;	/* switches in any 60 s, 1..8 */
	unsigned int fail_after;	/* unreadable samples before RANDOM */
};

/* One sample.  Byte counts; cumulative counters since process start. */
struct adapt_sample {
	uint64_t t_ms;		/* monotonic; a step back counts as no time */
	int status;		/* 0, or a negative errno: figures unreadable */
	uint64_t limit;		/* effective memcg limit, or ADAPT_NO_LIMIT */
	uint64_t usage;		/* memcg usage (memory.current) */
	uint64_t file;		/* memcg page cache (memory.stat file/cache) */
	uint64_t mem_avail;	/* machine MemAvailable; 0: unknown */
	uint64_t need;		/* size of the group's files' mappings */
	uint64_t resident;	/* of that, in the page cache (mincore) */
	uint64_t majflt;	/* the process's major faults (getrusage) */
	uint64_t refault;	/* the memcg's workingset_refault_file */
	bool guarded;		/* a live advshim-watch ages the memcg
				   (common/guard.h) */
};

/* The outcome of a step, with the numbers it used. */
struct adapt_verdict {
	enum adapt_choice choice;
	enum adapt_reason reason;
	bool switched;		/* this step changed the choice */
	uint64_t t_ms;
	uint64_t need;
	uint64_t capacity;	/* room for page cache: limit - non-file use */
	unsigned int ratio_pct;	/* need * 100 / capacity (capped) */
	unsigned int resident_pct; /* resident * 100 / need */
	unsigned int usage_pct;	/* usage * 100 / limit (0 without limit) */
	uint64_t majflt_s;	/* since the previous sample */
	uint64_t refault_s;	/* since the previous sample */
	bool guarded;		/* the sample's */
	int status;		/* the sample's */
};

struct adapt_state {
	struct adapt_params p;
	enum adapt_choice choice;
	bool measured;		/* a good sample has been seen */
	bool have_prev;		/* prev_* valid (majflt rate) */
	uint64_t prev_t_ms, prev_majflt, prev_refault;
	uint64_t last_t_ms;
	unsigned int fits_run, nofit_run, thrash_run, guard_run, fail_run;
	unsigned int unguard_run;	/* unguarded samples of via_guard */
	bool via_guard;		/* RANDOM came from ADAPT_R_GUARD_THRASH */
	uint64_t switch_ms[ADAPT_RATE_SLOTS];	/* ring of switch times */
	unsigned int nr_switch_ms, switch_head;
	uint64_t switches;	/* choice changes after the first decision */
	uint64_t held;		/* steps that wanted a switch and held it */
	struct adapt_verdict last;
};

/* adapt_params_default - the defaults docs/adaptive.md derives. */
void adapt_params_default(struct adapt_params *p);

/*
 * adapt_params_check - 0 if @p is usable, else -EINVAL and *@what names
 * the first bad field (fit_pct < nofit_pct, percentages 1..1000,
 * guard_fit_pct 0..1000,
 * thrash_usage_pct 1..100, thrash_refaults >= 1, max_per_min
 * 1..ADAPT_RATE_SLOTS, persist >= 1, fail_after >= 1).
 */
int adapt_params_check(const struct adapt_params *p, const char **what);

/*
 * adapt_init - a fresh state with parameters @p (checked by the caller)
 * and @initial, the advice in force before any sample (the application's:
 * ADAPT_RANDOM).
 */
void adapt_init(struct adapt_state *s, const struct adapt_params *p,
		enum adapt_choice initial);

/*
 * adapt_resume - @s goes on in a new sampler (a fork child's, or one
 * started again after a failed start): its decision, whether it was
 * measured, whether RANDOM came from the guarded rule and the switch
 * times (dwell, rate limit) stay; the runs towards a switch start over,
 * and so do the fault rates (a fork child's own count starts at zero):
 * the next sample has none.  A state never measured still takes its first
 * decision by size alone.
 */
void adapt_resume(struct adapt_state *s);

/*
 * adapt_step - feed one sample; returns the verdict (also kept in
 * s->last).  The first good sample decides at once (ADAPT_R_FITS or
 * NOFIT/BAND: no persist, no dwell, not counted as a switch); later
 * switches need their condition for `persist` (thrash: `thrash_persist`)
 * samples in a row, `dwell_ms` since the previous switch and fewer than
 * `max_per_min` switches in the last 60 s.  A guarded sample (a live
 * watcher ages the memcg, so RANDOM's stall is ended) moves the way back
 * to normal down to `guard_fit_pct` and gives up normal above it when the
 * memcg is full and the process faults `thrash_majflt_s` for
 * `thrash_persist` samples (docs/adaptive.md, "Guarded").  Unreadable figures for
 * `fail_after` samples in a row switch to RANDOM at once (fail safe;
 * still counted and rate-recorded).  Never fails.
 */
struct adapt_verdict adapt_step(struct adapt_state *s,
				const struct adapt_sample *x);

/* adapt_choice_name / adapt_reason_name - "random", "normal"; "fits"... */
const char *adapt_choice_name(enum adapt_choice c);
const char *adapt_reason_name(enum adapt_reason r);

/*
 * adapt_describe - one line for the log and `advshim inspect`, e.g.
 * "normal (fits: need 120 MiB = 96% of capacity 125 MiB, resident 100%,
 * usage 98%, 0 majflt/s, 0 refaults/s)", ", guarded" before the ")" when
 * the sample was.  No stdio, no allocation.  Returns the length written
 * (truncated to @size - 1, always NUL-terminated when @size > 0).
 */
size_t adapt_describe(const struct adapt_verdict *v, char *buf, size_t size);

#endif /* ADVSHIM_ADAPT_ADAPT_H */
