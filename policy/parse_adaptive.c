// SPDX-License-Identifier: MIT
/*
 * parse_adaptive.c - the `adaptive` group of a policy: the thresholds of
 * the adaptive choice between MADV_RANDOM and normal advice (adapt/adapt.h
 * says what each one does, docs/adaptive.md where the defaults come
 * from) and the sampler's interval.
 *
 * Every key is optional; a missing one keeps its default
 * (adapt_params_default()).  Each value is checked against its own range
 * first, then the set as a whole with adapt_params_check(), the check the
 * shim relies on, so that a policy `advshim check` accepts is one the
 * state machine accepts.
 */
#include <stddef.h>
#include <string.h>

#include "policy/parser.h"

#define ADAPTIVE_KEYS "fit_pct, nofit_pct, guard_fit_pct, persist, " \
	"thrash_persist, " \
	"thrash_usage_pct, thrash_majflt_s, thrash_refaults, dwell_ms, " \
	"max_per_min, fail_after, interval_ms"

/* One key: its range and where the value goes. */
struct adaptive_key {
	const char *name;
	long long lo, hi;
	size_t off;		/* in struct policy_adaptive */
};

#define PA(field) offsetof(struct policy_adaptive, field)

static const struct adaptive_key adaptive_keys[] = {
	{ "fit_pct", 1, 1000, PA(params.fit_pct) },
	{ "nofit_pct", 2, 1000, PA(params.nofit_pct) },
	{ "guard_fit_pct", 0, 1000, PA(params.guard_fit_pct) },
	{ "persist", 1, 3600, PA(params.persist) },
	{ "thrash_persist", 1, 3600, PA(params.thrash_persist) },
	{ "thrash_usage_pct", 1, 100, PA(params.thrash_usage_pct) },
	{ "thrash_majflt_s", 0, 1000000, PA(params.thrash_majflt_s) },
	{ "thrash_refaults", 1, 1000, PA(params.thrash_refaults) },
	{ "dwell_ms", 0, 3600000, PA(params.dwell_ms) },
	{ "max_per_min", 1, ADAPT_RATE_SLOTS, PA(params.max_per_min) },
	{ "fail_after", 1, 3600, PA(params.fail_after) },
	{ "interval_ms", 100, 60000, PA(interval_ms) },
};

#define NR_ADAPTIVE_KEYS (sizeof(adaptive_keys) / sizeof(adaptive_keys[0]))

void policy_adaptive_default(struct policy_adaptive *a)
{
	memset(a, 0, sizeof(*a));
	adapt_params_default(&a->params);
	a->interval_ms = ADAPT_INTERVAL_MS;
}

static const struct adaptive_key *find_key(const char *name)
{
	size_t i;

	for (i = 0; i < NR_ADAPTIVE_KEYS; i++)
		if (!strcmp(adaptive_keys[i].name, name))
			return &adaptive_keys[i];
	return NULL;
}

/* One member of the group into *@a; 0 or -1 after reporting. */
static int parse_member(struct parser *ps, const config_setting_t *s,
			struct policy_adaptive *a)
{
	const struct adaptive_key *k = find_key(config_setting_name(s));
	char name[64];
	long long v;

	if (!k)
		return conf_unknown_key(&ps->cc, s, "adaptive: ", ADAPTIVE_KEYS);
	snprintf(name, sizeof(name), "adaptive.%s", k->name);
	if (conf_get_int(&ps->cc, s, name, k->lo, k->hi, &v))
		return -1;
	*(unsigned int *)((char *)a + k->off) = (unsigned int)v;
	return 0;
}

int parse_adaptive(struct parser *ps, const config_setting_t *g)
{
	struct policy_adaptive *a = &ps->p->adaptive;
	const config_setting_t *at;
	const char *what = NULL;
	int i, n;

	if (config_setting_type(g) != CONFIG_TYPE_GROUP)
		return conf_type_err(&ps->cc, g, "adaptive", "a group "
				     "{ fit_pct = ...; ... }");
	a->line = conf_line(g);
	n = config_setting_length(g);
	for (i = 0; i < n; i++)
		if (parse_member(ps, config_setting_get_elem(g, (unsigned int)i),
				 a))
			return -1;
	if (!adapt_params_check(&a->params, &what))
		return 0;
	/* Only the pair can be wrong once each value is in its range. */
	at = config_setting_get_member(g, what);
	if (!at)
		at = config_setting_get_member(g, "fit_pct");
	return perr(ps, at ? at : g, "adaptive.nofit_pct (%u) must be greater "
		    "than adaptive.fit_pct (%u): between the two the choice "
		    "stays as it is", a->params.nofit_pct, a->params.fit_pct);
}
