// SPDX-License-Identifier: MIT
/*
 * parse.c - policy text (libconfig syntax) -> struct policy, validated.
 *
 * Every check reports the first problem found, as file:line and a message
 * that names what was expected.  Validation is strict on purpose: the shim
 * cannot ask the user anything, so a typo that silently changed meaning
 * (a misspelt key ignored, a rule shadowed by an earlier `**`) must be
 * caught by `advshim check` before the policy reaches a process.
 *
 * The `watch` group belongs to advshim-watch, which parses it itself; here
 * it is only noted (policy->has_watch).  The `adaptive` group is
 * parse_adaptive.c's.
 */
#include <stdlib.h>
#include <string.h>

#include "policy/parser.h"

bool is_string_list(const config_setting_t *s)
{
	int t = config_setting_type(s);

	return t == CONFIG_TYPE_ARRAY || t == CONFIG_TYPE_LIST;
}

int for_each_string(struct parser *ps, const config_setting_t *s,
		    const char *name,
		    int (*fn)(struct parser *, const config_setting_t *,
			      const char *, void *),
		    void *arg)
{
	const config_setting_t *e;
	const char *v;
	int i, n;

	if (config_setting_type(s) == CONFIG_TYPE_STRING)
		return fn(ps, s, config_setting_get_string(s), arg);
	if (!is_string_list(s))
		return conf_type_err(&ps->cc, s, name, "a string or a list "
				     "[ \"...\", ... ] of strings");
	n = config_setting_length(s);
	for (i = 0; i < n; i++) {
		e = config_setting_get_elem(s, (unsigned int)i);
		v = conf_get_string(&ps->cc, e, name);
		if (!v || fn(ps, e, v, arg))
			return -1;
	}
	return 0;
}

/* ---- version, log, processes, watch ---- */

static int parse_version(struct parser *ps, const config_setting_t *root)
{
	const config_setting_t *s = config_setting_get_member(root, "version");
	long long v;

	if (!s)
		return perr(ps, NULL, "missing `version = 1;` (required first "
			    "setting of every policy)");
	if (config_setting_type(s) != CONFIG_TYPE_INT &&
	    config_setting_type(s) != CONFIG_TYPE_INT64)
		return conf_type_err(&ps->cc, s, "version", "the integer 1");
	v = config_setting_get_int64(s);
	if (v != 1)
		return perr(ps, s, "unsupported version %lld (expected 1)", v);
	ps->p->version = 1;
	return 0;
}

static const char *const log_level_names[] = {
	[POLICY_LOG_OFF] = "off",
	[POLICY_LOG_WARN] = "warn",
	[POLICY_LOG_INFO] = "info",
	[POLICY_LOG_DEBUG] = "debug",
};

const char *policy_log_level_name(enum policy_log_level level)
{
	if ((unsigned int)level > POLICY_LOG_DEBUG)
		return "?";
	return log_level_names[level];
}

int policy_log_level_parse(const char *name, enum policy_log_level *level)
{
	unsigned int i;

	for (i = 0; name && i <= POLICY_LOG_DEBUG; i++) {
		if (!strcmp(name, log_level_names[i])) {
			*level = (enum policy_log_level)i;
			return 0;
		}
	}
	return -1;
}

static int parse_log_target(struct parser *ps, const config_setting_t *s)
{
	const char *v = conf_get_string(&ps->cc, s, "log.target");
	char *dup;

	if (!v)
		return -1;
	if (strcmp(v, "stderr") && v[0] != '/')
		return perr(ps, s, "log.target: \"%s\" is neither \"stderr\" "
			    "nor an absolute path", v);
	if (v[0] == '/' && v[strlen(v) - 1] == '/')
		return perr(ps, s, "log.target: \"%s\" is a directory "
			    "(expected a file path)", v);
	dup = strdup(v);
	if (!dup)
		return perr(ps, s, "out of memory");
	free(ps->p->log.target);
	ps->p->log.target = dup;
	return 0;
}

static int parse_log(struct parser *ps, const config_setting_t *g)
{
	const config_setting_t *s;
	const char *key, *v;
	int i, n;

	if (config_setting_type(g) != CONFIG_TYPE_GROUP)
		return conf_type_err(&ps->cc, g, "log", "a group { level = "
				     "...; target = ...; }");
	n = config_setting_length(g);
	for (i = 0; i < n; i++) {
		s = config_setting_get_elem(g, (unsigned int)i);
		key = config_setting_name(s);
		if (!strcmp(key, "target")) {
			if (parse_log_target(ps, s))
				return -1;
			continue;
		}
		if (strcmp(key, "level"))
			return conf_unknown_key(&ps->cc, s, "log: ",
						"level, target");
		v = conf_get_string(&ps->cc, s, "log.level");
		if (!v)
			return -1;
		if (policy_log_level_parse(v, &ps->p->log.level))
			return perr(ps, s, "log.level: unknown level \"%s\" "
				    "(expected off, warn, info, debug)", v);
	}
	return 0;
}

static int add_process(struct parser *ps, const config_setting_t *s,
		       const char *v, void *arg)
{
	struct policy *p = ps->p;
	size_t i;

	(void)arg;
	if (!*v)
		return perr(ps, s, "processes: empty executable name");
	if (strchr(v, '/'))
		return perr(ps, s, "processes: \"%s\" contains '/' (expected "
			    "an executable's base name, like \"java\")", v);
	for (i = 0; i < p->nr_processes; i++)
		if (!strcmp(p->processes[i], v))
			return perr(ps, s, "processes: \"%s\" is listed twice",
				    v);
	p->processes[p->nr_processes] = strdup(v);
	if (!p->processes[p->nr_processes])
		return perr(ps, s, "out of memory");
	p->nr_processes++;
	return 0;
}

static int parse_processes(struct parser *ps, const config_setting_t *s)
{
	size_t n = 1;

	if (is_string_list(s)) {
		n = (size_t)config_setting_length(s);
		if (!n)
			return perr(ps, s, "processes: empty list (remove the "
				    "setting to act in every process)");
	}
	ps->p->processes = calloc(n, sizeof(char *));
	if (!ps->p->processes)
		return perr(ps, s, "out of memory");
	return for_each_string(ps, s, "processes", add_process, NULL);
}

/* The `watch` group belongs to advshim-watch: only its type is checked. */
static int parse_watch(struct parser *ps, const config_setting_t *s)
{
	if (config_setting_type(s) != CONFIG_TYPE_GROUP)
		return conf_type_err(&ps->cc, s, "watch", "a group { ... }");
	ps->p->has_watch = true;
	return 0;
}

/* ---- top level ---- */

static int parse_root(struct parser *ps, const config_setting_t *root)
{
	static const struct {
		const char *key;
		int (*parse)(struct parser *, const config_setting_t *);
	} keys[] = {
		{ "adaptive", parse_adaptive },
		{ "log", parse_log },
		{ "processes", parse_processes },
		{ "rules", parse_rules },
		{ "watch", parse_watch },
	};
	const config_setting_t *s;
	const char *key;
	size_t k, nr_keys = sizeof(keys) / sizeof(keys[0]);
	int i, n;

	if (parse_version(ps, root))
		return -1;
	n = config_setting_length(root);
	for (i = 0; i < n; i++) {
		s = config_setting_get_elem(root, (unsigned int)i);
		key = config_setting_name(s);
		if (!strcmp(key, "version"))
			continue;
		for (k = 0; k < nr_keys && strcmp(key, keys[k].key); k++)
			;
		if (k == nr_keys)
			return conf_unknown_key(&ps->cc, s, "", "version, log, "
						"processes, rules, adaptive, "
						"watch");
		if (keys[k].parse(ps, s))
			return -1;
	}
	return 0;
}

static struct policy *policy_alloc(const char *name)
{
	struct policy *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->source = strdup(name);
	p->log.level = POLICY_LOG_WARN;
	p->log.target = strdup("stderr");
	policy_adaptive_default(&p->adaptive);
	if (!p->source || !p->log.target) {
		policy_free(p);
		return NULL;
	}
	return p;
}

/* parse_text - @buf into ps->p; 0 or -1 with the error in ps->cc. */
static int parse_text(struct parser *ps, const char *buf)
{
	config_t cfg;
	int line = conf_find_include(buf), ret;

	if (line)
		return conf_err_line(&ps->cc, line, "@include is not supported "
				     "(every process would resolve it from its "
				     "own working directory): put all settings "
				     "in one file");
	config_init(&cfg);
	if (!config_read_string(&cfg, buf))
		ret = conf_syntax_err(&ps->cc, &cfg);
	else
		ret = parse_root(ps, config_root_setting(&cfg));
	config_destroy(&cfg);
	return ret;
}

int policy_parse_buffer(const char *buf, const char *name,
			struct policy **out, struct policy_error *err)
{
	struct policy_error dummy;
	struct parser ps = {
		.cc = CONF_CTX(name ? name : "<buffer>", err ? err : &dummy),
	};

	if (!err)
		err = &dummy;
	memset(err, 0, sizeof(*err));
	if (!buf || !out)
		return conf_err_line(&ps.cc, 0, "no policy text");
	ps.p = policy_alloc(ps.cc.name);
	if (!ps.p)
		return conf_err_line(&ps.cc, 0, "out of memory");
	if (parse_text(&ps, buf)) {
		policy_free(ps.p);
		return -1;
	}
	*out = ps.p;
	return 0;
}
