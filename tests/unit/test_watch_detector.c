// SPDX-License-Identifier: MIT
/*
 * test_watch_detector.c - the detector replayed on table-driven timelines.
 *
 * Each row is one interval: what the kernel showed, and the verdict the
 * detector must give.  Rows marked AGED tell the detector that the step it
 * asked for took effect (max_seq + 1), as the daemon would after verifying.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "tools/watch/detector.h"

#define U (-1.0)		/* unknown rate */
#define H DET_HEALTHY
#define T DET_THRASH
#define A DET_AGE
#define C DET_COOLDOWN
#define R DET_RATE_LIMITED

struct row {
	unsigned long max_seq;
	unsigned long age_ms;
	double refaults, activations;
	int rep;			/* 1: lru_gen_full counters below */
	unsigned long min_seq, r, e;
	enum det_verdict want;
	int aged;			/* the step was written and verified */
};

static const struct det_params p612 = {
	.persist = 3, .min_refaults_per_s = 500, .max_activations_pct = 5,
	.activations_meaningful = false, .max_agings_per_min = 6,
	.max_steps = 4, .cooldown_ms = 5000,
};

static void replay(const char *name, const struct det_params *p,
		   const struct row *rows, size_t n, unsigned int *nr_aged)
{
	struct det_state st;
	struct det_out out;
	uint64_t now = 0;
	size_t i;

	det_init(&st);
	*nr_aged = 0;
	for (i = 0; i < n; i++) {
		struct det_sample s = {
			.now_ms = now, .max_seq = rows[i].max_seq,
			.youngest_age_ms = rows[i].age_ms,
			.refaults_per_s = rows[i].refaults,
			.activations_per_s = rows[i].activations,
			.has_rep = rows[i].rep, .file_min_seq = rows[i].min_seq,
			.refaulted = rows[i].r, .evicted = rows[i].e,
		};

		det_step(&st, p, &s, &out);
		cr_assert_eq(out.verdict, rows[i].want,
			     "%s: row %zu: verdict %s, want %s (%s)", name, i,
			     det_verdict_name(out.verdict),
			     det_verdict_name(rows[i].want), out.why);
		if (out.verdict == DET_AGE && rows[i].aged) {
			det_aged(&st, now, rows[i].max_seq + 1);
			(*nr_aged)++;
		}
		now += 1000;
	}
}

#define REPLAY(name, p, rows, aged) replay(name, p, rows, \
	sizeof(rows) / sizeof(rows[0]), aged)

/* The 6.12 lab stall: max_seq stuck, refaults high, activations == refaults. */
Test(detector, persistent_thrash_ages_twice_then_recovers)
{
	static const struct row rows[] = {
		{ 7, 1000, U, U, 0, 0, 0, 0, H, 0 },	/* first sample */
		{ 7, 2000, 30000, 30000, 0, 0, 0, 0, T, 0 },
		{ 7, 3000, 30000, 30000, 0, 0, 0, 0, T, 0 },
		{ 7, 4000, 30000, 30000, 0, 0, 0, 0, A, 1 },	/* -> 8 */
		{ 8, 1000, 29000, 29000, 0, 0, 0, 0, A, 1 },	/* -> 9 */
		{ 9, 1000, 100, 90, 0, 0, 0, 0, H, 0 },	/* recovered */
		{ 9, 2000, 0, 0, 0, 0, 0, 0, H, 0 },
	};
	unsigned int aged;

	REPLAY("lab stall", &p612, rows, &aged);
	cr_assert_eq(aged, 2);
}

Test(detector, busy_healthy_memcgs_never_age)
{
	/* max_seq moving: the kernel ages by itself */
	static const struct row moving[] = {
		{ 7, 1000, 50000, 0, 0, 0, 0, 0, H, 0 },
		{ 8, 10, 50000, 0, 0, 0, 0, 0, H, 0 },
		{ 9, 10, 50000, 0, 0, 0, 0, 0, H, 0 },
		{ 10, 10, 50000, 0, 0, 0, 0, 0, H, 0 },
		{ 11, 10, 50000, 0, 0, 0, 0, 0, H, 0 },
		{ 12, 10, 50000, 0, 0, 0, 0, 0, H, 0 },
	};
	/* 6.14+/6.1: refaults being activated = working set protected */
	static const struct row activated[] = {
		{ 7, 1000, U, U, 0, 0, 0, 0, H, 0 },
		{ 7, 2000, 20000, 9000, 0, 0, 0, 0, H, 0 },
		{ 7, 3000, 20000, 9000, 0, 0, 0, 0, H, 0 },
		{ 7, 4000, 20000, 9000, 0, 0, 0, 0, H, 0 },
		{ 7, 5000, 20000, 9000, 0, 0, 0, 0, H, 0 },
	};
	/* idle: stuck generations but nothing refaults */
	static const struct row idle[] = {
		{ 7, 1000, U, U, 0, 0, 0, 0, H, 0 },
		{ 7, 2000, 3, 0, 0, 0, 0, 0, H, 0 },
		{ 7, 3000, 0, 0, 0, 0, 0, 0, H, 0 },
		{ 7, 4000, 0, 0, 0, 0, 0, 0, H, 0 },
		{ 7, 5000, 0, 0, 0, 0, 0, 0, H, 0 },
	};
	/* memory.stat missing: an unknown rate is never thrash */
	static const struct row unknown[] = {
		{ 7, 1000, U, U, 0, 0, 0, 0, H, 0 },
		{ 7, 2000, U, U, 0, 0, 0, 0, H, 0 },
		{ 7, 3000, U, U, 0, 0, 0, 0, H, 0 },
		{ 7, 4000, U, U, 0, 0, 0, 0, H, 0 },
	};
	/* lru_gen_full: min_seq moving = the oldest generation empties */
	static const struct row minmoves[] = {
		{ 7, 1000, U, U, 1, 4, 10, 10, H, 0 },
		{ 7, 2000, 5000, 0, 1, 5, 0, 5, H, 0 },
		{ 7, 3000, 5000, 0, 1, 6, 0, 5, H, 0 },
		{ 7, 4000, 5000, 0, 1, 7, 0, 5, H, 0 },
	};
	struct det_params p614 = p612;
	unsigned int aged;

	p614.activations_meaningful = true;
	REPLAY("moving", &p612, moving, &aged);
	REPLAY("activated", &p614, activated, &aged);
	REPLAY("idle", &p612, idle, &aged);
	REPLAY("unknown", &p612, unknown, &aged);
	REPLAY("min_seq moves", &p612, minmoves, &aged);
}

Test(detector, activations_ignored_on_6_6_to_6_13)
{
	/* the same numbers that are healthy on 6.14 are thrash on 6.12 */
	static const struct row rows[] = {
		{ 7, 1000, U, U, 0, 0, 0, 0, H, 0 },
		{ 7, 2000, 20000, 20000, 0, 0, 0, 0, T, 0 },
		{ 7, 3000, 20000, 20000, 0, 0, 0, 0, T, 0 },
		{ 7, 4000, 20000, 20000, 0, 0, 0, 0, A, 0 },
	};
	unsigned int aged;

	REPLAY("6.12 activations", &p612, rows, &aged);
}

Test(detector, full_counters_must_grow)
{
	static const struct row rows[] = {
		{ 7, 1000, U, U, 1, 5, 100, 200, H, 0 },
		{ 7, 2000, 5000, 0, 1, 5, 200, 300, T, 0 },
		{ 7, 3000, 5000, 0, 1, 5, 200, 300, H, 0 },	/* flat */
		{ 7, 4000, 5000, 0, 1, 5, 300, 400, T, 0 },
		{ 7, 5000, 5000, 0, 1, 5, 400, 500, T, 0 },
		{ 7, 6000, 5000, 0, 1, 5, 500, 600, A, 0 },
	};
	unsigned int aged;

	REPLAY("rep counters", &p612, rows, &aged);
}

Test(detector, bounded_rate_steps_and_cooldown)
{
	struct det_params p = p612;
	static const struct row rows[] = {
		{ 7, 1000, U, U, 0, 0, 0, 0, H, 0 },
		{ 7, 2000, 9000, 0, 0, 0, 0, 0, T, 0 },
		{ 7, 3000, 9000, 0, 0, 0, 0, 0, T, 0 },
		{ 7, 4000, 9000, 0, 0, 0, 0, 0, A, 1 },	/* 1 -> 8 */
		{ 8, 1000, 9000, 0, 0, 0, 0, 0, A, 1 },	/* 2 -> 9 */
		{ 9, 1000, 9000, 0, 0, 0, 0, 0, R, 0 },	/* cap 2/min */
		{ 9, 2000, 9000, 0, 0, 0, 0, 0, R, 0 },
		{ 9, 3000, 9000, 0, 0, 0, 0, 0, R, 0 },
	};
	static const struct row steps[] = {
		{ 7, 1000, U, U, 0, 0, 0, 0, H, 0 },
		{ 7, 2000, 9000, 0, 0, 0, 0, 0, A, 1 },	/* persist 1 */
		{ 8, 100, 9000, 0, 0, 0, 0, 0, A, 1 },
		{ 9, 100, 9000, 0, 0, 0, 0, 0, C, 0 },	/* max_steps 2 */
		{ 9, 1100, 9000, 0, 0, 0, 0, 0, C, 0 },	/* cooling */
		{ 9, 2100, 9000, 0, 0, 0, 0, 0, C, 0 },
		{ 9, 3100, 9000, 0, 0, 0, 0, 0, A, 0 },	/* next episode */
	};
	unsigned int aged;

	p.max_agings_per_min = 2;
	REPLAY("rate cap", &p, rows, &aged);
	cr_assert_eq(aged, 2);
	p = p612;
	p.persist = 1;
	p.max_steps = 2;
	p.cooldown_ms = 2500;
	REPLAY("max steps", &p, steps, &aged);
	cr_assert_eq(aged, 2);
}

Test(detector, kernel_aging_during_episode_ends_it)
{
	static const struct row rows[] = {
		{ 7, 1000, U, U, 0, 0, 0, 0, H, 0 },
		{ 7, 2000, 9000, 0, 0, 0, 0, 0, T, 0 },
		{ 7, 3000, 9000, 0, 0, 0, 0, 0, T, 0 },
		{ 7, 4000, 9000, 0, 0, 0, 0, 0, A, 1 },	/* -> 8 */
		{ 10, 10, 9000, 0, 0, 0, 0, 0, H, 0 },	/* not ours: 10 */
		{ 10, 1010, 9000, 0, 0, 0, 0, 0, C, 0 },	/* cooldown */
	};
	unsigned int aged;

	REPLAY("kernel aged", &p612, rows, &aged);
}

Test(detector, dry_run_keeps_counting_and_stops_at_max_steps)
{
	struct det_state st;
	struct det_out out;
	struct det_sample s = { .max_seq = 7, .refaults_per_s = 9000,
				.activations_per_s = 0 };
	unsigned int i, ages = 0;

	det_init(&st);
	for (i = 0; i < 12; i++) {
		s.now_ms = i * 1000;
		s.youngest_age_ms = 1000 + i * 1000;
		det_step(&st, &p612, &s, &out);
		if (out.verdict == DET_AGE) {
			ages++;
			det_dry_aged(&st, s.now_ms);
		}
	}
	/* 3 to persist, then one per interval until max_steps, then cool */
	cr_assert_eq(ages, p612.max_steps);
}

Test(detector, youngest_age_must_grow)
{
	static const struct row rows[] = {
		{ 7, 1000, U, U, 0, 0, 0, 0, H, 0 },
		{ 7, 1000, 9000, 0, 0, 0, 0, 0, H, 0 },
		{ 7, 900, 9000, 0, 0, 0, 0, 0, H, 0 },
	};
	unsigned int aged;

	REPLAY("age not growing", &p612, rows, &aged);
}

/*
 * Timelines with the youngest generation's file pages: a cold reader
 * faulting pages in through a normal mapping makes max_seq grow, and aging
 * then is wasted; once it stops, steps come min_spacing_ms apart.
 */
#define P DET_PROMOTING
#define S DET_SPACING

struct yrow {
	unsigned long max_seq;
	unsigned long age_ms;
	double refaults;
	unsigned long young;		/* file pages in max_seq */
	enum det_verdict want;
	int aged;
};

static const struct det_params pspaced = {
	.persist = 3, .min_refaults_per_s = 500, .max_activations_pct = 5,
	.activations_meaningful = false, .max_agings_per_min = 6,
	.max_steps = 4, .cooldown_ms = 5000, .min_spacing_ms = 3000,
	.max_youngest_growth_pct = 0.25,	/* of 40000: 100 pages */
};

static unsigned int yreplay(const char *name, const struct det_params *p,
			    const struct yrow *rows, size_t n)
{
	struct det_state st;
	struct det_out out;
	unsigned int nr_aged = 0;
	size_t i;

	det_init(&st);
	for (i = 0; i < n; i++) {
		struct det_sample s = {
			.now_ms = i * 1000, .max_seq = rows[i].max_seq,
			.youngest_age_ms = rows[i].age_ms,
			.refaults_per_s = rows[i].refaults,
			.activations_per_s = rows[i].refaults,
			.youngest_file = rows[i].young, .file_pages = 40000,
		};

		det_step(&st, p, &s, &out);
		cr_assert_eq(out.verdict, rows[i].want,
			     "%s: row %zu: verdict %s, want %s (%s)", name, i,
			     det_verdict_name(out.verdict),
			     det_verdict_name(rows[i].want), out.why);
		cr_assert_eq(out.thrashing, rows[i].want != H,
			     "%s: row %zu: thrashing %d", name, i,
			     out.thrashing);
		if (out.verdict == DET_AGE && rows[i].aged) {
			det_aged(&st, s.now_ms, rows[i].max_seq + 1);
			nr_aged++;
		}
	}
	return nr_aged;
}

#define YREPLAY(name, p, rows) yreplay(name, p, rows, \
	sizeof(rows) / sizeof(rows[0]))

Test(detector, cold_read_in_progress_never_ages)
{
	static const struct yrow rows[] = {
		{ 7, 1000, U, 1000, H, 0 },
		{ 7, 2000, 9000, 1800, P, 0 },	/* 800 pages/s landing */
		{ 7, 3000, 9000, 2600, P, 0 },
		{ 7, 4000, 9000, 3400, P, 0 },
		{ 7, 5000, 9000, 4200, P, 0 },
		{ 7, 6000, 9000, 4350, P, 0 },	/* 150 > 100: still */
		{ 7, 7000, 9000, 4400, T, 0 },	/* 50: settled (1) */
		{ 7, 8000, 9000, 5400, P, 0 },	/* second pass: restart */
		{ 7, 9000, 9000, 5400, T, 0 },
		{ 7, 10000, 9000, 5400, T, 0 },
		{ 7, 11000, 9000, 6400, P, 0 },
	};

	cr_assert_eq(YREPLAY("cold read", &pspaced, rows), 0);
}

Test(detector, read_finished_ages_with_spacing)
{
	static const struct yrow rows[] = {
		{ 7, 1000, U, 1000, H, 0 },
		{ 7, 2000, 9000, 5000, P, 0 },	/* the cold read */
		{ 7, 3000, 9000, 9000, P, 0 },
		{ 7, 4000, 9000, 9000, T, 0 },	/* done: settled 1 */
		{ 7, 5000, 9000, 9000, T, 0 },
		{ 7, 6000, 9000, 9000, A, 1 },	/* -> 8 */
		{ 8, 1000, 9000, 20, S, 0 },	/* new max_seq, 1 s */
		{ 8, 2000, 9000, 20, S, 0 },	/* 2 s */
		{ 8, 3000, 9000, 20, A, 1 },	/* 3 s: -> 9 */
		{ 9, 1000, 9000, 0, S, 0 },
		{ 9, 2000, 200, 0, H, 0 },	/* refaults fell: stop */
		{ 9, 3000, 100, 0, H, 0 },
	};

	cr_assert_eq(YREPLAY("read finished", &pspaced, rows), 2);
}

Test(detector, promotion_inside_an_episode_pauses_it)
{
	static const struct yrow rows[] = {
		{ 7, 1000, U, 100, H, 0 },
		{ 7, 2000, 9000, 100, T, 0 },
		{ 7, 3000, 9000, 100, T, 0 },
		{ 7, 4000, 9000, 100, A, 1 },	/* -> 8 */
		{ 8, 1000, 9000, 900, S, 0 },	/* own step: not judged */
		{ 8, 2000, 9000, 1700, P, 0 },	/* a reader came back */
		{ 8, 3000, 9000, 2500, P, 0 },
		{ 8, 4000, 9000, 2500, A, 1 },	/* settled, spaced: -> 9 */
		{ 9, 1000, 9000, 10, S, 0 },
	};

	cr_assert_eq(YREPLAY("paused episode", &pspaced, rows), 2);
}

Test(detector, healthy_with_a_growing_youngest_never_ages)
{
	/* a normal reader filling max_seq while nothing refaults */
	static const struct yrow filling[] = {
		{ 7, 1000, U, 0, H, 0 },
		{ 7, 2000, 50, 1000, H, 0 },
		{ 7, 3000, 50, 2000, H, 0 },
		{ 7, 4000, 50, 3000, H, 0 },
		{ 7, 5000, 50, 3000, H, 0 },
		{ 7, 6000, 50, 3000, H, 0 },
	};
	/* the kernel ages by itself while pages stream in */
	static const struct yrow aging[] = {
		{ 7, 1000, 9000, 0, H, 0 },
		{ 8, 10, 9000, 1000, H, 0 },
		{ 9, 10, 9000, 1000, H, 0 },
		{ 10, 10, 9000, 1000, H, 0 },
		{ 11, 10, 9000, 1000, H, 0 },
	};

	cr_assert_eq(YREPLAY("filling", &pspaced, filling), 0);
	cr_assert_eq(YREPLAY("kernel aging", &pspaced, aging), 0);
}

Test(detector, dry_run_steps_are_spaced)
{
	struct det_state st;
	struct det_out out;
	struct det_sample s = { .max_seq = 7, .refaults_per_s = 9000,
				.activations_per_s = 0, .file_pages = 40000 };
	uint64_t when[8];
	unsigned int i, ages = 0;

	det_init(&st);
	/* 3 to persist, 4 steps 3 s apart, then the cooldown */
	for (i = 0; i < 16; i++) {
		s.now_ms = i * 1000;
		s.youngest_age_ms = 1000 + i * 1000;
		det_step(&st, &pspaced, &s, &out);
		if (out.verdict == DET_AGE) {
			when[ages++] = s.now_ms;
			det_dry_aged(&st, s.now_ms);
		}
	}
	cr_assert_eq(ages, pspaced.max_steps);
	for (i = 1; i < ages; i++)
		cr_assert_geq(when[i] - when[i - 1], pspaced.min_spacing_ms);
}
