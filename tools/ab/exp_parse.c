// SPDX-License-Identifier: MIT
/*
 * exp_parse.c - experiment text (libconfig) -> struct experiment.
 *
 * Strict on purpose: an experiment runs for minutes as root, so a typo
 * (a misspelt key silently ignored, a workload name that matches nothing)
 * must fail before anything starts, with file:line.
 */
#include <errno.h>
#include <libconfig.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/confcheck.h"
#include "common/readfile.h"
#include "policy/policy.h"
#include "tools/ab/exp.h"

struct parser {
	struct conf_ctx cc;		/* errors go to the caller's exp_error */
	struct experiment *e;
};

/* perr - report at setting @s (NULL: line 1) and evaluate to -1. */
#define perr(ps, s, ...) conf_err(&(ps)->cc, (s), __VA_ARGS__)

#define TOP_KEYS "version, name, description, limit_mib, duration_s, interval_ms, " \
	"dir, print_every, baseline_s, recover_pct, settle_majflt_s, " \
	"settle_intervals, files, workloads, event, arms"
#define FILE_KEYS "name, path, size_mib"
#define WL_KEYS "name, command, start_ms, throughput"
#define EVENT_KEYS "workload"
#define ARM_KEYS "name, label, shim, policy, policy_text, lru_gen, watcher, env, workloads"
#define OV_KEYS "workload, command, shim, policy, policy_text, env"
#define WATCH_KEYS "enabled, interval_ms, persist, dry_run, args, command"

/* kname - "@what@key" (what ends in ": " or is empty) for messages. */
static const char *kname(char *buf, size_t size, const char *what,
			 const char *key)
{
	snprintf(buf, size, "%s%s", what, key);
	return buf;
}

static int dupstr(struct parser *ps, const config_setting_t *s,
		  const char *v, char **out)
{
	free(*out);
	*out = strdup(v);
	return *out ? 0 : perr(ps, s, "out of memory");
}

/* A string member @key of @g; *out untouched when absent and !required. */
static int get_str(struct parser *ps, const config_setting_t *g,
		   const char *what, const char *key, bool required, char **out)
{
	config_setting_t *s = config_setting_get_member(g, key);
	const char *v;
	char name[128];

	if (!s)
		return required ? perr(ps, g, "%s\"%s\" is required", what, key) : 0;
	v = conf_get_string(&ps->cc, s, kname(name, sizeof(name), what, key));
	if (!v)
		return -1;
	if (!*v)
		return perr(ps, s, "%s\"%s\" must not be empty", what, key);
	return dupstr(ps, s, v, out);
}

/* An optional number member @key of @g in [@min, @max]. */
static int get_num(struct parser *ps, const config_setting_t *g,
		   const char *what, const char *key, double min, double max,
		   double *out)
{
	config_setting_t *s = config_setting_get_member(g, key);
	char name[128];

	return s ? conf_get_num(&ps->cc, s, kname(name, sizeof(name), what, key),
				min, max, out) : 0;
}

/* An optional integer member @key of @g in [@min, @max]. */
static int get_uint(struct parser *ps, const config_setting_t *g,
		    const char *what, const char *key, unsigned int min,
		    unsigned int max, unsigned int *out)
{
	config_setting_t *s = config_setting_get_member(g, key);
	char name[128];
	long long v;

	if (!s)
		return 0;
	if (conf_get_int(&ps->cc, s, kname(name, sizeof(name), what, key),
			 min, max, &v))
		return -1;
	*out = (unsigned int)v;
	return 0;
}

/* An optional boolean member @key of @g, as 0 or 1. */
static int get_bool(struct parser *ps, const config_setting_t *g,
		    const char *what, const char *key, int *out)
{
	config_setting_t *s = config_setting_get_member(g, key);
	char name[128];
	bool v;

	if (!s)
		return 0;
	if (conf_get_bool(&ps->cc, s, kname(name, sizeof(name), what, key), &v))
		return -1;
	*out = v;
	return 0;
}

static void free_strv(char **v, size_t n)
{
	if (!v)
		return;
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* An array of strings (NULL-terminated copy); @nonempty: at least one. */
static int get_strv(struct parser *ps, const config_setting_t *g,
		    const char *what, const char *key, bool nonempty,
		    char ***out, size_t *n)
{
	config_setting_t *s = config_setting_get_member(g, key);
	char name[160];
	int len;

	if (!s)
		return 0;
	kname(name, sizeof(name), what, key);
	if (config_setting_type(s) != CONFIG_TYPE_ARRAY &&
	    config_setting_type(s) != CONFIG_TYPE_LIST)
		return conf_type_err(&ps->cc, s, name,
				     "an array of strings [ \"...\" ]");
	len = config_setting_length(s);
	if (nonempty && len == 0)
		return perr(ps, s, "%s\"%s\" must not be empty", what, key);
	free_strv(*out, *n);
	*n = 0;
	*out = calloc((size_t)len + 1, sizeof(char *));
	if (!*out)
		return perr(ps, s, "out of memory");
	for (int i = 0; i < len; i++) {
		config_setting_t *m = config_setting_get_elem(s, (unsigned int)i);
		const char *v;

		snprintf(name, sizeof(name), "%s%s: element %d", what, key, i + 1);
		v = conf_get_string(&ps->cc, m, name);
		if (!v)
			return -1;
		(*out)[i] = strdup(v);
		if (!(*out)[i])
			return perr(ps, m, "out of memory");
		*n = (size_t)i + 1;
	}
	return 0;
}

/* A list of groups (files, workloads, arms): returns its length or -1. */
static int get_list(struct parser *ps, const config_setting_t *g,
		    const char *key, bool required, config_setting_t **out)
{
	config_setting_t *s = config_setting_get_member(g, key);
	char name[64];

	*out = s;
	if (!s)
		return required ? perr(ps, g, "\"%s\" is required", key) : 0;
	if (config_setting_type(s) != CONFIG_TYPE_LIST)
		return conf_type_err(&ps->cc, s, key,
				     "a list of groups ( { ... }, ... )");
	if (required && config_setting_length(s) == 0)
		return perr(ps, s, "\"%s\" must not be empty", key);
	for (int i = 0; i < config_setting_length(s); i++) {
		config_setting_t *m = config_setting_get_elem(s, (unsigned int)i);

		snprintf(name, sizeof(name), "%s: element %d", key, i + 1);
		if (config_setting_type(m) != CONFIG_TYPE_GROUP)
			return conf_type_err(&ps->cc, m, name, "a group { ... }");
	}
	return config_setting_length(s);
}

/* Names: letters, digits, '-', '_', '.'; used in paths and table heads. */
static int check_name(struct parser *ps, const config_setting_t *g,
		      const char *what, const char *name)
{
	size_t len = strlen(name);

	if (len > 32)
		return perr(ps, g, "%sname \"%s\" is longer than 32 characters",
			    what, name);
	for (const char *p = name; *p; p++) {
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || *p == '-' || *p == '_' ||
		      (*p == '.' && p != name)))
			return perr(ps, g, "%sname \"%s\": use letters, digits, '-', '_' and '.' only",
				    what, name);
	}
	return 0;
}

/* ${...} in every string of @v must be known. */
static int check_subst_v(struct parser *ps, const config_setting_t *s,
			 const char *what, char *const *v, size_t n)
{
	char bad[64];
	const char *why;

	for (size_t i = 0; i < n; i++)
		if (v[i] && exp_check_subst(ps->e, v[i], &why, bad, sizeof(bad)))
			return perr(ps, s, "%s\"%s\": %s \"%s\"", what, v[i],
				    why, bad);
	return 0;
}

static int parse_files(struct parser *ps, const config_setting_t *root)
{
	config_setting_t *l;
	int n = get_list(ps, root, "files", false, &l);

	if (n <= 0)
		return n;
	ps->e->files = calloc((size_t)n, sizeof(*ps->e->files));
	if (!ps->e->files)
		return perr(ps, l, "out of memory");
	for (int i = 0; i < n; i++) {
		config_setting_t *g = config_setting_get_elem(l, (unsigned int)i);
		struct exp_file *f = &ps->e->files[i];
		double size = 0;
		char what[64];

		ps->e->nfiles = (size_t)i + 1;
		f->line = conf_line(g);
		snprintf(what, sizeof(what), "files[%d]: ", i + 1);
		if (conf_check_keys(&ps->cc, g, what, FILE_KEYS) ||
		    get_str(ps, g, what, "name", true, &f->name) ||
		    check_name(ps, g, what, f->name) ||
		    get_str(ps, g, what, "path", true, &f->path) ||
		    get_num(ps, g, what, "size_mib", 1, 1 << 24, &size))
			return -1;
		if (!config_setting_get_member(g, "size_mib"))
			return perr(ps, g, "%s\"size_mib\" is required", what);
		if (size != floor(size))
			return perr(ps, config_setting_get_member(g, "size_mib"),
				    "%s\"size_mib\" must be a whole number", what);
		f->size_mib = (uint64_t)size;
		for (int j = 0; j < i; j++)
			if (!strcmp(ps->e->files[j].name, f->name))
				return perr(ps, g, "%sname \"%s\" is used twice (first at line %d)",
					    what, f->name, ps->e->files[j].line);
	}
	return 0;
}

/* File paths may only use ${DIR} and ${BUILD}: they exist before arms. */
static int check_file_paths(struct parser *ps, const config_setting_t *root)
{
	config_setting_t *l = config_setting_get_member(root, "files");

	for (size_t i = 0; i < ps->e->nfiles; i++) {
		const char *p = ps->e->files[i].path;
		config_setting_t *g = config_setting_get_elem(l, (unsigned int)i);

		if (check_subst_v(ps, g, "files: path ", &ps->e->files[i].path, 1))
			return -1;
		for (const char *s = strstr(p, "${"); s; s = strstr(s + 2, "${"))
			if (strncmp(s, "${DIR}", 6) && strncmp(s, "${BUILD}", 8))
				return perr(ps, g, "files: path \"%s\": only ${DIR} and ${BUILD} can be used in file paths",
					    p);
		if (!strstr(p, "${") && p[0] != '/')
			return perr(ps, g, "files: path \"%s\" must be absolute or start with ${DIR}",
				    p);
	}
	return 0;
}

static int parse_workloads(struct parser *ps, const config_setting_t *root)
{
	config_setting_t *l;
	int n = get_list(ps, root, "workloads", true, &l);

	if (n < 0)
		return -1;
	ps->e->wl = calloc((size_t)n, sizeof(*ps->e->wl));
	if (!ps->e->wl)
		return perr(ps, l, "out of memory");
	ps->e->throughput_wl = -1;
	for (int i = 0; i < n; i++) {
		config_setting_t *g = config_setting_get_elem(l, (unsigned int)i);
		struct exp_workload *w = &ps->e->wl[i];
		int thr = 0;
		char what[64];

		ps->e->nwl = (size_t)i + 1;
		w->line = conf_line(g);
		snprintf(what, sizeof(what), "workloads[%d]: ", i + 1);
		if (conf_check_keys(&ps->cc, g, what, WL_KEYS) ||
		    get_str(ps, g, what, "name", true, &w->name) ||
		    check_name(ps, g, what, w->name) ||
		    get_strv(ps, g, what, "command", true, &w->argv, &w->argc) ||
		    get_uint(ps, g, what, "start_ms", 0, 86400000, &w->start_ms) ||
		    get_bool(ps, g, what, "throughput", &thr))
			return -1;
		if (!w->argv)
			return perr(ps, g, "%s\"command\" is required", what);
		if (check_subst_v(ps, config_setting_get_member(g, "command"),
				  what, w->argv, w->argc))
			return -1;
		for (int j = 0; j < i; j++)
			if (!strcmp(ps->e->wl[j].name, w->name))
				return perr(ps, g, "%sname \"%s\" is used twice (first at line %d)",
					    what, w->name, ps->e->wl[j].line);
		w->throughput = thr;
		if (thr && ps->e->throughput_wl >= 0)
			return perr(ps, g, "%sonly one workload can be the throughput source (\"%s\" is already)",
				    what, ps->e->wl[ps->e->throughput_wl].name);
		if (thr)
			ps->e->throughput_wl = i;
	}
	if (ps->e->throughput_wl < 0)
		return perr(ps, l, "workloads: one workload needs \"throughput = true\" (its advshim-load random output is the rate)");
	return 0;
}

int exp_find_workload(const struct experiment *e, const char *name)
{
	for (size_t i = 0; i < e->nwl; i++)
		if (!strcmp(e->wl[i].name, name))
			return (int)i;
	return -1;
}

static int parse_event(struct parser *ps, const config_setting_t *root)
{
	config_setting_t *g = config_setting_get_member(root, "event");
	char *wl = NULL;
	int ret;

	ps->e->event_wl = -1;
	if (!g)
		return 0;
	if (config_setting_type(g) != CONFIG_TYPE_GROUP)
		return conf_type_err(&ps->cc, g, "event",
				     "a group { workload = \"...\"; }");
	if (conf_check_keys(&ps->cc, g, "event: ", EVENT_KEYS) ||
	    get_str(ps, g, "event: ", "workload", true, &wl))
		return -1;
	ps->e->event_wl = exp_find_workload(ps->e, wl);
	ret = ps->e->event_wl < 0 ?
		perr(ps, config_setting_get_member(g, "workload"),
		     "event: no workload is named \"%s\"", wl) : 0;
	if (!ret && ps->e->event_wl == ps->e->throughput_wl)
		ret = perr(ps, g, "event: \"%s\" is the throughput workload; the event comes from a stream workload's start/end lines",
			   wl);
	free(wl);
	return ret;
}

static int check_policy_text(struct parser *ps, const config_setting_t *g,
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

static int parse_shim(struct parser *ps, const config_setting_t *g,
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

static int parse_watcher(struct parser *ps, const config_setting_t *arm,
			 const char *what, struct exp_watcher *w)
{
	config_setting_t *g = config_setting_get_member(arm, "watcher");
	int en = 1, dry = 0;
	char wh[96];

	w->interval_ms = 1000;
	w->persist = 3;
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
	    get_uint(ps, g, wh, "persist", 1, 1000, &w->persist) ||
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

static int check_env(struct parser *ps, const config_setting_t *g,
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

static int parse_overrides(struct parser *ps, const config_setting_t *arm,
			   const char *what, struct exp_arm *a)
{
	config_setting_t *l;
	int n = get_list(ps, arm, "workloads", false, &l);

	if (n <= 0)
		return n;
	a->ov = calloc((size_t)n, sizeof(*a->ov));
	if (!a->ov)
		return perr(ps, l, "out of memory");
	for (int i = 0; i < n; i++) {
		config_setting_t *g = config_setting_get_elem(l, (unsigned int)i);
		struct exp_override *o = &a->ov[i];
		char wh[128];

		a->nov = (size_t)i + 1;
		o->line = conf_line(g);
		snprintf(wh, sizeof(wh), "%sworkloads[%d]: ", what, i + 1);
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
	}
	return 0;
}

static int parse_lru_gen(struct parser *ps, const config_setting_t *g,
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

static int parse_arm(struct parser *ps, config_setting_t *g, int i)
{
	struct exp_arm *a = &ps->e->arms[i];
	char what[64];

	a->line = conf_line(g);
	snprintf(what, sizeof(what), "arms[%d]: ", i + 1);
	if (conf_check_keys(&ps->cc, g, what, ARM_KEYS) ||
	    get_str(ps, g, what, "name", true, &a->name) ||
	    check_name(ps, g, what, a->name) ||
	    get_str(ps, g, what, "label", false, &a->label))
		return -1;
	snprintf(what, sizeof(what), "arm \"%s\": ", a->name);
	if (parse_shim(ps, g, what, &a->shim) ||
	    parse_lru_gen(ps, g, what, &a->lru_gen) ||
	    parse_watcher(ps, g, what, &a->watch) ||
	    get_strv(ps, g, what, "env", false, &a->env, &a->nenv) ||
	    check_env(ps, g, what, a->env, a->nenv) ||
	    parse_overrides(ps, g, what, a))
		return -1;
	if (!a->label && !(a->label = strdup(a->name)))
		return perr(ps, g, "out of memory");
	for (int j = 0; j < i; j++)
		if (!strcmp(ps->e->arms[j].name, a->name))
			return perr(ps, g, "arm name \"%s\" is used twice (first at line %d)",
				    a->name, ps->e->arms[j].line);
	return 0;
}

static int parse_arms(struct parser *ps, const config_setting_t *root)
{
	config_setting_t *l;
	int n = get_list(ps, root, "arms", true, &l);

	if (n < 0)
		return -1;
	ps->e->arms = calloc((size_t)n, sizeof(*ps->e->arms));
	if (!ps->e->arms)
		return perr(ps, l, "out of memory");
	for (int i = 0; i < n; i++) {
		ps->e->narms = (size_t)i + 1;
		if (parse_arm(ps, config_setting_get_elem(l, (unsigned int)i), i))
			return -1;
	}
	return 0;
}

static int parse_top(struct parser *ps, const config_setting_t *root)
{
	struct experiment *e = ps->e;
	unsigned int version = 0;
	double limit = 0;

	e->duration_s = 120;
	e->interval_ms = 1000;
	e->print_every = 1;
	e->baseline_s = 10;
	e->recover_pct = 80;
	e->settle_majflt = 100;
	e->settle_intervals = 3;
	if (conf_check_keys(&ps->cc, root, "", TOP_KEYS) ||
	    get_uint(ps, root, "", "version", 1, 1000, &version))
		return -1;
	if (!config_setting_get_member(root, "version"))
		return perr(ps, NULL, "\"version = 1;\" is required");
	if (version != 1)
		return perr(ps, config_setting_get_member(root, "version"),
			    "unsupported version %u (this advshim-ab reads 1)", version);
	if (get_str(ps, root, "", "name", false, &e->name) ||
	    get_str(ps, root, "", "description", false, &e->description) ||
	    get_num(ps, root, "", "limit_mib", 16, 1 << 24, &limit) ||
	    get_num(ps, root, "", "duration_s", 1, 86400, &e->duration_s) ||
	    get_uint(ps, root, "", "interval_ms", 100, 600000, &e->interval_ms) ||
	    get_str(ps, root, "", "dir", false, &e->dir) ||
	    get_uint(ps, root, "", "print_every", 1, 3600, &e->print_every) ||
	    get_num(ps, root, "", "baseline_s", 1, 86400, &e->baseline_s) ||
	    get_num(ps, root, "", "recover_pct", 1, 100, &e->recover_pct) ||
	    get_num(ps, root, "", "settle_majflt_s", 0, 1e12, &e->settle_majflt) ||
	    get_uint(ps, root, "", "settle_intervals", 1, 3600, &e->settle_intervals))
		return -1;
	if (!config_setting_get_member(root, "limit_mib"))
		return perr(ps, NULL, "\"limit_mib\" (the memcg's memory limit) is required");
	if (limit != floor(limit))
		return perr(ps, config_setting_get_member(root, "limit_mib"),
			    "\"limit_mib\" must be a whole number");
	e->limit_mib = (uint64_t)limit;
	if (!e->name && !(e->name = strdup("experiment")))
		return perr(ps, NULL, "out of memory");
	if (!e->dir && !(e->dir = strdup("/var/tmp/advshim-ab")))
		return perr(ps, NULL, "out of memory");
	if (e->dir[0] != '/')
		return perr(ps, config_setting_get_member(root, "dir"),
			    "\"dir\" must be an absolute path");
	return 0;
}

/* Cross checks that need everything parsed. */
static int check_all(struct parser *ps, const config_setting_t *root)
{
	struct experiment *e = ps->e;

	for (size_t i = 0; i < e->nwl; i++)
		if (e->wl[i].start_ms >= e->duration_s * 1000)
			return perr(ps, config_setting_get_elem(
					config_setting_get_member(root, "workloads"),
					(unsigned int)i),
				    "workloads[%zu]: \"start_ms\" = %u is not before the end of the run (duration_s = %g)",
				    i + 1, e->wl[i].start_ms, e->duration_s);
	return 0;
}

int exp_parse_buffer(const char *buf, const char *name,
		     struct experiment **out, struct exp_error *err)
{
	struct parser ps = { .cc = CONF_CTX(name, err) };
	config_setting_t *root;
	config_t cfg;
	int ret = -1;

	memset(err, 0, sizeof(*err));
	config_init(&cfg);
	if (!config_read_string(&cfg, buf)) {
		conf_syntax_err(&ps.cc, &cfg);
		goto out;
	}
	ps.e = calloc(1, sizeof(*ps.e));
	if (!ps.e) {
		perr(&ps, NULL, "out of memory");
		goto out;
	}
	root = config_root_setting(&cfg);
	if (parse_top(&ps, root) || parse_files(&ps, root) ||
	    check_file_paths(&ps, root) || parse_workloads(&ps, root) ||
	    parse_event(&ps, root) || parse_arms(&ps, root) ||
	    check_all(&ps, root))
		goto out;
	ps.e->source = strdup(name);
	if (!ps.e->source) {
		perr(&ps, NULL, "out of memory");
		goto out;
	}
	*out = ps.e;
	ps.e = NULL;
	ret = 0;
out:
	exp_free(ps.e);
	config_destroy(&cfg);
	return ret;
}

int exp_load_file(const char *path, struct experiment **out,
		  struct exp_error *err)
{
	struct conf_ctx cc = CONF_CTX(path, err);
	char *buf;
	int ret;

	memset(err, 0, sizeof(*err));
	if (read_file(path, &buf, NULL, 1 << 20))
		return conf_err_line(&cc, 0, "cannot read: %s", strerror(errno));
	ret = exp_parse_buffer(buf, path, out, err);
	free(buf);
	return ret;
}

static void free_shim(struct exp_shim *s)
{
	free(s->policy);
	free(s->policy_text);
}

void exp_free(struct experiment *e)
{
	if (!e)
		return;
	for (size_t i = 0; i < e->nfiles; i++) {
		free(e->files[i].name);
		free(e->files[i].path);
	}
	for (size_t i = 0; i < e->nwl; i++) {
		free(e->wl[i].name);
		free_strv(e->wl[i].argv, e->wl[i].argc);
	}
	for (size_t i = 0; i < e->narms; i++) {
		struct exp_arm *a = &e->arms[i];

		free(a->name);
		free(a->label);
		free_shim(&a->shim);
		free_strv(a->watch.args, a->watch.nargs);
		free_strv(a->watch.command, a->watch.ncommand);
		free_strv(a->env, a->nenv);
		for (size_t j = 0; j < a->nov; j++) {
			free(a->ov[j].workload);
			free_shim(&a->ov[j].shim);
			free_strv(a->ov[j].env, a->ov[j].nenv);
			free_strv(a->ov[j].argv, a->ov[j].argc);
		}
		free(a->ov);
	}
	free(e->files);
	free(e->wl);
	free(e->arms);
	free(e->source);
	free(e->name);
	free(e->description);
	free(e->dir);
	free(e);
}
