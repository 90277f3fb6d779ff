// SPDX-License-Identifier: MIT
/*
 * test_watch_detector.c - the detector replayed on table-driven timelines.
 *
 * Each row is one interval: what lru_gen showed (max_seq, the youngest
 * generation's age, file pages in generations max_seq-3 .. max_seq) and
 * memory.stat (refaults/s), and the verdict the detector must give.  The
 * row's `aged` column is what the daemon reports back after a DET_AGE:
 * the number of steps that took effect (max_seq moves), DRY for a dry run,
 * 0 for nothing written.  The layouts are the lab's (6.12, half size:
 * 22k working-set pages in min_seq, the 10k-page cold file in max_seq).
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "tools/watch/detector.h"

#define U (-1.0)		/* unknown rate */
#define H DET_HEALTHY
#define T DET_THRASH
#define A DET_AGE
#define C DET_COOLDOWN
#define R DET_RATE_LIMITED
#define P DET_PROMOTING
#define S DET_SPACING
#define D DET_DRAINING
#define N DET_NOTHING_STUCK
#define DRY (-1)

struct row {
	unsigned long max_seq;
	unsigned long age_ms;
	double refaults;
	unsigned long g[DET_MAX_GENS];	/* file pages, seq max-3 .. max */
	enum det_verdict want;
	unsigned int steps;		/* DET_AGE: the burst asked for */
	int aged;			/* steps that took effect, or DRY */
};

/* The shipped defaults (watch_conf.c) with 1 s intervals. */
static const struct det_params pdef = {
	.persist = 3, .min_refaults_per_s = 500, .max_activations_pct = 5,
	.activations_meaningful = false, .max_agings_per_min = 8,
	.max_steps = 8, .cooldown_ms = 10000, .min_spacing_ms = 2000,
	.max_youngest_growth_pct = 0.25, .min_stuck_pct = 10,
	.max_burst = DET_MAX_GENS, .drain_timeout_ms = 60000,
};

static void fill(struct det_sample *s, const struct row *r, uint64_t now)
{
	unsigned int i;

	memset(s, 0, sizeof(*s));
	s->now_ms = now;
	s->max_seq = r->max_seq;
	s->youngest_age_ms = r->age_ms;
	s->refaults_per_s = r->refaults;
	s->activations_per_s = r->refaults;	/* 6.6-6.13 count them all */
	for (i = 0; i < DET_MAX_GENS; i++) {
		s->gens[i].seq = r->max_seq - (DET_MAX_GENS - 1) + i;
		s->gens[i].file = r->g[i];
	}
	s->nr_gens = DET_MAX_GENS;
}

/* lru_gen_full's counters on the file min_seq row, as watch_sample_rep. */
static void rep(struct det_sample *s, unsigned long file_min,
		unsigned long refaulted, unsigned long evicted,
		unsigned long protected)
{
	s->has_rep = true;
	s->file_min_seq = file_min;
	s->refaulted = refaulted;
	s->evicted = evicted;
	s->protected = protected;
}

/* Replays @rows; returns the aging steps that took effect (or dry). */
static unsigned int replay(const char *name, const struct det_params *p,
			   const struct row *rows, size_t n)
{
	struct det_state st;
	struct det_out out;
	struct det_sample s;
	unsigned int steps = 0;
	size_t i;

	det_init(&st);
	for (i = 0; i < n; i++) {
		uint64_t now = i * 1000;

		fill(&s, &rows[i], now);
		det_step(&st, p, &s, &out);
		cr_assert_eq(out.verdict, rows[i].want,
			     "%s: row %zu: verdict %s, want %s (%s)", name, i,
			     det_verdict_name(out.verdict),
			     det_verdict_name(rows[i].want), out.why);
		cr_assert_eq(out.thrashing, rows[i].want != H,
			     "%s: row %zu: thrashing %d", name, i,
			     out.thrashing);
		if (out.verdict != DET_AGE) {
			cr_assert_eq(out.steps, 0, "%s: row %zu", name, i);
			continue;
		}
		cr_assert_eq(out.steps, rows[i].steps,
			     "%s: row %zu: burst of %u, want %u", name, i,
			     out.steps, rows[i].steps);
		if (rows[i].aged == DRY) {
			det_dry_aged(&st, now);
			steps += out.steps;
		} else if (rows[i].aged > 0) {
			det_aged(&st, now, rows[i].max_seq + rows[i].aged);
			steps += rows[i].aged;
		}
	}
	return steps;
}

#define REPLAY(name, p, rows) replay(name, p, rows, \
	sizeof(rows) / sizeof(rows[0]))

/* The layouts of the lab stall and of the burst that ends it. */
#define STALL	{ 0, 22145, 0, 10241 }	/* W in min_seq, C in max_seq */
#define FOLDED	{ 32386, 0, 0, 0 }	/* after 4 steps: all in min_seq */

/*
 * The cold read runs from row 1 to row 6 (its pages land in max_seq), the
 * working set thrashes all along; the first interval without growth ages
 * at once with a burst of 4, then the detector waits while the cold file
 * drains and stops when the refaults fall.
 */
Test(detector, cold_read_then_one_burst_of_four)
{
	static const struct row rows[] = {
		{ 3, 1000, U, { 0, 30000, 0, 100 }, H, 0, 0 },
		{ 3, 2000, 3000, { 0, 28000, 0, 2100 }, T, 0, 0 },
		{ 3, 3000, 3000, { 0, 26000, 0, 4100 }, T, 0, 0 },
		{ 3, 4000, 3000, { 0, 24000, 0, 6100 }, P, 0, 0 },
		{ 3, 5000, 3000, { 0, 22500, 0, 8100 }, P, 0, 0 },
		{ 3, 6000, 3000, { 0, 22200, 0, 10141 }, P, 0, 0 },
		{ 3, 7000, 3000, { 0, 22145, 0, 10241 }, P, 0, 0 },	/* ends */
		{ 3, 8000, 3000, STALL, A, 4, 4 },		/* 3 -> 7 */
		{ 7, 1000, 4000, FOLDED, D, 0, 0 },
		{ 7, 2000, 3000, { 1000, 31000, 0, 0 }, D, 0, 0 },
		{ 7, 3000, 1300, { 3000, 29000, 0, 0 }, D, 0, 0 },
		{ 7, 4000, 200, { 3400, 28900, 0, 0 }, H, 0, 0 },	/* back */
		{ 7, 5000, 10, { 3400, 28900, 0, 0 }, H, 0, 0 },
	};

	cr_assert_eq(REPLAY("cold read, burst", &pdef, rows), 4);
}

/* A reader that never stops promoting is never aged. */
Test(detector, cold_read_still_running_never_ages)
{
	struct det_state st;
	struct det_out out;
	struct det_sample s;
	struct row r = { 3, 0, 4000, { 0, 30000, 0, 0 }, H, 0, 0 };
	unsigned int i;

	det_init(&st);
	for (i = 0; i < 100; i++) {
		r.age_ms = 1000 + i * 1000;
		r.g[3] = 100 + i * 200;		/* 0.66% of the file pages */
		r.g[1] = 30000 - i * 200;	/* each interval */
		fill(&s, &r, i * 1000);
		det_step(&st, &pdef, &s, &out);
		cr_assert_neq(out.verdict, DET_AGE, "interval %u", i);
	}
}

/*
 * 7.x: a normal mapping's first touch lands in max_seq-2 (PG_referenced
 * set at fault), the youngest generation stays empty (the lab's 7.3.4:
 * { W, C, 0, 0 } at the end of the read).  Growth above the oldest
 * generation is what counts, and the burst is 2 steps.
 */
Test(detector, seven_x_read_lands_in_max_seq_minus_2)
{
	static const struct row rows[] = {
		{ 3, 1000, U, { 30720, 0, 0, 0 }, H, 0, 0 },
		{ 3, 2000, 3000, { 29931, 2496, 1, 0 }, T, 0, 0 },
		{ 3, 3000, 3000, { 28272, 4160, 2, 0 }, T, 0, 0 },
		{ 3, 4000, 3000, { 27190, 5184, 2, 0 }, P, 0, 0 },
		{ 3, 5000, 3000, { 24590, 7808, 2, 0 }, P, 0, 0 },
		{ 3, 6000, 3000, { 22099, 10240, 2, 0 }, P, 0, 0 },
		{ 3, 7000, 3000, { 22111, 10240, 2, 0 }, A, 2, 2 },
		{ 5, 1000, 200, { 32350, 2, 0, 0 }, H, 0, 0 },
	};

	cr_assert_eq(REPLAY("7.x layout", &pdef, rows), 2);
}

/*
 * Does not fit (the lab's 6.12 does-not-fit arm: a 256 MiB file in a
 * 128 MiB memcg): the RANDOM readers' first touches never stop, evictions
 * run far ahead of refaults on lru_gen_full's oldest row all along, and
 * their pages land in min_seq (or min_seq+1 with 4 generations).  Before
 * the cold read nothing is stuck; while it runs its generation grows;
 * the first interval it stops growing ages, whatever the RANDOM readers
 * bring in below it.  Counting every new page held the burst back for the
 * whole run (tail 74%).
 */
Test(detector, random_first_touches_below_the_stuck_generation_do_not_hold)
{
	struct det_state st;
	struct det_out out;
	struct det_sample s;
	/* 3 generations: W (and every RANDOM fault) in min_seq, C in max_seq */
	struct row r = { 7, 0, 3000, { 0, 32000, 0, 0 }, H, 0, 0 };
	static const unsigned long cold[] = {
		0, 0, 0, 0, 1000, 4000, 7000, 10240, 10240, 10240,
	};
	static const enum det_verdict want[] = {
		H, T, T, N, N, P, P, P, A, D,
	};
	unsigned int i;

	det_init(&st);
	for (i = 0; i < 10; i++) {
		r.age_ms = 1000 + i * 1000;
		r.g[1] = 32000 - cold[i];
		r.g[3] = cold[i];
		fill(&s, &r, i * 1000);
		/* 1.8k refaults/s and 1.2k first touches/s */
		rep(&s, 5, 1000 + i * 1800, 1000 + i * 3000, 0);
		det_step(&st, &pdef, &s, &out);
		cr_assert_eq(out.verdict, want[i], "row %u: %s (%s)", i,
			     det_verdict_name(out.verdict), out.why);
		if (out.verdict == DET_AGE) {
			cr_assert_eq(out.steps, 4);
			det_aged(&st, i * 1000, r.max_seq + 4);
			r.max_seq += 4;
			r.g[0] = 32000;
			r.g[1] = r.g[2] = r.g[3] = 0;
		}
	}
}

/*
 * 6.12 with 4 generations: RANDOM faults land in min_seq+1 and that
 * generation grows each interval; C in max_seq does not: the burst goes.
 */
Test(detector, random_growth_in_min_seq_plus_1_does_not_hold)
{
	static const struct row rows[] = {
		{ 3, 1000, U, { 20000, 1759, 0, 10241 }, H, 0, 0 },
		{ 3, 2000, 3000, { 18500, 3259, 0, 10241 }, T, 0, 0 },
		{ 3, 3000, 3000, { 17000, 4759, 0, 10241 }, T, 0, 0 },
		{ 3, 4000, 3000, { 15500, 6259, 0, 10241 }, A, 4, 4 },
		{ 7, 1000, 100, FOLDED, H, 0, 0 },
	};

	cr_assert_eq(REPLAY("4 generations", &pdef, rows), 4);
}

/*
 * Does not fit, before any cold read (the lab's 6.12 nofit-watch arm,
 * 9-15 s): the kernel protects the hot part of the working set from the
 * oldest generation into the next one (lru_gen_full's min_seq row counts
 * them), which grows to 16% of the file pages and then pauses.  Those
 * pages are not stuck: aging them was 4 wasted steps.  Then a cold file
 * lands in max_seq and is stuck.
 */
Test(detector, pages_the_kernel_protected_are_not_stuck)
{
	struct det_state st;
	struct det_out out;
	struct det_sample s;
	struct row r = { 3, 0, 2500, { 0, 32000, 0, 0 }, H, 0, 0 };
	static const unsigned long prot[] = {	/* into min_seq + 1 */
		0, 1400, 1400, 4000, 5000, 5000, 5000, 5000, 5000,
	};
	static const unsigned long cold[] = {
		0, 0, 0, 0, 0, 0, 4000, 10240, 10240,
	};
	static const enum det_verdict want[] = {
		H, T, T, N, N, N, P, P, A,
	};
	unsigned int i;

	det_init(&st);
	for (i = 0; i < 9; i++) {
		r.age_ms = 1000 + i * 1000;
		r.g[2] = prot[i];
		r.g[3] = cold[i];
		r.g[1] = 32000 - prot[i] - cold[i];
		fill(&s, &r, i * 1000);
		rep(&s, 1, 1000 + i * 2500, 1000 + i * 2600, prot[i]);
		det_step(&st, &pdef, &s, &out);
		cr_assert_eq(out.verdict, want[i], "row %u: %s (%s)", i,
			     det_verdict_name(out.verdict), out.why);
	}
	cr_assert_eq(out.steps, 4, "C in max_seq: a burst of 4");
}

/*
 * 7.x: the cold file lands in max_seq - 2, which with 4 generations is
 * the one the kernel protects into; only what it protected there (none
 * in the lab's 7.3.4 stall: 0p on the min_seq row) is taken out.
 */
Test(detector, seven_x_cold_file_above_a_few_protected_pages_is_stuck)
{
	struct det_state st;
	struct det_out out;
	struct det_sample s;
	struct row r = { 3, 0, 3000, { 21622, 10753, 3, 0 }, H, 0, 0 };
	unsigned int i;

	det_init(&st);
	for (i = 0; i < 4; i++) {
		r.age_ms = 1000 + i * 1000;
		fill(&s, &r, i * 1000);
		rep(&s, 0, 1000 + i * 3000, 1000 + i * 3050, 513);
		det_step(&st, &pdef, &s, &out);
	}
	cr_assert_eq(out.verdict, DET_AGE, "%s", out.why);
	cr_assert_eq(out.steps, 2);
}

/* A second cold file landing above the stuck one is a reader too. */
Test(detector, growth_above_the_stuck_generation_holds)
{
	static const struct row rows[] = {
		{ 3, 1000, U, { 0, 22145, 10241, 0 }, H, 0, 0 },
		{ 3, 2000, 3000, { 0, 22000, 10241, 145 }, T, 0, 0 },
		{ 3, 3000, 3000, { 0, 21500, 10241, 645 }, T, 0, 0 },
		{ 3, 4000, 3000, { 0, 21000, 10241, 1145 }, P, 0, 0 },
		{ 3, 5000, 3000, { 0, 21000, 10241, 1145 }, A, 3, 3 },
	};

	cr_assert_eq(REPLAY("second file", &pdef, rows), 3);
}

/* Detection latency: the first settled interval after the read ages. */
Test(detector, first_burst_within_two_intervals_of_the_read_ending)
{
	static const struct row short_read[] = {
		{ 3, 1000, U, { 0, 30000, 0, 0 }, H, 0, 0 },
		{ 3, 2000, 3000, { 0, 27000, 0, 3000 }, T, 0, 0 },
		{ 3, 3000, 3000, { 0, 24000, 0, 6000 }, T, 0, 0 },
		{ 3, 4000, 3000, { 0, 22000, 0, 9000 }, P, 0, 0 },
		{ 3, 5000, 3000, { 0, 22000, 0, 9050 }, A, 4, 4 },
		{ 7, 1000, 100, FOLDED, H, 0, 0 },
	};
	/* already thrashing before the cold read: it counts toward persist */
	static const struct row long_stall[] = {
		{ 3, 1000, U, { 0, 30000, 0, 0 }, H, 0, 0 },
		{ 3, 2000, 3000, { 0, 29000, 0, 1000 }, T, 0, 0 },
		{ 3, 3000, 3000, { 0, 27000, 0, 3000 }, T, 0, 0 },
		{ 3, 4000, 3000, { 0, 25000, 0, 5000 }, P, 0, 0 },
		{ 3, 5000, 3000, { 0, 22145, 0, 10241 }, P, 0, 0 },
		{ 3, 6000, 3000, STALL, A, 4, 4 },
		{ 7, 1000, 100, FOLDED, H, 0, 0 },
	};

	cr_assert_eq(REPLAY("short read", &pdef, short_read), 4);
	cr_assert_eq(REPLAY("long stall", &pdef, long_stall), 4);
}

/*
 * The burst folds up to and including the youngest generation that holds
 * stuck pages: 4 steps when that is max_seq, 3 for max_seq-1, and no more
 * than max_burst.
 */
Test(detector, burst_size_follows_the_stuck_generation)
{
	static const struct row in_max[] = {
		{ 3, 1000, U, STALL, H, 0, 0 },
		{ 3, 2000, 3000, STALL, T, 0, 0 },
		{ 3, 3000, 3000, STALL, T, 0, 0 },
		{ 3, 4000, 3000, STALL, A, 4, 4 },
	};
	static const struct row below_max[] = {
		{ 4, 1000, U, { 22145, 0, 10241, 30 }, H, 0, 0 },
		{ 4, 2000, 3000, { 22145, 0, 10241, 30 }, T, 0, 0 },
		{ 4, 3000, 3000, { 22145, 0, 10241, 30 }, T, 0, 0 },
		{ 4, 4000, 3000, { 22145, 0, 10241, 30 }, A, 3, 3 },
	};
	struct det_params p = pdef;

	cr_assert_eq(REPLAY("stuck in max_seq", &pdef, in_max), 4);
	cr_assert_eq(REPLAY("stuck in max_seq-1", &pdef, below_max), 3);
	p.max_burst = 2;
	{
		static const struct row capped[] = {
			{ 3, 1000, U, STALL, H, 0, 0 },
			{ 3, 2000, 3000, STALL, T, 0, 0 },
			{ 3, 3000, 3000, STALL, T, 0, 0 },
			{ 3, 4000, 3000, STALL, A, 2, 2 },
		};

		cr_assert_eq(REPLAY("max_burst 2", &p, capped), 2);
	}
}

/*
 * Does not fit: the working set thrashes with nothing stuck (never ages);
 * after a cold read one burst, then the folded generation drains (min_seq
 * moves), the refaults go on, but nothing is stuck above the oldest
 * generation any more: the episode ends without a second burst.
 */
Test(detector, does_not_fit_ages_once_per_cold_read)
{
	static const struct row rows[] = {
		{ 3, 1000, U, { 0, 32000, 0, 0 }, H, 0, 0 },
		{ 3, 2000, 5000, { 0, 32000, 0, 0 }, T, 0, 0 },
		{ 3, 3000, 5000, { 0, 32000, 0, 0 }, T, 0, 0 },
		{ 3, 4000, 5000, { 0, 32000, 0, 0 }, N, 0, 0 },
		{ 3, 5000, 5000, { 0, 32000, 0, 0 }, N, 0, 0 },
		{ 3, 6000, 5000, { 0, 27000, 0, 5000 }, P, 0, 0 },
		{ 3, 7000, 5000, { 0, 22000, 0, 10000 }, P, 0, 0 },
		{ 3, 8000, 5000, { 0, 22000, 0, 10000 }, A, 4, 4 },
		{ 7, 1000, 5000, { 32000, 0, 0, 0 }, D, 0, 0 },
		{ 7, 2000, 5000, { 27000, 5000, 0, 0 }, D, 0, 0 },
		{ 7, 3000, 5000, { 12000, 20000, 0, 0 }, D, 0, 0 },
		{ 7, 4000, 5000, { 0, 32000, 0, 0 }, H, 0, 0 },	/* drained */
		{ 7, 5000, 5000, { 0, 32000, 0, 0 }, C, 0, 0 },
	};

	cr_assert_eq(REPLAY("does not fit", &pdef, rows), 4);
}

/* Drained and still stuck (a second cold file came): another burst. */
Test(detector, steps_again_once_min_seq_passed_the_burst)
{
	static const struct row rows[] = {
		{ 3, 1000, U, STALL, H, 0, 0 },
		{ 3, 2000, 5000, STALL, T, 0, 0 },
		{ 3, 3000, 5000, STALL, T, 0, 0 },
		{ 3, 4000, 5000, STALL, A, 4, 4 },		/* -> 7 */
		{ 7, 1000, 5000, FOLDED, D, 0, 0 },
		{ 7, 2000, 5000, { 20000, 2386, 0, 10000 }, D, 0, 0 },
		{ 7, 3000, 5000, { 0, 22386, 0, 10000 }, A, 4, 4 },
		{ 11, 1000, 5000, { 32386, 0, 0, 0 }, D, 0, 0 },
		{ 11, 2000, 300, { 30000, 2386, 0, 0 }, H, 0, 0 },
	};

	cr_assert_eq(REPLAY("second burst", &pdef, rows), 8);
}

/*
 * 7.x: refaults land in the oldest generation, so with the working set
 * there it never drains; what the burst's walks left above it (a reader
 * still mapping the cold file) is folded once the oldest generation has
 * not shrunk by 1% of the file pages for persist intervals (lab, 7.3).
 */
Test(detector, stalled_drain_folds_the_leftover)
{
	static const struct row rows[] = {
		{ 3, 1000, U, STALL, H, 0, 0 },
		{ 3, 2000, 5000, STALL, T, 0, 0 },
		{ 3, 3000, 5000, STALL, T, 0, 0 },
		{ 3, 4000, 5000, STALL, A, 4, 4 },		/* -> 7 */
		{ 7, 1000, 5000, { 29600, 2786, 0, 0 }, D, 0, 0 },
		{ 7, 2000, 5000, { 29500, 2786, 0, 0 }, D, 0, 0 },
		{ 7, 3000, 5000, { 29650, 2786, 0, 0 }, D, 0, 0 },
		{ 7, 4000, 5000, { 29400, 2786, 0, 0 }, A, 2, 2 },	/* seq 5 */
		{ 9, 1000, 5000, { 32186, 0, 0, 0 }, D, 0, 0 },
	};

	cr_assert_eq(REPLAY("stalled drain", &pdef, rows), 6);
}

/* A drain that sheds pages is waited for; a stalled one with nothing
 * above the oldest generation ends the episode. */
Test(detector, shrinking_drain_waits_and_an_empty_stall_ends)
{
	static const struct row rows[] = {
		{ 3, 1000, U, STALL, H, 0, 0 },
		{ 3, 2000, 5000, STALL, T, 0, 0 },
		{ 3, 3000, 5000, STALL, T, 0, 0 },
		{ 3, 4000, 5000, STALL, A, 4, 4 },
		{ 7, 1000, 5000, { 32386, 0, 0, 0 }, D, 0, 0 },
		{ 7, 2000, 5000, { 31900, 0, 0, 0 }, D, 0, 0 },	/* -1.5% */
		{ 7, 3000, 5000, { 31400, 0, 0, 0 }, D, 0, 0 },
		{ 7, 4000, 5000, { 30900, 0, 0, 0 }, D, 0, 0 },
		{ 7, 5000, 5000, { 30800, 0, 0, 0 }, D, 0, 0 },
		{ 7, 6000, 5000, { 30800, 0, 0, 0 }, D, 0, 0 },
		{ 7, 7000, 5000, { 30850, 0, 0, 0 }, H, 0, 0 },	/* stalled */
		{ 7, 8000, 5000, { 30850, 0, 0, 0 }, C, 0, 0 },
	};

	cr_assert_eq(REPLAY("shrinking drain", &pdef, rows), 4);
}

/* Bursts respect min_spacing_ms, counting from the last burst. */
Test(detector, second_burst_waits_for_spacing)
{
	struct det_params p = pdef;
	static const struct row rows[] = {
		{ 3, 1000, U, STALL, H, 0, 0 },
		{ 3, 2000, 5000, STALL, T, 0, 0 },
		{ 3, 3000, 5000, STALL, T, 0, 0 },
		{ 3, 4000, 5000, STALL, A, 4, 4 },
		{ 7, 1000, 5000, { 0, 22386, 0, 10000 }, S, 0, 0 },
		{ 7, 2000, 5000, { 0, 22386, 0, 10000 }, S, 0, 0 },
		{ 7, 3000, 5000, { 0, 22386, 0, 10000 }, A, 4, 4 },
	};

	p.min_spacing_ms = 3000;
	cr_assert_eq(REPLAY("spacing", &p, rows), 8);
}

/* A burst the kernel cut short (a command lost a race): the rest next. */
Test(detector, cut_short_burst_asks_for_the_rest)
{
	static const struct row rows[] = {
		{ 3, 1000, U, STALL, H, 0, 0 },
		{ 3, 2000, 5000, STALL, T, 0, 0 },
		{ 3, 3000, 5000, STALL, T, 0, 0 },
		{ 3, 4000, 5000, STALL, A, 4, 1 },		/* only -> 4 */
		{ 4, 1000, 5000, { 22145, 0, 10241, 0 }, A, 3, 3 },
		{ 7, 1000, 5000, FOLDED, D, 0, 0 },
	};

	cr_assert_eq(REPLAY("cut short", &pdef, rows), 4);
}

/* The kernel aging by itself during the drain ends the episode. */
Test(detector, kernel_aging_during_drain_ends_the_episode)
{
	static const struct row rows[] = {
		{ 3, 1000, U, STALL, H, 0, 0 },
		{ 3, 2000, 5000, STALL, T, 0, 0 },
		{ 3, 3000, 5000, STALL, T, 0, 0 },
		{ 3, 4000, 5000, STALL, A, 4, 4 },
		{ 7, 1000, 5000, FOLDED, D, 0, 0 },
		{ 8, 10, 5000, { 0, 30000, 2000, 0 }, H, 0, 0 },	/* not ours */
		{ 8, 1010, 5000, { 0, 30000, 2000, 0 }, C, 0, 0 },
	};

	cr_assert_eq(REPLAY("kernel aged", &pdef, rows), 4);
}

/* No progress within drain_timeout_ms: the episode ends, cooldown. */
Test(detector, drain_that_never_comes_times_out)
{
	struct det_params p = pdef;
	static const struct row rows[] = {
		{ 3, 1000, U, STALL, H, 0, 0 },
		{ 3, 2000, 5000, STALL, T, 0, 0 },
		{ 3, 3000, 5000, STALL, T, 0, 0 },
		{ 3, 4000, 5000, STALL, A, 4, 4 },
		{ 7, 1000, 5000, FOLDED, D, 0, 0 },
		{ 7, 2000, 5000, FOLDED, D, 0, 0 },
		{ 7, 3000, 5000, FOLDED, C, 0, 0 },		/* 3 s */
		{ 7, 4000, 5000, FOLDED, C, 0, 0 },
	};

	p.drain_timeout_ms = 3000;
	cr_assert_eq(REPLAY("drain timeout", &p, rows), 4);
}

/* Workloads that must never be aged. */
Test(detector, healthy_timelines_never_age)
{
	/* the shim / normal advice: the kernel ages by itself */
	static const struct row kernel_ages[] = {
		{ 9, 1000, 5000, { 8000, 9000, 7000, 8000 }, H, 0, 0 },
		{ 10, 10, 5000, { 9000, 7000, 8000, 100 }, H, 0, 0 },
		{ 11, 10, 5000, { 7000, 8000, 9000, 200 }, H, 0, 0 },
		{ 12, 10, 5000, { 8000, 9000, 7000, 100 }, H, 0, 0 },
		{ 13, 10, 5000, { 9000, 7000, 8000, 300 }, H, 0, 0 },
	};
	/* recovered: stuck pages, nothing refaults */
	static const struct row quiet[] = {
		{ 7, 1000, U, { 3400, 28900, 0, 0 }, H, 0, 0 },
		{ 7, 2000, 3, { 3400, 28900, 0, 0 }, H, 0, 0 },
		{ 7, 3000, 0, { 3400, 28900, 0, 0 }, H, 0, 0 },
		{ 7, 4000, 0, { 3400, 28900, 0, 0 }, H, 0, 0 },
		{ 7, 5000, 0, { 3400, 28900, 0, 0 }, H, 0, 0 },
	};
	/* memory.stat unreadable: an unknown rate is never thrash */
	static const struct row unknown[] = {
		{ 3, 1000, U, STALL, H, 0, 0 },
		{ 3, 2000, U, STALL, H, 0, 0 },
		{ 3, 3000, U, STALL, H, 0, 0 },
		{ 3, 4000, U, STALL, H, 0, 0 },
	};
	/* a frozen clock or lru_gen re-read: the age did not grow */
	static const struct row frozen[] = {
		{ 3, 1000, U, STALL, H, 0, 0 },
		{ 3, 1000, 5000, STALL, H, 0, 0 },
		{ 3, 900, 5000, STALL, H, 0, 0 },
		{ 3, 1900, 5000, STALL, T, 0, 0 },
	};

	cr_assert_eq(REPLAY("kernel ages", &pdef, kernel_ages), 0);
	cr_assert_eq(REPLAY("quiet", &pdef, quiet), 0);
	cr_assert_eq(REPLAY("unknown", &pdef, unknown), 0);
	cr_assert_eq(REPLAY("frozen", &pdef, frozen), 0);
}

/* 6.14+/6.1: refaults being activated means the working set is kept. */
Test(detector, activations_count_where_they_mean_something)
{
	struct det_params p = pdef;
	struct det_state st;
	struct det_out out;
	struct det_sample s;
	struct row r = { 3, 0, 20000, STALL, H, 0, 0 };
	unsigned int i;

	p.activations_meaningful = true;
	det_init(&st);
	for (i = 0; i < 10; i++) {
		r.age_ms = 1000 + i * 1000;
		fill(&s, &r, i * 1000);
		s.activations_per_s = 9000;
		det_step(&st, &p, &s, &out);
		cr_assert_eq(out.verdict, DET_HEALTHY, "interval %u", i);
	}
}

/* lru_gen_full: the min_seq row must recycle at an unchanged min_seq. */
Test(detector, full_counters_must_grow)
{
	struct det_state st;
	struct det_out out;
	struct det_sample s;
	struct row r = { 3, 0, 5000, STALL, H, 0, 0 };
	static const unsigned long re[][3] = {	/* min_seq, refaulted, evicted */
		{ 1, 100, 200 }, { 1, 200, 300 }, { 1, 200, 300 },
		{ 1, 300, 400 }, { 2, 400, 500 }, { 2, 500, 600 },
	};
	static const enum det_verdict want[] = { H, T, H, T, H, T };
	unsigned int i;

	det_init(&st);
	for (i = 0; i < 6; i++) {
		r.age_ms = 1000 + i * 1000;
		fill(&s, &r, i * 1000);
		rep(&s, re[i][0], re[i][1], re[i][2], 0);
		det_step(&st, &pdef, &s, &out);
		cr_assert_eq(out.verdict, want[i], "row %u: %s (%s)", i,
			     det_verdict_name(out.verdict), out.why);
	}
}

/* Rate caps: a burst is asked for only when all its steps fit. */
Test(detector, rate_cap_holds_whole_bursts)
{
	struct det_params p = pdef;
	static const struct row rows[] = {
		{ 3, 1000, U, STALL, H, 0, 0 },
		{ 3, 2000, 5000, STALL, T, 0, 0 },
		{ 3, 3000, 5000, STALL, T, 0, 0 },
		{ 3, 4000, 5000, STALL, A, 4, 4 },
		{ 7, 1000, 5000, { 0, 22386, 0, 10000 }, R, 0, 0 },
		{ 7, 2000, 5000, { 0, 22386, 0, 10000 }, R, 0, 0 },
	};

	p.max_agings_per_min = 6;	/* 4 + 4 > 6 */
	p.min_spacing_ms = 0;
	cr_assert_eq(REPLAY("rate cap", &p, rows), 4);
}

/*
 * max_steps per episode, then the cooldown, then a new episode; caps set
 * below a burst's size shorten it.
 */
Test(detector, max_steps_then_cooldown)
{
	struct det_params p = pdef;
	static const struct row rows[] = {
		{ 3, 1000, U, STALL, H, 0, 0 },
		{ 3, 2000, 5000, STALL, T, 0, 0 },
		{ 3, 3000, 5000, STALL, T, 0, 0 },
		{ 3, 4000, 5000, STALL, A, 4, 4 },
		{ 7, 1000, 5000, { 0, 22386, 0, 10000 }, C, 0, 0 },
		{ 7, 2000, 5000, { 0, 22386, 0, 10000 }, C, 0, 0 },
		{ 7, 3000, 5000, { 0, 22386, 0, 10000 }, A, 4, 0 },
	};

	p.max_steps = 4;
	p.cooldown_ms = 2000;
	p.min_spacing_ms = 0;
	cr_assert_eq(REPLAY("max steps", &p, rows), 4);
	p.max_steps = 1;
	{
		static const struct row one[] = {
			{ 3, 1000, U, STALL, H, 0, 0 },
			{ 3, 2000, 5000, STALL, T, 0, 0 },
			{ 3, 3000, 5000, STALL, T, 0, 0 },
			{ 3, 4000, 5000, STALL, A, 1, 1 },
			{ 4, 1000, 5000, { 22145, 0, 10241, 0 }, D, 0, 0 },
			{ 4, 2000, 5000, { 0, 22145, 10241, 0 }, C, 0, 0 },
		};

		cr_assert_eq(REPLAY("max_steps 1", &p, one), 1);
	}
}

/*
 * Dry run: each would-be burst counts all its steps, the drain never
 * comes (nothing was written), the episode times out, cools down, and the
 * next would-be burst follows: bounded by the caps.
 */
Test(detector, dry_run_is_bounded)
{
	struct det_params p = pdef;
	struct det_state st;
	struct det_out out;
	struct det_sample s;
	struct row r = { 3, 0, 5000, STALL, H, 0, 0 };
	unsigned int i, bursts = 0;
	static const unsigned int want_s[] = { 3, 33, 63, 93 };

	p.drain_timeout_ms = 20000;
	det_init(&st);
	for (i = 0; i < 120; i++) {
		r.age_ms = 1000 + i * 1000;
		fill(&s, &r, i * 1000);
		det_step(&st, &p, &s, &out);
		if (out.verdict == DET_AGE) {
			cr_assert_eq(out.steps, 4);
			cr_assert_lt(bursts, 4, "a fifth burst at %u s", i);
			/* a dry-run drain never "stalls": nothing was folded */
			cr_assert_eq(i, want_s[bursts], "burst %u at %u s, want %u",
				     bursts + 1, i, want_s[bursts]);
			det_dry_aged(&st, s.now_ms);
			bursts++;
		}
	}
	/* at 3 s, then every 20 s drain + 10 s cooldown: 3, 33, 63, 93 */
	cr_assert_eq(bursts, 4);
}

/* Without generation rows, max_seq's share stands in for the layout. */
Test(detector, without_rows_the_youngest_share_decides)
{
	struct det_state st;
	struct det_out out;
	struct det_sample s = { .max_seq = 3, .refaults_per_s = 5000,
				.activations_per_s = 5000,
				.youngest_file = 10241, .file_pages = 32386 };
	unsigned int i;

	det_init(&st);
	for (i = 0; i < 4; i++) {
		s.now_ms = i * 1000;
		s.youngest_age_ms = 1000 + i * 1000;
		det_step(&st, &pdef, &s, &out);
	}
	cr_assert_eq(out.verdict, DET_AGE);
	cr_assert_eq(out.steps, 4);
	/* The drain cannot be seen without rows: it is waited for, never
	 * taken as stalled. */
	det_aged(&st, s.now_ms, 7);
	s.max_seq = 7;
	s.youngest_file = 0;
	for (i = 4; i < 12; i++) {
		s.now_ms = i * 1000;
		s.youngest_age_ms = 1000 + i * 1000;
		det_step(&st, &pdef, &s, &out);
		cr_assert_eq(out.verdict, DET_DRAINING, "at %u s: %s", i,
			     det_verdict_name(out.verdict));
	}
	s.max_seq = 3;
	s.youngest_file = 100;
	det_init(&st);
	for (i = 0; i < 6; i++) {
		s.now_ms = i * 1000;
		s.youngest_age_ms = 1000 + i * 1000;
		det_step(&st, &pdef, &s, &out);
		cr_assert_neq(out.verdict, DET_AGE);
	}
}

/*
 * Nothing can run away: random samples (any layout, rate, clock step,
 * max_seq jumps, any outcome of each write) never make the detector's
 * effects - steps that took effect, dry-run steps, failed writes - exceed
 * max_agings_per_min in any minute, nor a burst exceed DET_MAX_GENS, nor
 * an episode exceed max_steps.
 */
struct effect {
	uint64_t ms;
	unsigned int n;
};

static void check_minutes(const struct effect *e, unsigned int nr,
			  unsigned int cap, unsigned int run)
{
	unsigned int i, j, sum;

	for (i = 0; i < nr; i++) {
		sum = 0;
		for (j = 0; j <= i; j++)
			if (e[j].ms + 60000 > e[i].ms)
				sum += e[j].n;
		cr_assert_leq(sum, cap, "run %u: %u steps in a minute", run,
			      sum);
	}
}

Test(detector, random_timelines_respect_every_cap)
{
	struct det_params p = pdef;
	unsigned int seed = 14;
	unsigned int run;

	p.persist = 1;
	p.cooldown_ms = 0;
	p.min_spacing_ms = 0;
	p.drain_timeout_ms = 2000;
	for (run = 0; run < 200; run++) {
		struct det_state st;
		struct det_out out;
		struct det_sample s;
		struct row r = { 3, 0, 0, STALL, H, 0, 0 };
		struct effect e[600];
		uint64_t now = 0;
		unsigned int i, j, nr = 0;

		det_init(&st);
		for (i = 0; i < 600; i++) {
			now += 200 + rand_r(&seed) % 1800;
			r.age_ms += 200 + rand_r(&seed) % 1800;
			if (rand_r(&seed) % 20 == 0)
				r.max_seq += 1 + rand_r(&seed) % 3;
			r.refaults = rand_r(&seed) % 4 ? 5000 : 100;
			for (j = 0; j < DET_MAX_GENS; j++)
				r.g[j] = rand_r(&seed) % 20000;
			fill(&s, &r, now);
			det_step(&st, &p, &s, &out);
			if (out.verdict != DET_AGE)
				continue;
			cr_assert(out.steps >= 1 && out.steps <= DET_MAX_GENS);
			e[nr].ms = now;
			switch (rand_r(&seed) % 4) {
			case 0:
				det_failed(&st, now);
				e[nr].n = 1;
				break;
			case 1:
				det_dry_aged(&st, now);
				e[nr].n = out.steps;
				break;
			default:
				e[nr].n = 1 + rand_r(&seed) % out.steps;
				r.max_seq += e[nr].n;
				det_aged(&st, now, r.max_seq);
			}
			nr++;
			cr_assert_leq(st.steps, p.max_steps);
		}
		check_minutes(e, nr, p.max_agings_per_min, run);
	}
}

Test(detector, verdict_names)
{
	cr_assert_str_eq(det_verdict_name(DET_AGE), "age");
	cr_assert_str_eq(det_verdict_name(DET_PROMOTING), "youngest_growing");
	cr_assert_str_eq(det_verdict_name(DET_DRAINING), "draining");
	cr_assert_str_eq(det_verdict_name(DET_NOTHING_STUCK), "nothing_stuck");
}
