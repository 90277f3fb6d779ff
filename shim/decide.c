// SPDX-License-Identifier: MIT
/*
 * decide.c - what to issue for one advice call on one file: the one place
 * both families (madvise and posix_madvise, posix_fadvise) turn a rule's
 * action into the advice value to issue, count the outcome and log it.
 *
 * The outcome counters (kept, rewritten, skipped) are per piece: a
 * madvise range over three mappings counts three.  The info log names a
 * file's first rewrite or skip only (shim_file.logged); the debug log
 * names every call.  While the kill switch is on (kill.c) every action
 * is keep.
 */
#include "shim/calls.h"

int decide_code(enum adv_family family, struct adv_action a)
{
	int v;

	if (unlikely(kill_poll()))
		return ADV_KEEP;	/* the kill switch: as asked */
	if (a.act == ADV_ACT_SKIP)
		return ADV_SKIP;
	if (a.act != ADV_ACT_REWRITE)
		return ADV_KEEP;
	v = family == ADV_FAMILY_MADVISE ? adv_to_madvise(a.to) :
					   adv_to_fadvise(a.to);
	return v >= 0 ? v : ADV_KEEP;	/* no such advice here: keep */
}

int decide_apply(const struct adv_call *c, struct adv_action a)
{
	int to = decide_code(c->family, a);

	if (to == ADV_KEEP)
		to = c->advice;
	decide_count(c->advice, to);
	return to;
}

/* Is this @f's first change to log?  Sets its `logged` flag once. */
static bool first_change(struct shim_file *f)
{
	return !__atomic_load_n(&f->logged, __ATOMIC_RELAXED) &&
	       !__atomic_exchange_n(&f->logged, 1, __ATOMIC_RELAXED);
}

/* The first rewrite or skip of a file (every one when @f is NULL). */
static void log_change(const struct adv_call *c, struct shim_file *f,
		       const struct policy_rule *rule, const char *path,
		       struct adv_action a, int to)
{
	if (f && !first_change(f))
		return;
	shim_log(POLICY_LOG_INFO, "%s %s: %s%s -> %s (%s)",
		 to == ADV_SKIP ? "skip" : "rewrite", path,
		 c->family == ADV_FAMILY_FADVISE ? "fadvise " : "",
		 adv_kind_name(c->kind),
		 to == ADV_SKIP ? "nothing" : adv_kind_name(a.to),
		 rule ? rule->name : "-");
}

/* Level debug: the call, the file and what the policy said. */
static void log_call(const struct adv_call *c, const struct policy_rule *rule,
		     const char *path, struct adv_action a, long long start,
		     long long len)
{
	char what[64];

	adv_action_format(a, what, sizeof(what));
	if (c->family == ADV_FAMILY_FADVISE)
		shim_log(POLICY_LOG_DEBUG, "%s(%d, %lld, %lld, %s) %s: %s (%s)",
			 c->api, c->fd, start, len, adv_kind_name(c->kind),
			 path, what, rule ? rule->name : "no rule");
	else
		shim_log(POLICY_LOG_DEBUG, "%s(%#lx, %lu, %s) %s: %s (%s)",
			 c->api, (unsigned long)start, (unsigned long)len,
			 adv_kind_name(c->kind), path, what,
			 rule ? rule->name : "no rule");
}

int decide(const struct adv_call *c, struct shim_file *f,
	   const struct policy_rule *rule, const char *path, long long start,
	   long long len)
{
	struct adv_action a = policy_decide(rule, c->family, c->kind);
	int to = decide_apply(c, a);

	if (to != c->advice)
		log_change(c, f, rule, path, a, to);
	if (shim.log_level >= POLICY_LOG_DEBUG)
		log_call(c, rule, path, a, start, len);
	return to;
}

void decide_adaptive_log(const struct adv_call *c, struct shim_file *f,
			 int to, uintptr_t start, size_t len)
{
	const char *now = to == c->advice ? "random" : "normal";

	if (first_change(f))
		shim_log(POLICY_LOG_INFO, "adaptive %s: random -> %s (%s)",
			 f->path, now, f->rule->name);
	if (shim.log_level >= POLICY_LOG_DEBUG)
		shim_log(POLICY_LOG_DEBUG, "%s(%#lx, %lu, random) %s: "
			 "adaptive, %s (%s)", c->api, (unsigned long)start,
			 (unsigned long)len, f->path, now, f->rule->name);
}
