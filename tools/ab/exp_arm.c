// SPDX-License-Identifier: MIT
/*
 * exp_arm.c - the arms of an experiment: shim settings (a policy file or
 * inline policy text, checked by the policy parser), lru_gen, the
 * watcher, the environment, and per-workload overrides.
 */
#include <libconfig.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/confcheck.h"
#include "policy/policy.h"
#include "tools/ab/exp.h"
#include "tools/ab/exp_get.h"

#define ARM_KEYS "name, label, shim, policy, policy_text, lru_gen, watcher, env, workloads"
#define OV_KEYS "workload, command, shim, policy, policy_text, env"
#define WATCH_KEYS "enabled, interval_ms, dry_run, args, command"

static int check_policy_text(struct exp_parser *ps, const config_setting_t *g,
			     const char *what, const char *text)
{
	struct policy_error perr_;
	struct policy *p;

	if (!text)
		return 0;
	if (policy_parse_buffer(text, "policy_text", &p, &perr_))
		return perr(ps, config_setting_get_member(g, "policy_text"),
			    "%spolicy_text line %d: %s", what, perr_.line,
			    perr_.msg);
	policy_free(p);
	return 0;
}

static int parse_shim(struct exp_parser *ps, const config_setting_t *g,
		      const char *what, struct exp_shim *sh)
{
	sh->enabled = -1;
	if (get_bool(ps, g, what, "shim", &sh->enabled) ||
	    get_str(ps, g, what, "policy", false, &sh->policy) ||
	    get_str(ps, g, what, "policy_text", false, &sh->policy_text))
		return -1;
	if (sh->policy && sh->policy_text)
		return perr(ps, config_setting_get_member(g, "policy_text"),
			    "%s\"policy\" and \"policy_text\" exclude each other",
			    what);
	if ((sh->policy || sh->policy_text) && sh->enabled == 0)
		return perr(ps, config_setting_get_member(g, "shim"),
			    "%sa policy is given but \"shim = false\"", what);
	if (sh->policy || sh->policy_text)
		sh->enabled = 1;
	if (sh->policy && check_subst_v(ps, config_setting_get_member(g, "policy"),
					what, &sh->policy, 1))
		return -1;
	return check_policy_text(ps, g, what, sh->policy_text);
}

static int parse_watcher(struct exp_parser *ps, const config_setting_t *arm,
			 const char *what, struct exp_watcher *w)
{
	config_setting_t *g = config_setting_get_member(arm, "watcher");
	int en = 1, dry = 0;
	char wh[96];

	w->interval_ms = 1000;
	if (!g)
		return 0;
	if (config_setting_type(g) == CONFIG_TYPE_BOOL) {
		w->enabled = config_setting_get_bool(g);
		return 0;
	}
	if (config_setting_type(g) != CONFIG_TYPE_GROUP)
		return conf_type_err(&ps->cc, g, kname(wh, sizeof(wh), what, "watcher"),
				     "true, false or a group { ... }");
	snprintf(wh, sizeof(wh), "%swatcher: ", what);
	if (conf_check_keys(&ps->cc, g, wh, WATCH_KEYS) ||
	    get_bool(ps, g, wh, "enabled", &en) ||
	    get_uint(ps, g, wh, "interval_ms", 10, 3600000, &w->interval_ms) ||
	    get_bool(ps, g, wh, "dry_run", &dry) ||
	    get_strv(ps, g, wh, "args", false, &w->args, &w->nargs) ||
	    get_strv(ps, g, wh, "command", true, &w->command, &w->ncommand))
		return -1;
	w->enabled = en;
	w->dry_run = dry;
	if (check_subst_v(ps, g, wh, w->args, w->nargs) ||
	    check_subst_v(ps, g, wh, w->command, w->ncommand))
		return -1;
	return 0;
}

static int check_env(struct exp_parser *ps, const config_setting_t *g,
		     const char *what, char **env, size_t n)
{
	config_setting_t *s = config_setting_get_member(g, "env");

	for (size_t i = 0; i < n; i++) {
		const char *eq = strchr(env[i], '=');

		if (!eq || eq == env[i])
			return perr(ps, s, "%senv: \"%s\" must look like NAME=VALUE",
				    what, env[i]);
		if (!strncmp(env[i], "LD_PRELOAD=", 11) ||
		    !strncmp(env[i], "ADVSHIM_CONFIG=", 15))
			return perr(ps, s, "%senv: set the shim with \"shim\"/\"policy\", not %.*s",
				    what, (int)(eq - env[i]), env[i]);
	}
	return check_subst_v(ps, s, what, env, n);
}

/* Override @i of an arm's "workloads" list; @ctx is the arm. */
static int parse_override(struct exp_parser *ps, const config_setting_t *g,
			  int i, void *ctx)
{
	struct exp_arm *a = ctx;
	struct exp_override *o = &a->ov[i];
	char wh[128];

	o->line = conf_line(g);
	snprintf(wh, sizeof(wh), "arm \"%s\": workloads[%d]: ", a->name, i + 1);
	if (conf_check_keys(&ps->cc, g, wh, OV_KEYS) ||
	    get_str(ps, g, wh, "workload", true, &o->workload))
		return -1;
	o->wl = exp_find_workload(ps->e, o->workload);
	if (o->wl < 0)
		return perr(ps, config_setting_get_member(g, "workload"),
			    "%sno workload is named \"%s\"", wh, o->workload);
	for (int j = 0; j < i; j++)
		if (a->ov[j].wl == o->wl)
			return perr(ps, g, "%sworkload \"%s\" is overridden twice",
				    wh, o->workload);
	if (parse_shim(ps, g, wh, &o->shim) ||
	    get_strv(ps, g, wh, "env", false, &o->env, &o->nenv) ||
	    check_env(ps, g, wh, o->env, o->nenv) ||
	    get_strv(ps, g, wh, "command", true, &o->argv, &o->argc) ||
	    check_subst_v(ps, config_setting_get_member(g, "command"),
			  wh, o->argv, o->argc))
		return -1;
	return 0;
}

static int parse_overrides(struct exp_parser *ps, const config_setting_t *arm,
			   struct exp_arm *a)
{
	config_setting_t *l;
	int n;

	a->ov = get_groups(ps, arm, "workloads", false, sizeof(*a->ov), &l, &n);
	if (n <= 0)
		return n;
	return each_group(ps, l, &a->nov, parse_override, a);
}

static int parse_lru_gen(struct exp_parser *ps, const config_setting_t *g,
			 const char *what, int *out)
{
	config_setting_t *s = config_setting_get_member(g, "lru_gen");
	char name[128];
	const char *v;

	*out = -1;
	if (!s)
		return 0;
	if (config_setting_type(s) == CONFIG_TYPE_BOOL) {
		*out = config_setting_get_bool(s);
		return 0;
	}
	if (config_setting_type(s) == CONFIG_TYPE_STRING) {
		v = config_setting_get_string(s);
		if (!strcmp(v, "y") || !strcmp(v, "n")) {
			*out = v[0] == 'y';
			return 0;
		}
	}
	if (config_setting_type(s) == CONFIG_TYPE_STRING)
		return perr(ps, s, "%slru_gen: expected true, false, \"y\" or "
			    "\"n\", got \"%s\"", what, config_setting_get_string(s));
	return conf_type_err(&ps->cc, s, kname(name, sizeof(name), what, "lru_gen"),
			     "true, false, \"y\" or \"n\"");
}

/* Arm @i of the "arms" list. */
static int parse_arm(struct exp_parser *ps, const config_setting_t *g, int i,
		     void *ctx)
{
	struct exp_arm *a = &ps->e->arms[i];
	char what[64];

	(void)ctx;
	if (group_head(ps, g, "arms", i, ARM_KEYS, what, sizeof(what),
		       &a->line, &a->name) ||
	    get_str(ps, g, what, "label", false, &a->label))
		return -1;
	snprintf(what, sizeof(what), "arm \"%s\": ", a->name);
	if (parse_shim(ps, g, what, &a->shim) ||
	    parse_lru_gen(ps, g, what, &a->lru_gen) ||
	    parse_watcher(ps, g, what, &a->watch) ||
	    get_strv(ps, g, what, "env", false, &a->env, &a->nenv) ||
	    check_env(ps, g, what, a->env, a->nenv) ||
	    parse_overrides(ps, g, a))
		return -1;
	if (!a->label && !(a->label = strdup(a->name)))
		return perr(ps, g, "out of memory");
	return 0;
}

int exp_parse_arms(struct exp_parser *ps, const config_setting_t *root)
{
	config_setting_t *l;
	int n;

	ps->e->arms = get_groups(ps, root, "arms", true, sizeof(*ps->e->arms),
				 &l, &n);
	if (n < 0)
		return -1;
	return each_group(ps, l, &ps->e->narms, parse_arm, NULL);
}
