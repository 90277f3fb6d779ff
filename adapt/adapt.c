// SPDX-License-Identifier: MIT
/*
 * adapt.c - the adaptive advice's state machine (see adapt.h and
 * docs/adaptive.md for the rule and why).
 *
 * A size test decides: the group's mapped bytes ("need") against the
 * room the memory cgroup leaves for page cache ("capacity": the limit
 * minus what is not page cache, or the machine's MemAvailable without a
 * limit).  need <= fit_pct% of capacity: normal advice (the whole file
 * can be cached, read-around only brings pages forward; RANDOM would
 * stall MGLRU after a cold read and warm up one page per fault).  need >=
 * nofit_pct%: RANDOM (read-around evicts what the next query needs).
 * Between the two the choice stays, unless normal advice visibly thrashes
 * there (memcg full, faulting, and each fault refaulting several pages
 * that read-around brought and reclaim evicted), which sends it to
 * RANDOM; from RANDOM only a size verdict of "fits" leads back, so the
 * band cannot flap.
 *
 * Guarded (a live advshim-watch marks the memcg, common/guard.h): RANDOM's
 * one failure, the stall after a cold read, is ended by the watcher, while
 * normal advice near the boundary keeps faulting through read-around
 * after a cold read for good.  So a guarded group gives normal up above
 * guard_fit_pct when the memcg is full and the process keeps faulting,
 * and goes back to normal only at or below guard_fit_pct.  RANDOM taken
 * that way goes back to normal once the mark is gone (`persist` samples)
 * in the band too: without the watcher it is the stall it was taken on.
 *
 * Hysteresis: a size verdict must hold `persist` samples, a thrash
 * verdict `thrash_persist`; switches are at least `dwell_ms` apart and at
 * most `max_per_min` in any 60 s.  Unreadable figures keep the choice
 * for `fail_after - 1` samples, then fall back to RANDOM, the
 * application's own advice.
 */
#include <errno.h>
#include <string.h>

#include "adapt/adapt.h"

#define RATIO_CAP	100000u		/* % shown when capacity is ~0 */
#define MIB		(1024 * 1024)

void adapt_params_default(struct adapt_params *p)
{
	*p = (struct adapt_params){
		.fit_pct = 100,
		.nofit_pct = 120,
		.guard_fit_pct = 90,
		.persist = 3,
		.thrash_persist = 30,
		.thrash_usage_pct = 95,
		.thrash_majflt_s = 50,
		.thrash_refaults = 4,
		.dwell_ms = 30000,
		.max_per_min = 2,
		.fail_after = 3,
	};
}

int adapt_params_check(const struct adapt_params *p, const char **what)
{
	const char *bad = NULL;

	if (!p->fit_pct || p->fit_pct > 1000)
		bad = "fit_pct";
	else if (p->nofit_pct <= p->fit_pct || p->nofit_pct > 1000)
		bad = "nofit_pct";
	else if (p->guard_fit_pct > 1000)
		bad = "guard_fit_pct";
	else if (!p->persist || !p->thrash_persist)
		bad = p->persist ? "thrash_persist" : "persist";
	else if (!p->thrash_refaults)
		bad = "thrash_refaults";
	else if (!p->thrash_usage_pct || p->thrash_usage_pct > 100)
		bad = "thrash_usage_pct";
	else if (!p->max_per_min || p->max_per_min > ADAPT_RATE_SLOTS)
		bad = "max_per_min";
	else if (!p->fail_after)
		bad = "fail_after";
	if (what)
		*what = bad;
	return bad ? -EINVAL : 0;
}

void adapt_init(struct adapt_state *s, const struct adapt_params *p,
		enum adapt_choice initial)
{
	memset(s, 0, sizeof(*s));
	s->p = *p;
	s->choice = initial;
	s->last.choice = initial;
	s->last.reason = ADAPT_R_START;
}

/* The runs the size and thrash tests count towards a switch start over. */
static void clear_runs(struct adapt_state *s)
{
	s->fits_run = s->nofit_run = s->thrash_run = s->guard_run = 0;
}

void adapt_resume(struct adapt_state *s)
{
	s->have_prev = false;
	clear_runs(s);
	s->fail_run = s->unguard_run = 0;
}

/* a * 100 / b, capped; b == 0 gives the cap. */
static unsigned int pct(uint64_t a, uint64_t b)
{
	unsigned __int128 r;

	if (!b)
		return a ? RATIO_CAP : 0;
	r = (unsigned __int128)a * 100 / b;
	return r > RATIO_CAP ? RATIO_CAP : (unsigned int)r;
}

/* Room for page cache: the limit minus what is not page cache. */
static uint64_t capacity_of(const struct adapt_sample *x)
{
	uint64_t nonfile = x->usage > x->file ? x->usage - x->file : 0;
	uint64_t cap;

	if (x->limit == ADAPT_NO_LIMIT)
		return x->mem_avail;
	cap = x->limit > nonfile ? x->limit - nonfile : 0;
	if (x->mem_avail && x->mem_avail < cap)	/* the machine is tighter */
		cap = x->mem_avail;
	return cap;
}

/* Per second from @prev to @now over @dt_ms; 0 when it went down. */
static uint64_t per_s(uint64_t prev, uint64_t now, uint64_t dt_ms)
{
	return now >= prev && dt_ms ? (now - prev) * 1000 / dt_ms : 0;
}

/* Fault and refault rates since the previous sample (0 after a reset). */
static void rates(struct adapt_state *s, const struct adapt_sample *x,
		  uint64_t t, struct adapt_verdict *v)
{
	uint64_t dt = s->have_prev && t > s->prev_t_ms ? t - s->prev_t_ms : 0;

	v->majflt_s = per_s(s->prev_majflt, x->majflt, dt);
	v->refault_s = per_s(s->prev_refault, x->refault, dt);
	s->have_prev = true;
	s->prev_majflt = x->majflt;
	s->prev_refault = x->refault;
	s->prev_t_ms = t;
}

/* Switches recorded in the 60 s up to @t. */
static unsigned int recent_switches(const struct adapt_state *s, uint64_t t)
{
	unsigned int n = 0;

	for (unsigned int i = 0; i < s->nr_switch_ms; i++)
		if (t - s->switch_ms[i] < 60000)
			n++;
	return n;
}

static void record_switch(struct adapt_state *s, uint64_t t)
{
	s->switch_ms[s->switch_head] = t;
	s->switch_head = (s->switch_head + 1) % ADAPT_RATE_SLOTS;
	if (s->nr_switch_ms < ADAPT_RATE_SLOTS)
		s->nr_switch_ms++;
}

/* The last switch time, if any. */
static bool last_switch(const struct adapt_state *s, uint64_t *t)
{
	if (!s->nr_switch_ms)
		return false;
	*t = s->switch_ms[(s->switch_head + ADAPT_RATE_SLOTS - 1) % ADAPT_RATE_SLOTS];
	return true;
}

/* Change the choice now; @counted: a switch (not the first decision). */
static void flip(struct adapt_state *s, struct adapt_verdict *v,
		 enum adapt_choice to, enum adapt_reason why, bool counted)
{
	s->choice = to;
	v->choice = to;
	v->reason = why;
	v->switched = true;
	clear_runs(s);
	s->unguard_run = 0;
	s->via_guard = why == ADAPT_R_GUARD_THRASH;
	record_switch(s, v->t_ms);
	if (counted)
		s->switches++;
}

/* Unreadable figures: hold, then fall back to RANDOM. */
static void step_unreadable(struct adapt_state *s, struct adapt_verdict *v)
{
	clear_runs(s);
	if (s->fail_run < UINT32_MAX)
		s->fail_run++;
	if (s->fail_run < s->p.fail_after)
		return;			/* keep choice and reason for now */
	if (s->choice == ADAPT_NORMAL)
		flip(s, v, ADAPT_RANDOM, ADAPT_R_UNREADABLE, true);
	else
		v->reason = ADAPT_R_UNREADABLE;
}

/* Whether guarded figures hold RANDOM: above guard_fit_pct. */
static bool guard_holds(const struct adapt_params *p,
			const struct adapt_verdict *v)
{
	return v->guarded && p->guard_fit_pct &&
	       v->ratio_pct > p->guard_fit_pct;
}

/* The thrash tests' runs: in the band (read-around's refaults) and guarded. */
static void thrash_runs(struct adapt_state *s, const struct adapt_sample *x,
			const struct adapt_verdict *v)
{
	const struct adapt_params *p = &s->p;
	bool band = v->ratio_pct > p->fit_pct && v->ratio_pct < p->nofit_pct;
	bool faulting = s->choice == ADAPT_NORMAL &&
		(x->limit == ADAPT_NO_LIMIT ||
		 v->usage_pct >= p->thrash_usage_pct) &&
		v->majflt_s >= p->thrash_majflt_s;

	if (faulting && band &&
	    v->refault_s >= v->majflt_s * p->thrash_refaults)
		s->thrash_run++;
	else
		s->thrash_run = 0;
	if (faulting && guard_holds(p, v) && v->ratio_pct < p->nofit_pct)
		s->guard_run++;
	else
		s->guard_run = 0;
}

/* Fills the verdict's figures and the persistence counters. */
static void measure(struct adapt_state *s, const struct adapt_sample *x,
		    struct adapt_verdict *v)
{
	const struct adapt_params *p = &s->p;

	v->need = x->need;
	v->capacity = capacity_of(x);
	v->ratio_pct = pct(x->need, v->capacity);
	v->resident_pct = pct(x->resident, x->need);
	v->usage_pct = x->limit == ADAPT_NO_LIMIT ? 0 : pct(x->usage, x->limit);
	s->fits_run = v->ratio_pct <= p->fit_pct && !guard_holds(p, v) ?
		s->fits_run + 1 : 0;
	s->nofit_run = v->ratio_pct >= p->nofit_pct ? s->nofit_run + 1 : 0;
	s->unguard_run = s->choice == ADAPT_RANDOM && s->via_guard &&
		!v->guarded ? s->unguard_run + 1 : 0;
	thrash_runs(s, x, v);
}

/* The choice the figures ask for, and why (no hysteresis yet). */
static enum adapt_choice wanted(struct adapt_state *s,
				const struct adapt_verdict *v,
				enum adapt_reason *why)
{
	const struct adapt_params *p = &s->p;

	if (!s->measured) {		/* the first decision: size alone */
		*why = v->ratio_pct <= p->fit_pct ? ADAPT_R_FITS :
			v->ratio_pct >= p->nofit_pct ? ADAPT_R_NOFIT : ADAPT_R_BAND;
		return *why == ADAPT_R_FITS ? ADAPT_NORMAL : ADAPT_RANDOM;
	}
	if (v->ratio_pct >= p->nofit_pct) {
		*why = s->choice == ADAPT_RANDOM || s->nofit_run >= p->persist ?
			ADAPT_R_NOFIT : ADAPT_R_PERSIST;
		return *why == ADAPT_R_PERSIST ? s->choice : ADAPT_RANDOM;
	}
	if (s->choice == ADAPT_NORMAL && s->guard_run >= p->thrash_persist) {
		*why = ADAPT_R_GUARD_THRASH;
		return ADAPT_RANDOM;
	}
	if (v->ratio_pct <= p->fit_pct) {
		if (s->choice == ADAPT_NORMAL) {
			*why = ADAPT_R_FITS;
			return ADAPT_NORMAL;
		}
		if (guard_holds(p, v)) {
			*why = ADAPT_R_GUARDED;
			return ADAPT_RANDOM;
		}
		*why = s->fits_run >= p->persist ? ADAPT_R_FITS : ADAPT_R_PERSIST;
		return *why == ADAPT_R_FITS ? ADAPT_NORMAL : ADAPT_RANDOM;
	}
	if (s->choice == ADAPT_NORMAL && s->thrash_run >= p->thrash_persist) {
		*why = ADAPT_R_THRASH;
		return ADAPT_RANDOM;
	}
	if (s->via_guard && s->unguard_run) {	/* the watcher is gone */
		*why = s->unguard_run >= p->persist ? ADAPT_R_UNGUARDED :
			ADAPT_R_PERSIST;
		return *why == ADAPT_R_UNGUARDED ? ADAPT_NORMAL : ADAPT_RANDOM;
	}
	*why = ADAPT_R_BAND;
	return s->choice;
}

/* Applies dwell time and rate limit to a wanted switch. */
static void decide(struct adapt_state *s, struct adapt_verdict *v,
		   enum adapt_choice want, enum adapt_reason why)
{
	uint64_t last;

	v->reason = why;
	if (want == s->choice)
		return;
	if (!s->measured) {
		flip(s, v, want, why, false);
		return;
	}
	if (last_switch(s, &last) && v->t_ms - last < s->p.dwell_ms) {
		v->reason = ADAPT_R_DWELL;
	} else if (recent_switches(s, v->t_ms) >= s->p.max_per_min) {
		v->reason = ADAPT_R_RATE;
	} else {
		flip(s, v, want, why, true);
		return;
	}
	s->held++;
}

struct adapt_verdict adapt_step(struct adapt_state *s,
				const struct adapt_sample *x)
{
	struct adapt_verdict v = s->last;
	enum adapt_reason why;
	enum adapt_choice want;
	uint64_t t = x->t_ms > s->last_t_ms ? x->t_ms : s->last_t_ms;

	s->last_t_ms = t;
	v.t_ms = t;
	v.switched = false;
	v.status = x->status;
	v.guarded = x->guarded;
	v.choice = s->choice;
	if (x->status)
		v.majflt_s = v.refault_s = 0;
	else
		rates(s, x, t, &v);
	if (x->status || (x->limit == ADAPT_NO_LIMIT && !x->mem_avail)) {
		if (!x->status)
			v.status = -ENODATA;
		step_unreadable(s, &v);
	} else {
		s->fail_run = 0;
		measure(s, x, &v);
		want = wanted(s, &v, &why);
		decide(s, &v, want, why);
		s->measured = true;
	}
	s->last = v;
	return v;
}

const char *adapt_choice_name(enum adapt_choice c)
{
	return c == ADAPT_NORMAL ? "normal" : "random";
}

const char *adapt_reason_name(enum adapt_reason r)
{
	static const char *const names[ADAPT_R_NR] = {
		[ADAPT_R_START] = "start", [ADAPT_R_FITS] = "fits",
		[ADAPT_R_NOFIT] = "does not fit", [ADAPT_R_BAND] = "boundary",
		[ADAPT_R_THRASH] = "thrashes under normal",
		[ADAPT_R_GUARD_THRASH] = "faults under normal, guarded",
		[ADAPT_R_GUARDED] = "guarded",
		[ADAPT_R_UNGUARDED] = "the watcher's mark gone",
		[ADAPT_R_UNREADABLE] = "memcg unreadable",
		[ADAPT_R_PERSIST] = "held: not yet persistent",
		[ADAPT_R_DWELL] = "held: dwell time",
		[ADAPT_R_RATE] = "held: switch rate",
	};

	return (unsigned int)r < ADAPT_R_NR ? names[r] : "?";
}

/* Appending to a bounded buffer without stdio. */
struct out {
	char *buf;
	size_t size, len;
};

static void put_s(struct out *o, const char *s)
{
	for (; *s; s++, o->len++)
		if (o->len + 1 < o->size)
			o->buf[o->len] = *s;
}

static void put_u(struct out *o, uint64_t v)
{
	char d[24];
	int n = 0;

	do
		d[n++] = (char)('0' + v % 10);
	while ((v /= 10) && n < 23);
	while (n)
		put_s(o, (char[2]){ d[--n], 0 });
}

/* @v, then the text that follows it (its unit, the next label). */
static void put_us(struct out *o, uint64_t v, const char *s)
{
	put_u(o, v);
	put_s(o, s);
}

/* A byte count: KiB below 10 MiB (small files), else MiB. */
static void put_size(struct out *o, uint64_t bytes)
{
	if (bytes < 10 * MIB)
		put_us(o, bytes / 1024, " KiB");
	else
		put_us(o, bytes / MIB, " MiB");
}

size_t adapt_describe(const struct adapt_verdict *v, char *buf, size_t size)
{
	struct out o = { buf, size, 0 };

	put_s(&o, adapt_choice_name(v->choice));
	put_s(&o, " (");
	put_s(&o, adapt_reason_name(v->reason));
	if (v->reason != ADAPT_R_START && v->reason != ADAPT_R_UNREADABLE) {
		put_s(&o, ": need ");
		put_size(&o, v->need);
		put_s(&o, " = ");
		put_us(&o, v->ratio_pct, "% of capacity ");
		put_size(&o, v->capacity);
		put_s(&o, ", resident ");
		put_us(&o, v->resident_pct, "%, usage ");
		put_us(&o, v->usage_pct, "%, ");
		put_us(&o, v->majflt_s, " majflt/s, ");
		put_us(&o, v->refault_s, " refaults/s");
		if (v->guarded)
			put_s(&o, ", guarded");
	} else if (v->status) {
		put_s(&o, ": error ");
		put_u(&o, (uint64_t)-(int64_t)v->status);
	}
	put_s(&o, ")");
	if (size)
		buf[o.len < size ? o.len : size - 1] = 0;
	return o.len < size ? o.len : (size ? size - 1 : 0);
}
