// SPDX-License-Identifier: MIT
/*
 * test_watch_detector.c - the detector's rule, sample by sample: each
 * condition of detector.h failing on its own, the window's start, the
 * burst size, the rate cap.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "tools/watch/detector.h"

static const struct det_params P = {
	.min_turnover_pct = 50,
	.min_refault_pct = 50,
	.min_exposed_pct = 2,
	.max_inflow_pct = 10,
	.max_agings_per_min = 8,
};

/*
 * A sample at @now_s seconds: four generations max_seq - 3 .. max_seq
 * holding @file[0..3] file pages, F = max_seq - 3 with counters @e, @r
 * and @p.
 */
static struct det_sample smp(unsigned int now_s, unsigned long max_seq,
			     unsigned long e, unsigned long r, unsigned long p,
			     const unsigned long file[4])
{
	struct det_sample s;
	unsigned int i;

	memset(&s, 0, sizeof(s));
	s.now_ms = (uint64_t)now_s * 1000;
	s.max_seq = max_seq;
	s.has_rep = true;
	s.file_min_seq = max_seq - 3;
	s.evicted = e;
	s.refaulted = r;
	s.protected = p;
	s.nr_gens = 4;
	for (i = 0; i < 4; i++) {
		s.gens[i].seq = max_seq - 3 + i;
		s.gens[i].file = file[i];
	}
	return s;
}

static const unsigned long LAYOUT[4] = { 10000, 2000, 2000, 10000 };

static enum det_verdict step(struct det_state *st, struct det_sample s,
			     struct det_out *out)
{
	det_step(st, &P, &s, out);
	return out->verdict;
}

/* A fresh detector's first look at the report's thrash (LAYOUT, 90%). */
static void first_look(struct det_state *st, struct det_out *out)
{
	det_init(st);
	step(st, smp(0, 7, 20000, 18000, 0, LAYOUT), out);
}

/* The thrash of the report: F recycled, 90% back, pages above it. */
Test(detector, thrash_ages_on_the_second_look)
{
	struct det_state st;
	struct det_out o;

	det_init(&st);
	cr_assert_eq(step(&st, smp(0, 7, 20000, 18000, 0, LAYOUT), &o),
		     DET_INFLOW, "the first look has no growth to judge");
	cr_assert(o.thrashing);
	cr_assert_eq(o.oldest, 10000);
	cr_assert_eq(o.above, 14000);
	cr_assert_eq(o.file_pages, 24000);
	cr_assert_eq(step(&st, smp(1, 7, 40000, 36000, 0, LAYOUT), &o),
		     DET_AGE, "%s", o.why);
	cr_assert_eq(o.steps, 4, "the exposed pages are in max_seq");
	cr_assert_eq(o.exposed_seq, 7);
	cr_assert_eq(o.evicted, 40000);
	cr_assert_eq(o.refaulted, 36000);
	cr_assert_eq(o.evicted_now, 20000);
	cr_assert_eq(o.inflow, 0);
}

Test(detector, each_condition_fails_alone)
{
	static const unsigned long all_in_f[4] = { 24000, 100, 100, 100 };
	struct det_state st;
	struct det_out o;

	det_init(&st);
	cr_assert_eq(step(&st, smp(0, 7, 0, 0, 0, LAYOUT), &o), DET_HEALTHY);
	cr_assert_not(o.thrashing);
	det_init(&st);
	cr_assert_eq(step(&st, smp(0, 7, 4999, 4999, 0, LAYOUT), &o),
		     DET_NOT_TURNED);
	cr_assert_eq(step(&st, smp(1, 7, 5000, 5000, 0, LAYOUT), &o),
		     DET_AGE, "exactly min_turnover_pct: %s", o.why);
	det_init(&st);
	cr_assert_eq(step(&st, smp(0, 7, 20000, 9999, 0, LAYOUT), &o),
		     DET_NOT_REFAULTING);
	det_init(&st);
	cr_assert_eq(step(&st, smp(0, 7, 20000, 18000, 0, all_in_f), &o),
		     DET_NOTHING_EXPOSED, "100 of 24300 pages: under 2%%");
	cr_assert(o.thrashing);
}

/* Refaults that stopped growing are an old episode, not a thrash now. */
Test(detector, refaults_must_grow_this_interval)
{
	struct det_state st;
	struct det_out o;

	first_look(&st, &o);
	cr_assert_eq(step(&st, smp(1, 7, 30000, 18000, 0, LAYOUT), &o),
		     DET_NOT_REFAULTING);
	cr_assert(o.episode_ended, "thrashing before, not now");
}

/*
 * A page evicted in the window counts only once it comes back, so a
 * window's share lags the thrash: this interval's share decides as well.
 */
Test(detector, this_intervals_refault_share_is_enough)
{
	struct det_state st;
	struct det_out o;

	det_init(&st);
	cr_assert_eq(step(&st, smp(0, 7, 20000, 2000, 0, LAYOUT), &o),
		     DET_NOT_REFAULTING, "10%% over the window, its first look");
	cr_assert_eq(step(&st, smp(1, 7, 30000, 8000, 0, LAYOUT), &o),
		     DET_AGE, "27%% over the window, 60%% this interval: %s",
		     o.why);
	cr_assert_eq(o.refaulted, 8000, "the window's counters are logged");
	det_init(&st);
	step(&st, smp(0, 7, 20000, 2000, 0, LAYOUT), &o);
	cr_assert_eq(step(&st, smp(1, 7, 30000, 6000, 0, LAYOUT), &o),
		     DET_NOT_REFAULTING, "27%% and 40%%: %s", o.why);
}

/*
 * After a burst of its own the window's share alone counts (a second
 * burst on one interval's share folded the just-refaulted working set to
 * the tail of F), until the kernel moves F or max_seq itself.
 */
Test(detector, after_its_own_burst_the_windows_share_alone_counts)
{
	struct det_state st;
	struct det_out o;

	first_look(&st, &o);
	cr_assert_eq(step(&st, smp(1, 7, 40000, 36000, 0, LAYOUT), &o),
		     DET_AGE);
	det_aged(&st, 1000, o.steps);
	cr_assert_eq(step(&st, smp(2, 11, 0, 0, 0, LAYOUT), &o), DET_HEALTHY,
		     "our own burst moved F and max_seq");
	cr_assert_eq(step(&st, smp(3, 11, 20000, 2000, 0, LAYOUT), &o),
		     DET_NOT_REFAULTING);
	cr_assert_eq(step(&st, smp(4, 11, 30000, 8000, 0, LAYOUT), &o),
		     DET_NOT_REFAULTING, "60%% this interval, 27%% over the "
		     "window since our burst: %s", o.why);
	cr_assert_eq(step(&st, smp(5, 12, 0, 0, 0, LAYOUT), &o), DET_HEALTHY,
		     "the kernel aged by itself");
	step(&st, smp(6, 12, 20000, 2000, 0, LAYOUT), &o);
	cr_assert_eq(step(&st, smp(7, 12, 30000, 8000, 0, LAYOUT), &o),
		     DET_AGE, "a window the kernel began: %s", o.why);
}

/* The pages the kernel protected into F + 1 are the hot working set. */
Test(detector, protected_pages_are_not_exposed)
{
	static const unsigned long f1[4] = { 10000, 5000, 0, 0 };
	struct det_state st;
	struct det_out o;

	det_init(&st);
	step(&st, smp(0, 7, 20000, 18000, 5000, f1), &o);
	cr_assert_eq(step(&st, smp(1, 7, 40000, 36000, 5000, f1), &o),
		     DET_NOTHING_EXPOSED);
	cr_assert_eq(o.above, 0);
	det_init(&st);
	step(&st, smp(0, 7, 20000, 18000, 1000, f1), &o);
	cr_assert_eq(step(&st, smp(1, 7, 40000, 36000, 1000, f1), &o),
		     DET_AGE);
	cr_assert_eq(o.exposed, 4000);
	cr_assert_eq(o.steps, 2, "F + 1 folds into F in two steps");
}

Test(detector, burst_size_follows_the_exposed_generation)
{
	static const unsigned long g2[4] = { 10000, 100, 8000, 100 };
	struct det_state st;
	struct det_out o;

	det_init(&st);
	step(&st, smp(0, 9, 20000, 18000, 0, g2), &o);
	cr_assert_eq(step(&st, smp(1, 9, 40000, 36000, 0, g2), &o), DET_AGE);
	cr_assert_eq(o.exposed_seq, 8);
	cr_assert_eq(o.steps, 3);
}

/* A reader still faulting pages in above F: wait until it stops. */
Test(detector, inflow_waits)
{
	unsigned long g[4] = { 10000, 2000, 2000, 10000 };
	struct det_state st;
	struct det_out o;

	det_init(&st);
	step(&st, smp(0, 7, 20000, 18000, 0, g), &o);
	g[3] += 2001;		/* > 10% of the 20000 evicted this second */
	cr_assert_eq(step(&st, smp(1, 7, 40000, 36000, 0, g), &o), DET_INFLOW);
	cr_assert_eq(o.inflow, 2001);
	g[3] += 2000;		/* exactly 10%: settled */
	cr_assert_eq(step(&st, smp(2, 7, 60000, 54000, 0, g), &o), DET_AGE);
}

/*
 * 6.1-6.13 (fault_to_max_seq): with four generations the working set's
 * RANDOM refaults go to F + 1, which is no reader; max_seq's growth is.
 * The rule for 6.14+ counts every generation above F.
 */
Test(detector, on_6_12_refaults_into_f_plus_1_are_no_inflow)
{
	struct det_params p612 = P;
	unsigned long g[4] = { 10000, 2000, 2000, 10000 };
	struct det_state a, b;
	struct det_out o;
	struct det_sample s;

	p612.fault_to_max_seq = true;
	det_init(&a);
	det_init(&b);
	s = smp(0, 7, 20000, 18000, 0, g);
	det_step(&a, &p612, &s, &o);
	det_step(&b, &P, &s, &o);
	g[1] += 5000;		/* refaults into F + 1 */
	s = smp(1, 7, 40000, 36000, 0, g);
	det_step(&a, &p612, &s, &o);
	cr_assert_eq(o.verdict, DET_AGE, "%s", det_verdict_name(o.verdict));
	det_step(&b, &P, &s, &o);
	cr_assert_eq(o.verdict, DET_INFLOW);
	cr_assert_eq(o.inflow, 5000);

	det_init(&a);
	g[1] = 2000;
	s = smp(0, 7, 20000, 18000, 0, g);
	det_step(&a, &p612, &s, &o);
	g[3] += 2001;		/* a reader's pages in max_seq */
	s = smp(1, 7, 40000, 36000, 0, g);
	det_step(&a, &p612, &s, &o);
	cr_assert_eq(o.verdict, DET_INFLOW);
	cr_assert_eq(o.inflow, 2001);
}

/*
 * 6.1-6.13 with four generations: F + 1 is where the working set's RANDOM
 * refaults go (after a burst, all it holds), nothing aging should put
 * behind the working set; F + 2 still is.  With three generations the
 * refaults go to F and F + 1 counts.  6.14+ counts F + 1 (less P).
 */
Test(detector, on_6_12_f_plus_1_of_four_generations_is_not_exposed)
{
	static const unsigned long f1[4] = { 10000, 8000, 0, 0 };
	static const unsigned long f2[4] = { 10000, 8000, 3000, 0 };
	struct det_params p612 = P;
	struct det_state st;
	struct det_out o;
	struct det_sample s;

	p612.fault_to_max_seq = true;
	det_init(&st);
	s = smp(0, 7, 20000, 18000, 0, f1);
	det_step(&st, &p612, &s, &o);
	cr_assert_eq(o.verdict, DET_NOTHING_EXPOSED, "%s", o.why);
	cr_assert_eq(o.above, 0);
	det_init(&st);
	s = smp(0, 7, 20000, 18000, 0, f2);
	det_step(&st, &p612, &s, &o);
	s = smp(1, 7, 40000, 36000, 0, f2);
	det_step(&st, &p612, &s, &o);
	cr_assert_eq(o.verdict, DET_AGE, "%s", o.why);
	cr_assert_eq(o.exposed_seq, 6);
	cr_assert_eq(o.steps, 3);
	det_init(&st);
	s = smp(0, 7, 20000, 18000, 0, f1);
	s.nr_gens = 3;		/* seqs 5, 6, 7 hold 10000, 8000, 0 */
	s.file_min_seq = 5;
	s.gens[0] = (struct det_gen){ 5, 10000 };
	s.gens[1] = (struct det_gen){ 6, 8000 };
	s.gens[2] = (struct det_gen){ 7, 0 };
	det_step(&st, &p612, &s, &o);
	cr_assert_eq(o.exposed, 8000, "three generations: F + 1 counts");
	det_init(&st);
	s = smp(0, 7, 20000, 18000, 0, f1);
	det_step(&st, &P, &s, &o);
	cr_assert_eq(o.exposed, 8000, "6.14+: F + 1 counts");
}

/*
 * max_seq moved without F (three generations became four): something
 * aged, the window starts again at the counters.
 */
Test(detector, aging_without_f_moving_restarts_the_window)
{
	static const unsigned long g[4] = { 10000, 4000, 10000, 0 };
	struct det_state st;
	struct det_out o;
	struct det_sample s = smp(0, 8, 20000, 18000, 0, g);

	s.nr_gens = 3;		/* 5 6 7: F = 5, max_seq 7 */
	s.max_seq = 7;
	s.file_min_seq = 5;
	s.gens[0].seq = 5;
	s.gens[1].seq = 6;
	s.gens[2].seq = 7;
	det_init(&st);
	step(&st, s, &o);
	cr_assert(o.thrashing);
	s = smp(1, 8, 21000, 18900, 0, g);	/* 5 6 7 8: F still 5 */
	cr_assert_eq(step(&st, s, &o), DET_HEALTHY, "%s", o.why);
	cr_assert_eq(o.evicted, 0, "the window starts here");
	cr_assert_not(o.thrashing, "max_seq moved: aging runs");
	s = smp(2, 8, 24000, 21600, 0, g);
	cr_assert_eq(step(&st, s, &o), DET_NOT_TURNED, "%s", o.why);
	cr_assert_eq(o.evicted, 3000);
}

/* F moved: its counters restarted, so the window starts at 0. */
Test(detector, f_moving_starts_from_zero)
{
	struct det_state st;
	struct det_out o;

	first_look(&st, &o);
	cr_assert_eq(step(&st, smp(1, 8, 6000, 5400, 0, LAYOUT), &o),
		     DET_HEALTHY, "F moved: the lruvec ages");
	cr_assert_not(o.thrashing);
	cr_assert_eq(o.evicted, 6000);
	cr_assert_eq(step(&st, smp(2, 8, 12000, 10800, 0, LAYOUT), &o),
		     DET_AGE);
}

/* Counters that went down (a reset the parser could not see) restart. */
Test(detector, counter_drop_restarts)
{
	struct det_state st;
	struct det_out o;

	first_look(&st, &o);
	step(&st, smp(1, 7, 40000, 36000, 0, LAYOUT), &o);
	det_aged(&st, 1000, 0);
	cr_assert_eq(step(&st, smp(2, 7, 100, 90, 0, LAYOUT), &o),
		     DET_NOT_TURNED);
	cr_assert_eq(o.evicted, 100);
}

/* After a burst the question starts again; the cap bounds the steps. */
Test(detector, aged_restarts_and_the_cap_holds)
{
	struct det_state st;
	struct det_out o;
	unsigned long e = 20000;
	unsigned int t = 0, ages = 0;

	det_init(&st);
	step(&st, smp(t++, 7, e, e * 9 / 10, 0, LAYOUT), &o);
	for (; t < 20; t++) {
		e += 20000;
		if (step(&st, smp(t, 7, e, e * 9 / 10, 0, LAYOUT), &o) ==
		    DET_AGE) {
			cr_assert_eq(o.steps, 4);
			det_aged(&st, t * 1000, o.steps);
			ages++;
			continue;
		}
		if (ages < 2)
			cr_assert_eq(o.verdict, DET_NOT_TURNED, "t=%u %s", t,
				     o.why);
	}
	cr_assert_eq(ages, 2, "8 steps a minute: two bursts of four");
	cr_assert_eq(o.verdict, DET_RATE_LIMITED);
	for (; t < 63; t++) {
		e += 20000;
		step(&st, smp(t, 7, e, e * 9 / 10, 0, LAYOUT), &o);
		if (o.verdict == DET_AGE)
			break;
	}
	cr_assert_eq(o.verdict, DET_AGE, "a minute after the first burst");
	cr_assert_geq(t, 60);
}

/*
 * After its own burst the detector waits for a whole turnover of F: pages
 * that reach F + 1 meanwhile (on 7.x the working set's refaults are
 * activated there) get no second burst at half a turnover.  The first
 * window that turns over whole ends the wait.
 */
Test(detector, a_burst_waits_for_a_whole_turnover)
{
	static const unsigned long folded[4] = { 10000, 0, 0, 0 };
	static const unsigned long back_above[4] = { 9000, 1000, 0, 0 };
	struct det_state st;
	struct det_out o;

	first_look(&st, &o);
	cr_assert_eq(step(&st, smp(1, 7, 40000, 36000, 0, LAYOUT), &o), DET_AGE);
	det_aged(&st, 1000, o.steps);
	/* the burst folded everything into F: F and max_seq moved */
	cr_assert_eq(step(&st, smp(2, 11, 0, 0, 0, folded), &o), DET_HEALTHY);
	cr_assert_eq(step(&st, smp(3, 11, 3000, 2500, 0, folded), &o),
		     DET_NOT_TURNED);
	/* 60% turned over, 83% refaulted, 10% above F: not yet */
	cr_assert_eq(step(&st, smp(4, 11, 6000, 5000, 0, back_above), &o),
		     DET_NOT_TURNED, "%s", o.why);
	cr_assert(strstr(o.why, "since the last burst"));
	cr_assert_eq(step(&st, smp(5, 11, 8000, 6600, 0, back_above), &o),
		     DET_NOT_TURNED);
	/* a whole turnover: the usual rule again (nothing grew above F) */
	cr_assert_eq(step(&st, smp(6, 11, 9500, 8000, 0, back_above), &o),
		     DET_AGE, "%s", o.why);
	det_init(&st);
	step(&st, smp(0, 11, 3000, 2500, 0, back_above), &o);
	cr_assert_eq(step(&st, smp(1, 11, 6000, 5000, 0, back_above), &o),
		     DET_AGE, "without a burst before, half a turnover does");
}

/* Dry run and a failed write count what was asked. */
Test(detector, dry_and_failed_count_toward_the_cap)
{
	struct det_state st;
	struct det_out o;

	first_look(&st, &o);
	cr_assert_eq(step(&st, smp(1, 7, 40000, 36000, 0, LAYOUT), &o),
		     DET_AGE);
	det_dry_aged(&st, 1000);
	cr_assert_eq(step(&st, smp(2, 7, 60000, 54000, 0, LAYOUT), &o),
		     DET_AGE);
	cr_assert_eq(o.evicted, 20000, "the window restarted at 40000");
	det_failed(&st, 2000);
	cr_assert_eq(step(&st, smp(3, 7, 80000, 72000, 0, LAYOUT), &o),
		     DET_RATE_LIMITED, "4 + 4 steps, 4 more exceed 8");
}

/*
 * A kernel that rejects every command: each failed burst costs its steps,
 * so the cap bounds the writes to max_agings_per_min / steps a minute
 * (two here), not one a step; the window stays between the failures.
 */
Test(detector, failed_bursts_count_their_steps)
{
	struct det_state st;
	struct det_out o;

	first_look(&st, &o);
	cr_assert_eq(step(&st, smp(1, 7, 40000, 36000, 0, LAYOUT), &o),
		     DET_AGE);
	det_failed(&st, 1000);
	cr_assert_eq(step(&st, smp(2, 7, 60000, 54000, 0, LAYOUT), &o),
		     DET_AGE, "the window stays: the next interval asks again");
	cr_assert_eq(o.evicted, 60000, "nothing aged: the window did not "
		     "restart");
	det_failed(&st, 2000);
	cr_assert_eq(step(&st, smp(3, 7, 80000, 72000, 0, LAYOUT), &o),
		     DET_RATE_LIMITED, "two failed bursts of 4 fill a cap of 8");
}

Test(detector, no_counters_is_healthy)
{
	struct det_state st;
	struct det_out o;
	struct det_sample s = smp(0, 7, 20000, 18000, 0, LAYOUT);

	det_init(&st);
	s.has_rep = false;
	cr_assert_eq(step(&st, s, &o), DET_HEALTHY);
	cr_assert_not(o.thrashing);
}

Test(detector, verdict_names)
{
	cr_assert_str_eq(det_verdict_name(DET_HEALTHY), "healthy");
	cr_assert_str_eq(det_verdict_name(DET_NOT_TURNED), "not_turned_over");
	cr_assert_str_eq(det_verdict_name(DET_NOT_REFAULTING),
			 "not_refaulting");
	cr_assert_str_eq(det_verdict_name(DET_NOTHING_EXPOSED),
			 "nothing_exposed");
	cr_assert_str_eq(det_verdict_name(DET_INFLOW), "inflow");
	cr_assert_str_eq(det_verdict_name(DET_AGE), "age");
	cr_assert_str_eq(det_verdict_name(DET_RATE_LIMITED), "rate_limited");
	cr_assert_str_eq(det_verdict_name((enum det_verdict)99), "?");
}
