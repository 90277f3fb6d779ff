// SPDX-License-Identifier: MIT
/*
 * test_adapt.c - the adaptive advice's state machine (adapt/adapt.c) fed
 * timelines: fits, does not fit, flapping at the boundary that the
 * hysteresis must suppress, a limit raised and lowered mid-run, normal
 * advice thrashing in the band, a cold read, unreadable figures, no
 * limit, a memcg guarded by advshim-watch.  Sizes are stated relative to the parameters (fit_pct, ...), so
 * the timelines keep their meaning when the defaults are retuned.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "adapt/adapt.h"

#define MIB		(1024ULL * 1024)
#define LIMIT		(128 * MIB)
#define ANON		(3 * MIB)
#define CAP		(LIMIT - ANON)	/* capacity with the memcg full */

/* What the memcg and the process look like during one second. */
struct world {
	unsigned int ratio_pct;		/* need, % of CAP */
	unsigned int resident_pct;	/* % of need */
	unsigned int usage_pct;		/* % of LIMIT */
	uint64_t majflt_s;
	uint64_t refault_s;		/* the memcg's */
	int status;			/* != 0: the sample is unreadable */
	uint64_t limit;			/* 0: LIMIT */
	bool guarded;			/* advshim-watch's mark is fresh */
};

struct run {
	struct adapt_params p;
	struct adapt_state s;
	uint64_t t_ms, majflt, refault;
	unsigned int nr_switched;	/* steps with switched */
	uint64_t switch_t[64];
};

static void run_init(struct run *r)
{
	memset(r, 0, sizeof(*r));
	adapt_params_default(&r->p);
	adapt_init(&r->s, &r->p, ADAPT_RANDOM);
}

/* One sample at t_ms, then t_ms += 1 s. */
static struct adapt_verdict step(struct run *r, struct world w)
{
	uint64_t limit = w.limit ? w.limit : LIMIT;
	uint64_t cap = limit == ADAPT_NO_LIMIT ? CAP : limit - ANON;
	struct adapt_sample x = {
		.t_ms = r->t_ms,
		.status = w.status,
		.limit = limit,
		.usage = limit == ADAPT_NO_LIMIT ? 0 :
			(uint64_t)w.usage_pct * limit / 100,
		.mem_avail = limit == ADAPT_NO_LIMIT ? CAP : 0,
		.need = (uint64_t)w.ratio_pct * cap / 100,
	};
	struct adapt_verdict v;

	x.file = x.usage > ANON ? x.usage - ANON : 0;
	x.guarded = w.guarded;
	x.resident = x.need * w.resident_pct / 100;
	r->majflt += w.majflt_s;
	x.majflt = r->majflt;
	r->refault += w.refault_s;
	x.refault = r->refault;
	v = adapt_step(&r->s, &x);
	if (v.switched && r->nr_switched < 64)
		r->switch_t[r->nr_switched++] = r->t_ms;
	r->t_ms += 1000;
	return v;
}

/* @n seconds of @w; returns the last verdict. */
static struct adapt_verdict hold(struct run *r, struct world w,
				 unsigned int n)
{
	struct adapt_verdict v = { 0 };

	while (n--)
		v = step(r, w);
	return v;
}

/* A healthy memcg around a file of @ratio % of the capacity. */
static struct world calm(unsigned int ratio)
{
	return (struct world){ .ratio_pct = ratio, .resident_pct = 100,
			       .usage_pct = 98, .majflt_s = 0 };
}

/* Hysteresis: never two switches within dwell, never more per minute. */
static void assert_hysteresis(const struct run *r)
{
	for (unsigned int i = 1; i < r->nr_switched; i++) {
		cr_assert_geq(r->switch_t[i] - r->switch_t[i - 1], r->p.dwell_ms,
			      "switches at %llu and %llu ms",
			      (unsigned long long)r->switch_t[i - 1],
			      (unsigned long long)r->switch_t[i]);
		if (i >= r->p.max_per_min)
			cr_assert_geq(r->switch_t[i] - r->switch_t[i - r->p.max_per_min],
				      60000);
	}
}

Test(adapt, fits_goes_normal_at_once_and_never_switches)
{
	struct run r;
	struct adapt_verdict v;

	run_init(&r);
	v = step(&r, (struct world){ .ratio_pct = r.p.fit_pct - 10,
				      .usage_pct = 5 });	/* cold cache */
	cr_assert_eq(v.choice, ADAPT_NORMAL);
	cr_assert_eq(v.reason, ADAPT_R_FITS);
	cr_assert(v.switched, "the first decision applies normal advice");
	cr_assert_eq(r.s.switches, 0, "but is not counted as a switch");
	/* warm-up: residency and usage grow, faults are high */
	for (unsigned int i = 1; i <= 20; i++)
		v = step(&r, (struct world){ .ratio_pct = r.p.fit_pct - 10,
					      .resident_pct = 5 * i, .usage_pct = 5 * i,
					      .majflt_s = 5000 });
	v = hold(&r, calm(r.p.fit_pct - 10), 600);
	cr_assert_eq(v.choice, ADAPT_NORMAL);
	cr_assert_eq(r.s.switches, 0);
	cr_assert_eq(r.nr_switched, 1);
	cr_assert_eq(r.s.held, 0);
}

Test(adapt, does_not_fit_keeps_random_and_never_switches)
{
	struct run r;
	struct adapt_verdict v;

	run_init(&r);
	v = step(&r, (struct world){ .ratio_pct = 200, .usage_pct = 5 });
	cr_assert_eq(v.choice, ADAPT_RANDOM);
	cr_assert_eq(v.reason, ADAPT_R_NOFIT);
	cr_assert_not(v.switched);
	cr_assert_eq(v.ratio_pct, 200);
	/* steady state: memcg full, half the file resident, faulting */
	v = hold(&r, (struct world){ .ratio_pct = 200, .resident_pct = 48,
				      .usage_pct = 99, .majflt_s = 3000 }, 600);
	cr_assert_eq(v.choice, ADAPT_RANDOM);
	cr_assert_eq(r.nr_switched, 0);
	cr_assert_eq(r.s.switches, 0);
}

Test(adapt, the_band_starts_random_and_stays)
{
	struct run r;
	unsigned int mid;
	struct adapt_verdict v;

	run_init(&r);
	mid = (r.p.fit_pct + r.p.nofit_pct) / 2;
	v = step(&r, calm(mid));
	cr_assert_eq(v.choice, ADAPT_RANDOM);
	cr_assert_eq(v.reason, ADAPT_R_BAND);
	v = hold(&r, (struct world){ .ratio_pct = mid, .resident_pct = 60,
				      .usage_pct = 99, .majflt_s = 3000 }, 600);
	cr_assert_eq(v.choice, ADAPT_RANDOM);
	cr_assert_eq(r.nr_switched, 0);
}

Test(adapt, flapping_shorter_than_persist_never_switches)
{
	struct run r;
	unsigned int i;

	run_init(&r);
	step(&r, calm(r.p.fit_pct - 5));
	for (i = 0; i < 600; i++) {
		unsigned int phase = (i / (r.p.persist - 1)) % 2;

		step(&r, calm(phase ? r.p.nofit_pct + 5 :
						     r.p.fit_pct - 5));
	}
	cr_assert_eq(r.s.switches, 0, "%llu switches",
		     (unsigned long long)r.s.switches);
	cr_assert_eq(r.nr_switched, 1, "only the first decision");
	cr_assert_eq(r.s.held, 0, "not persistent is not held back");
}

Test(adapt, flapping_at_the_boundary_is_rate_limited)
{
	struct run r;
	unsigned int i;

	run_init(&r);
	/* the need crosses both thresholds every persist + 1 s for 10 min */
	for (i = 0; i < 600; i++) {
		unsigned int phase = (i / (r.p.persist + 1)) % 2;

		step(&r, calm(phase ? r.p.nofit_pct + 5 :
						     r.p.fit_pct - 5));
	}
	assert_hysteresis(&r);
	cr_assert_gt(r.s.switches, 0);
	cr_assert_leq(r.s.switches, 600000 / r.p.dwell_ms);
	cr_assert_gt(r.s.held, 0);
}

Test(adapt, limit_raised_mid_run)
{
	struct run r;
	struct adapt_verdict v;
	uint64_t raised;

	run_init(&r);
	v = hold(&r, (struct world){ .ratio_pct = 200, .resident_pct = 48,
				      .usage_pct = 99, .majflt_s = 3000 }, 60);
	cr_assert_eq(v.choice, ADAPT_RANDOM);
	/* the limit goes from 128 MiB to 512 MiB: the same 250 MiB are 49% */
	raised = r.t_ms;
	for (unsigned int i = 0; i < r.p.persist; i++)
		v = step(&r, (struct world){ .ratio_pct = 49, .resident_pct = 48,
					      .usage_pct = 30, .majflt_s = 3000,
					      .limit = 4 * LIMIT });
	cr_assert_eq(v.choice, ADAPT_NORMAL, "reason %s", adapt_reason_name(v.reason));
	cr_assert(v.switched);
	cr_assert_eq(v.reason, ADAPT_R_FITS);
	cr_assert_eq(r.switch_t[0], raised + (r.p.persist - 1) * 1000);
	cr_assert_lt(v.ratio_pct, r.p.fit_pct);
	v = hold(&r, (struct world){ .ratio_pct = 49, .resident_pct = 100,
				      .usage_pct = 60, .limit = 4 * LIMIT }, 300);
	cr_assert_eq(r.s.switches, 1);
}

Test(adapt, limit_lowered_mid_run)
{
	struct run r;
	struct adapt_verdict v;

	run_init(&r);
	v = hold(&r, calm(r.p.fit_pct - 20), 60);
	cr_assert_eq(v.choice, ADAPT_NORMAL);
	/* a neighbour's limit cut: the same file is now twice the room */
	v = hold(&r, (struct world){ .ratio_pct = 2 * (r.p.fit_pct - 20),
				      .resident_pct = 50, .usage_pct = 99,
				      .majflt_s = 4000 }, r.p.persist - 1);
	cr_assert_eq(v.choice, ADAPT_NORMAL);
	cr_assert_eq(v.reason, ADAPT_R_PERSIST);
	v = step(&r, (struct world){ .ratio_pct = 2 * (r.p.fit_pct - 20),
				      .resident_pct = 50, .usage_pct = 99,
				      .majflt_s = 4000 });
	cr_assert_eq(v.choice, ADAPT_RANDOM);
	cr_assert_eq(v.reason, ADAPT_R_NOFIT);
	cr_assert(v.switched);
	hold(&r, (struct world){ .ratio_pct = 2 * (r.p.fit_pct - 20),
				  .resident_pct = 50, .usage_pct = 99,
				  .majflt_s = 4000 }, 300);
	cr_assert_eq(r.s.switches, 1);
}

Test(adapt, a_switch_waits_for_the_dwell_time)
{
	struct run r;
	struct adapt_verdict v;

	run_init(&r);
	step(&r, calm(r.p.fit_pct - 10));	/* normal at t=0 */
	v = hold(&r, calm(r.p.nofit_pct + 10), r.p.persist);
	cr_assert_eq(v.choice, ADAPT_NORMAL, "the first decision starts the dwell");
	cr_assert_eq(v.reason, ADAPT_R_DWELL);
	while (r.t_ms <= r.p.dwell_ms)
		v = step(&r, calm(r.p.nofit_pct + 10));
	cr_assert_eq(v.choice, ADAPT_RANDOM);
	cr_assert_eq(r.switch_t[1], r.p.dwell_ms);
}

Test(adapt, normal_thrashing_in_the_band_goes_random_once)
{
	struct run r;
	struct adapt_verdict v;
	unsigned int mid;
	struct world thrash;

	run_init(&r);
	mid = (r.p.fit_pct + r.p.nofit_pct) / 2;
	hold(&r, calm(r.p.fit_pct), 60);	/* fits: normal */
	/* read-around: each fault refaults what the last ones evicted */
	thrash = (struct world){ .ratio_pct = mid, .resident_pct = 85,
				 .usage_pct = 99, .majflt_s = 400,
				 .refault_s = 400 * r.p.thrash_refaults };
	v = hold(&r, thrash, r.p.thrash_persist - 1);
	cr_assert_eq(v.choice, ADAPT_NORMAL);
	v = step(&r, thrash);
	cr_assert_eq(v.choice, ADAPT_RANDOM);
	cr_assert_eq(v.reason, ADAPT_R_THRASH);
	/* RANDOM in the band stays, whatever the faults do */
	v = hold(&r, calm(mid), 600);
	cr_assert_eq(v.choice, ADAPT_RANDOM);
	cr_assert_eq(v.reason, ADAPT_R_BAND);
	cr_assert_eq(r.s.switches, 1);
}

/* The OpenSearch node of the lab: need ~98% of capacity, normal keeps
 * faulting after a cold read (3 refaults a fault: no band thrash). */
static struct world faulting(unsigned int ratio, bool guarded)
{
	return (struct world){ .ratio_pct = ratio, .resident_pct = 95,
			       .usage_pct = 99, .majflt_s = 300,
			       .refault_s = 900, .guarded = guarded };
}

static struct world guarded_calm(unsigned int ratio)
{
	struct world w = calm(ratio);

	w.guarded = true;
	return w;
}

/*
 * A fresh run, a minute calm at a ratio between guard_fit_pct and
 * fit_pct (returned): normal, guarded as @guarded says.
 */
static unsigned int near_boundary(struct run *r, bool guarded)
{
	unsigned int near;
	struct world w;

	run_init(r);
	near = (r->p.guard_fit_pct + r->p.fit_pct) / 2;
	w = calm(near);
	w.guarded = guarded;
	cr_assert_eq(hold(r, w, 60).choice, ADAPT_NORMAL,
		     "fits: normal, guarded or not");
	return near;
}

Test(adapt, guarded_normal_that_keeps_faulting_goes_random_and_stays)
{
	struct run r;
	struct adapt_verdict v;
	unsigned int near;

	near = near_boundary(&r, true);
	v = hold(&r, faulting(near, true), r.p.thrash_persist - 1);
	cr_assert_eq(v.choice, ADAPT_NORMAL);
	v = step(&r, faulting(near, true));
	cr_assert_eq(v.choice, ADAPT_RANDOM);
	cr_assert_eq(v.reason, ADAPT_R_GUARD_THRASH);
	v = hold(&r, guarded_calm(near), 600);
	cr_assert_eq(v.choice, ADAPT_RANDOM, "fits, but above guard_fit_pct");
	cr_assert_eq(v.reason, ADAPT_R_GUARDED);
	v = hold(&r, guarded_calm(r.p.guard_fit_pct), r.p.persist);
	cr_assert_eq(v.choice, ADAPT_NORMAL, "at guard_fit_pct: normal again");
	cr_assert_eq(r.s.switches, 2);
	assert_hysteresis(&r);
}

Test(adapt, unguarded_the_same_faults_keep_normal)
{
	struct run r;
	struct adapt_verdict v;
	unsigned int near;

	near = near_boundary(&r, false);
	v = hold(&r, faulting(near, false), 600);
	cr_assert_eq(v.choice, ADAPT_NORMAL);
	cr_assert_eq(r.s.switches, 0);
}

Test(adapt, guarded_short_faults_and_faults_well_below_keep_normal)
{
	struct run r;
	struct adapt_verdict v;
	unsigned int near;

	near = near_boundary(&r, true);
	/* a cold read: normal readers fault for less than thrash_persist */
	hold(&r, faulting(near, true), r.p.thrash_persist - 1);
	v = hold(&r, guarded_calm(near), 60);
	cr_assert_eq(v.choice, ADAPT_NORMAL);
	/* well below guard_fit_pct the file fits with room: not guarded's */
	v = hold(&r, faulting(r.p.guard_fit_pct, true), 600);
	cr_assert_eq(v.choice, ADAPT_NORMAL);
	/* guard_fit_pct 0: the mark is ignored */
	run_init(&r);
	r.p.guard_fit_pct = 0;
	adapt_init(&r.s, &r.p, ADAPT_RANDOM);
	hold(&r, guarded_calm(near), 60);
	v = hold(&r, faulting(near, true), 600);
	cr_assert_eq(v.choice, ADAPT_NORMAL);
	cr_assert_eq(r.s.switches, 0);
}

Test(adapt, a_mark_that_goes_away_lets_random_back_to_normal)
{
	struct run r;
	struct adapt_verdict v;
	unsigned int near;

	near = near_boundary(&r, true);
	v = hold(&r, faulting(near, true), r.p.thrash_persist);
	cr_assert_eq(v.choice, ADAPT_RANDOM);
	/* the watcher stopped: RANDOM would stall unguarded; the file fits */
	v = hold(&r, calm(near), r.p.dwell_ms / 1000 + r.p.persist);
	cr_assert_eq(v.choice, ADAPT_NORMAL);
	cr_assert_eq(v.reason, ADAPT_R_FITS);
	assert_hysteresis(&r);
}

/*
 * RANDOM the guarded rule took in the band is the stall it was taken on
 * once the watcher is gone: back to normal after `persist` unguarded
 * samples (a watcher's restart, shorter, keeps it); RANDOM the size rule
 * took stays there.
 */
Test(adapt, random_of_the_guarded_rule_in_the_band_ends_with_the_mark)
{
	unsigned int band;
	struct adapt_verdict v;
	struct run r;

	near_boundary(&r, true);
	band = (r.p.fit_pct + r.p.nofit_pct) / 2;
	v = hold(&r, faulting(band, true), r.p.thrash_persist);
	cr_assert_eq(v.choice, ADAPT_RANDOM);
	cr_assert_eq(v.reason, ADAPT_R_GUARD_THRASH);
	hold(&r, guarded_calm(band), r.p.dwell_ms / 1000);
	hold(&r, calm(band), r.p.persist - 1);
	v = hold(&r, guarded_calm(band), 5);
	cr_assert_eq(v.choice, ADAPT_RANDOM, "a gap shorter than persist");
	v = hold(&r, calm(band), r.p.persist);
	cr_assert_eq(v.choice, ADAPT_NORMAL, "%s", adapt_reason_name(v.reason));
	cr_assert_eq(v.reason, ADAPT_R_UNGUARDED);
	assert_hysteresis(&r);

	run_init(&r);
	v = hold(&r, calm(r.p.nofit_pct), r.p.persist);
	cr_assert_eq(v.choice, ADAPT_RANDOM);
	v = hold(&r, calm(band), 600);
	cr_assert_eq(v.choice, ADAPT_RANDOM, "the size rule's RANDOM stays");
	cr_assert_eq(v.reason, ADAPT_R_BAND);
}

/*
 * A sampler started again (a fork child's) goes on from the state: guarded
 * RANDOM near the boundary stays RANDOM (a first decision by size alone
 * would say "fits"), RANDOM the guarded rule took still ends with the
 * mark, the dwell time still holds, the runs and the fault rates start
 * over, and a state never measured still decides by size.
 */
Test(adapt, a_resumed_state_goes_on_from_the_decision)
{
	unsigned int near, band;
	struct adapt_verdict v;
	struct world w;
	struct run r;

	run_init(&r);
	near = (r.p.guard_fit_pct + r.p.fit_pct) / 2;
	band = (r.p.fit_pct + r.p.nofit_pct) / 2;
	cr_assert_eq(step(&r, calm(r.p.nofit_pct)).choice, ADAPT_RANDOM);
	v = hold(&r, guarded_calm(near), 60);
	cr_assert_eq(v.reason, ADAPT_R_GUARDED);
	hold(&r, calm(near), r.p.persist - 1);
	adapt_resume(&r.s);
	w = calm(near);
	w.majflt_s = 100;
	v = step(&r, w);
	cr_assert_eq(v.choice, ADAPT_RANDOM, "the run towards fits starts over");
	cr_assert_eq(v.majflt_s, 0, "no rate from the parent's count");
	v = hold(&r, calm(near), r.p.persist - 1);
	cr_assert_eq(v.choice, ADAPT_NORMAL, "%s", adapt_reason_name(v.reason));
	cr_assert_eq(v.reason, ADAPT_R_FITS);
	adapt_resume(&r.s);
	v = hold(&r, calm(r.p.nofit_pct), r.p.persist);
	cr_assert_eq(v.choice, ADAPT_NORMAL, "within dwell: held");
	cr_assert_eq(v.reason, ADAPT_R_DWELL);

	near_boundary(&r, true);
	v = hold(&r, faulting(band, true), r.p.thrash_persist);
	cr_assert_eq(v.reason, ADAPT_R_GUARD_THRASH);
	hold(&r, guarded_calm(band), r.p.dwell_ms / 1000);
	adapt_resume(&r.s);
	v = hold(&r, guarded_calm(band), 5);
	cr_assert_eq(v.choice, ADAPT_RANDOM);
	v = hold(&r, calm(band), r.p.persist);
	cr_assert_eq(v.choice, ADAPT_NORMAL, "%s", adapt_reason_name(v.reason));
	cr_assert_eq(v.reason, ADAPT_R_UNGUARDED);

	run_init(&r);
	v = step(&r, (struct world){ .status = -EIO });
	adapt_resume(&r.s);
	v = step(&r, calm(near));
	cr_assert_eq(v.choice, ADAPT_NORMAL, "never measured: by size");
	cr_assert_eq(v.reason, ADAPT_R_FITS);
}

Test(adapt, a_cold_read_does_not_switch)
{
	struct run r;
	struct adapt_verdict v;
	unsigned int mid;

	run_init(&r);
	mid = (r.p.fit_pct + r.p.nofit_pct) / 2;
	hold(&r, calm(r.p.fit_pct), 30);
	/* in the fits region: a long backup pushes the file out for 2 min */
	v = hold(&r, (struct world){ .ratio_pct = r.p.fit_pct, .resident_pct = 40,
				      .usage_pct = 100, .majflt_s = 5000,
				      .refault_s = 100000 }, 120);
	cr_assert_eq(v.choice, ADAPT_NORMAL);
	/* in the band: shorter than thrash_persist */
	hold(&r, calm(mid), 10);
	v = hold(&r, (struct world){ .ratio_pct = mid, .resident_pct = 60,
				      .usage_pct = 100, .majflt_s = 5000,
				      .refault_s = 100000 },
		 r.p.thrash_persist - 1);
	v = hold(&r, calm(mid), 60);
	cr_assert_eq(v.choice, ADAPT_NORMAL);
	/* idle (no faults), a memcg with room, few refaults per fault (the
	 * lab's 1.01x file: 544 faults/s, 785 refaults/s): no thrash */
	hold(&r, (struct world){ .ratio_pct = mid, .resident_pct = 60,
				  .usage_pct = 100, .majflt_s = 0,
				  .refault_s = 100000 }, 120);
	hold(&r, (struct world){ .ratio_pct = mid, .resident_pct = 60,
				  .usage_pct = 80, .majflt_s = 5000,
				  .refault_s = 100000 }, 120);
	v = hold(&r, (struct world){ .ratio_pct = mid, .resident_pct = 99,
				      .usage_pct = 100, .majflt_s = 544,
				      .refault_s = 785 }, 120);
	cr_assert_eq(v.choice, ADAPT_NORMAL);
	cr_assert_eq(r.s.switches, 0);
}

Test(adapt, unreadable_figures_fall_back_to_random)
{
	struct run r;
	struct adapt_verdict v;
	struct world gone = { .status = -ENOENT };
	uint64_t fell;

	run_init(&r);
	hold(&r, calm(r.p.fit_pct - 10), 60);
	v = hold(&r, gone, r.p.fail_after - 1);
	cr_assert_eq(v.choice, ADAPT_NORMAL, "a short failure holds the choice");
	cr_assert_eq(v.status, -ENOENT);
	v = step(&r, gone);
	cr_assert_eq(v.choice, ADAPT_RANDOM);
	cr_assert_eq(v.reason, ADAPT_R_UNREADABLE);
	cr_assert(v.switched);
	fell = r.t_ms - 1000;
	v = hold(&r, gone, 5);
	cr_assert_eq(v.choice, ADAPT_RANDOM);
	cr_assert_eq(r.s.switches, 1);
	/* readable again, fits: back to normal after the dwell time */
	while (r.t_ms < fell + r.p.dwell_ms) {
		v = step(&r, calm(r.p.fit_pct - 10));
		cr_assert_eq(v.choice, ADAPT_RANDOM);
	}
	v = step(&r, calm(r.p.fit_pct - 10));
	cr_assert_eq(v.choice, ADAPT_NORMAL);
	cr_assert_eq(r.s.switches, 2);
	assert_hysteresis(&r);
}

Test(adapt, unreadable_from_the_start_keeps_the_applications_advice)
{
	struct run r;
	struct adapt_verdict v;

	run_init(&r);
	v = step(&r, (struct world){ .status = -EACCES });
	cr_assert_eq(v.choice, ADAPT_RANDOM);
	cr_assert_eq(v.reason, ADAPT_R_START);
	v = hold(&r, (struct world){ .status = -EACCES }, r.p.fail_after);
	cr_assert_eq(v.reason, ADAPT_R_UNREADABLE);
	cr_assert_not(v.switched);
	/* the first good sample decides at once */
	v = step(&r, calm(r.p.fit_pct - 10));
	cr_assert_eq(v.choice, ADAPT_NORMAL);
	cr_assert_eq(r.s.switches, 0);
}

Test(adapt, no_limit_uses_the_machines_memory)
{
	struct run r;
	struct adapt_verdict v;

	run_init(&r);
	v = step(&r, (struct world){ .ratio_pct = 50, .resident_pct = 0,
				      .limit = ADAPT_NO_LIMIT });
	cr_assert_eq(v.choice, ADAPT_NORMAL);
	cr_assert_eq(v.capacity, CAP, "MemAvailable is the room");
	cr_assert_eq(v.usage_pct, 0);
	/* no limit and MemAvailable unknown: unreadable */
	for (unsigned int i = 0; i < r.p.fail_after; i++) {
		struct adapt_sample x = { .t_ms = r.t_ms, .limit = ADAPT_NO_LIMIT };

		v = adapt_step(&r.s, &x);
		r.t_ms += 1000;
	}
	cr_assert_eq(v.choice, ADAPT_RANDOM);
	cr_assert_eq(v.reason, ADAPT_R_UNREADABLE);
	cr_assert_eq(v.status, -ENODATA);
}

Test(adapt, capacity_counts_page_cache_as_room_and_the_machine_as_a_bound)
{
	struct adapt_params p;
	struct adapt_state s;
	struct adapt_verdict v;
	struct adapt_sample x = {
		.limit = LIMIT, .usage = LIMIT, .file = LIMIT - ANON,
		.need = 100 * MIB,
	};

	adapt_params_default(&p);
	adapt_init(&s, &p, ADAPT_RANDOM);
	v = adapt_step(&s, &x);
	cr_assert_eq(v.capacity, CAP, "a full memcg of page cache is all room");
	x.t_ms = 1000;
	x.mem_avail = 64 * MIB;		/* the machine has less than the limit */
	v = adapt_step(&s, &x);
	cr_assert_eq(v.capacity, 64 * MIB);
	x.t_ms = 2000;
	x.mem_avail = 0;
	x.file = 0;			/* all anon: no room at all */
	v = adapt_step(&s, &x);
	cr_assert_eq(v.capacity, 0);
	cr_assert_eq(v.ratio_pct, 100000);
}

Test(adapt, time_and_counters_going_backwards)
{
	struct adapt_params p;
	struct adapt_state s;
	struct adapt_verdict v;
	struct adapt_sample x = {
		.t_ms = 10000, .limit = LIMIT, .usage = LIMIT,
		.file = LIMIT - ANON, .need = 50 * MIB, .majflt = 1000,
	};

	adapt_params_default(&p);
	adapt_init(&s, &p, ADAPT_RANDOM);
	adapt_step(&s, &x);
	x.t_ms = 11000;
	x.majflt = 1500;
	v = adapt_step(&s, &x);
	cr_assert_eq(v.majflt_s, 500);
	x.t_ms = 5000;			/* a clock step back: no time passed */
	x.majflt = 1600;
	v = adapt_step(&s, &x);
	cr_assert_eq(v.t_ms, 11000);
	cr_assert_eq(v.majflt_s, 0);
	x.t_ms = 12000;
	x.majflt = 10;			/* a fork child's own counter */
	v = adapt_step(&s, &x);
	cr_assert_eq(v.majflt_s, 0);
	x.t_ms = 13000;
	x.majflt = 110;
	v = adapt_step(&s, &x);
	cr_assert_eq(v.majflt_s, 100);
}

Test(adapt, params_check)
{
	struct adapt_params p;
	const char *what = "x";

	adapt_params_default(&p);
	cr_assert_eq(adapt_params_check(&p, &what), 0);
	cr_assert_null(what);
	p.nofit_pct = p.fit_pct;
	cr_assert_eq(adapt_params_check(&p, &what), -EINVAL);
	cr_assert_str_eq(what, "nofit_pct");
	adapt_params_default(&p);
	p.max_per_min = ADAPT_RATE_SLOTS + 1;
	cr_assert_eq(adapt_params_check(&p, &what), -EINVAL);
	cr_assert_str_eq(what, "max_per_min");
	adapt_params_default(&p);
	p.persist = 0;
	cr_assert_eq(adapt_params_check(&p, NULL), -EINVAL);
	adapt_params_default(&p);
	p.fail_after = 0;
	cr_assert_eq(adapt_params_check(&p, &what), -EINVAL);
	cr_assert_str_eq(what, "fail_after");
	adapt_params_default(&p);
	p.thrash_refaults = 0;
	cr_assert_eq(adapt_params_check(&p, &what), -EINVAL);
	cr_assert_str_eq(what, "thrash_refaults");
	adapt_params_default(&p);
	p.guard_fit_pct = 1001;
	cr_assert_eq(adapt_params_check(&p, &what), -EINVAL);
	cr_assert_str_eq(what, "guard_fit_pct");
	p.guard_fit_pct = 0;
	cr_assert_eq(adapt_params_check(&p, &what), 0, "0: the mark ignored");
}

Test(adapt, describe)
{
	struct adapt_verdict v = {
		.choice = ADAPT_NORMAL, .reason = ADAPT_R_FITS,
		.need = 120 * MIB, .capacity = 125 * MIB, .ratio_pct = 96,
		.resident_pct = 100, .usage_pct = 98, .majflt_s = 3,
		.refault_s = 40,
	};
	char buf[160], small[8];

	cr_assert_eq(adapt_describe(&v, buf, sizeof(buf)), strlen(buf));
	cr_assert_str_eq(buf, "normal (fits: need 120 MiB = 96% of capacity 125 MiB, "
			 "resident 100%, usage 98%, 3 majflt/s, 40 refaults/s)");
	cr_assert_eq(adapt_describe(&v, small, sizeof(small)), 7);
	cr_assert_str_eq(small, "normal ");
	v.need = 2 * MIB + 512 * 1024;	/* small files in KiB */
	adapt_describe(&v, buf, sizeof(buf));
	cr_assert(strstr(buf, "need 2560 KiB = 96% of capacity 125 MiB"), "%s", buf);
	v.guarded = true;
	adapt_describe(&v, buf, sizeof(buf));
	cr_assert(strstr(buf, "40 refaults/s, guarded)"), "%s", buf);
	v = (struct adapt_verdict){ .choice = ADAPT_RANDOM,
				    .reason = ADAPT_R_UNREADABLE, .status = -ENOENT };
	adapt_describe(&v, buf, sizeof(buf));
	cr_assert_str_eq(buf, "random (memcg unreadable: error 2)");
	cr_assert_str_eq(adapt_reason_name(ADAPT_R_NR), "?");
}
