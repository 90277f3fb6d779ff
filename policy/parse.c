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
 * it is only noted (policy->has_watch).
 */
#include <errno.h>
#include <libconfig.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "policy/policy.h"

struct parser {
	const char *name;		/* source name used in errors */
	struct policy_error *err;
	struct policy *p;
};

#define MADV_KEYS "normal, random, sequential, willneed, dontneed, others"
#define RULE_KEYS "name, match, " MADV_KEYS ", fadvise, on_map"
#define FADV_KEYS "normal, random, sequential, willneed, dontneed, noreuse, others"

static int line_of(const config_setting_t *s)
{
	int line = s ? (int)config_setting_source_line(s) : 0;

	return line > 0 ? line : 1;
}

/* perr - fill the error for setting @s (NULL: line 1) and return -1. */
__attribute__((format(printf, 3, 4)))
static int perr(struct parser *ps, const config_setting_t *s,
		const char *fmt, ...)
{
	const char *file = s ? config_setting_source_file(s) : NULL;
	va_list ap;

	snprintf(ps->err->file, sizeof(ps->err->file), "%s",
		 file ? file : ps->name);
	ps->err->line = line_of(s);
	va_start(ap, fmt);
	vsnprintf(ps->err->msg, sizeof(ps->err->msg), fmt, ap);
	va_end(ap);
	return -1;
}

static int enomem(struct parser *ps, const config_setting_t *s)
{
	return perr(ps, s, "out of memory");
}

static const char *type_name(const config_setting_t *s)
{
	switch (config_setting_type(s)) {
	case CONFIG_TYPE_GROUP:
		return "a group { ... }";
	case CONFIG_TYPE_INT:
	case CONFIG_TYPE_INT64:
		return "an integer";
	case CONFIG_TYPE_FLOAT:
		return "a floating-point number";
	case CONFIG_TYPE_STRING:
		return "a string";
	case CONFIG_TYPE_BOOL:
		return "a boolean";
	case CONFIG_TYPE_ARRAY:
		return "an array [ ... ]";
	case CONFIG_TYPE_LIST:
		return "a list ( ... )";
	default:
		return "nothing";
	}
}

/* want_string - the string value of @s, or NULL after reporting. */
static const char *want_string(struct parser *ps, const config_setting_t *s,
			       const char *ctx, const char *key)
{
	if (config_setting_type(s) != CONFIG_TYPE_STRING) {
		perr(ps, s, "%s%s: expected a string, got %s", ctx, key,
		     type_name(s));
		return NULL;
	}
	return config_setting_get_string(s);
}

static bool is_string_list(const config_setting_t *s)
{
	int t = config_setting_type(s);

	return t == CONFIG_TYPE_ARRAY || t == CONFIG_TYPE_LIST;
}

/*
 * for_each_string - call @fn on every string of @s, which may be a single
 * string or an array/list of strings (each element checked).
 */
static int for_each_string(struct parser *ps, const config_setting_t *s,
			   const char *ctx, const char *key,
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
		return perr(ps, s, "%s%s: expected a string or a list "
			    "[ \"...\", ... ] of strings, got %s", ctx, key,
			    type_name(s));
	n = config_setting_length(s);
	for (i = 0; i < n; i++) {
		e = config_setting_get_elem(s, (unsigned int)i);
		v = want_string(ps, e, ctx, key);
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
		return perr(ps, s, "version: expected the integer 1, got %s",
			    type_name(s));
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

/* policy_log_level_name - see policy.h. */
const char *policy_log_level_name(enum policy_log_level level)
{
	if ((unsigned int)level > POLICY_LOG_DEBUG)
		return "?";
	return log_level_names[level];
}

/* policy_log_level_parse - see policy.h. */
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

static int parse_log(struct parser *ps, const config_setting_t *g)
{
	const config_setting_t *s;
	const char *key, *v;
	char *dup;
	int i, n;

	if (config_setting_type(g) != CONFIG_TYPE_GROUP)
		return perr(ps, g, "log: expected a group { level = ...; "
			    "target = ...; }, got %s", type_name(g));
	n = config_setting_length(g);
	for (i = 0; i < n; i++) {
		s = config_setting_get_elem(g, (unsigned int)i);
		key = config_setting_name(s);
		if (!strcmp(key, "level")) {
			v = want_string(ps, s, "log.", key);
			if (!v)
				return -1;
			if (policy_log_level_parse(v, &ps->p->log.level))
				return perr(ps, s, "log.level: unknown level "
					    "\"%s\" (expected off, warn, info, "
					    "debug)", v);
		} else if (!strcmp(key, "target")) {
			v = want_string(ps, s, "log.", key);
			if (!v)
				return -1;
			if (strcmp(v, "stderr") && v[0] != '/')
				return perr(ps, s, "log.target: \"%s\" is "
					    "neither \"stderr\" nor an absolute "
					    "path", v);
			if (v[0] == '/' && v[strlen(v) - 1] == '/')
				return perr(ps, s, "log.target: \"%s\" is a "
					    "directory (expected a file path)",
					    v);
			dup = strdup(v);
			if (!dup)
				return enomem(ps, s);
			free(ps->p->log.target);
			ps->p->log.target = dup;
		} else {
			return perr(ps, s, "log: unknown key \"%s\" (expected "
				    "level, target)", key);
		}
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
		return enomem(ps, s);
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
		return enomem(ps, s);
	return for_each_string(ps, s, "", "processes", add_process, NULL);
}

/* ---- rules ---- */

struct rule_ctx {
	struct policy_rule *rule;
	char what[160];			/* `rule "name"` for messages */
};

static int add_glob(struct parser *ps, const config_setting_t *s,
		    const char *v, void *arg)
{
	struct rule_ctx *rc = arg;
	struct policy_rule *r = rc->rule;
	const char *why = NULL;
	size_t i;

	if (glob_validate(v, &why))
		return perr(ps, s, "%s: bad glob \"%s\": %s", rc->what, v, why);
	for (i = 0; i < r->nr_globs; i++)
		if (!strcmp(r->globs[i], v))
			return perr(ps, s, "%s: glob \"%s\" is listed twice",
				    rc->what, v);
	r->globs[r->nr_globs] = strdup(v);
	if (!r->globs[r->nr_globs])
		return enomem(ps, s);
	r->nr_globs++;
	return 0;
}

static int parse_match(struct parser *ps, const config_setting_t *s,
		       struct rule_ctx *rc)
{
	size_t n = 1;

	if (rc->rule->globs)
		return perr(ps, s, "%s: match given twice", rc->what);
	if (is_string_list(s)) {
		n = (size_t)config_setting_length(s);
		if (!n)
			return perr(ps, s, "%s: match is empty (expected at "
				    "least one glob, \"**\" for every file)",
				    rc->what);
	}
	rc->rule->globs = calloc(n, sizeof(char *));
	if (!rc->rule->globs)
		return enomem(ps, s);
	return for_each_string(ps, s, rc->what, ": match", add_glob, rc);
}

/*
 * allowed - the values key @kind of @family accepts, for messages; the
 * rules themselves are in check_action().
 */
static void allowed(enum adv_family fam, enum adv_kind kind, char *buf,
		    size_t size)
{
	size_t len;
	int k;

	if (fam == ADV_FAMILY_FADVISE && kind == ADV_OTHER) {
		snprintf(buf, size, "keep, skip");
		return;
	}
	if (fam == ADV_FAMILY_MADVISE &&
	    (kind == ADV_DONTNEED || kind == ADV_OTHER)) {
		snprintf(buf, size, "keep");
		return;
	}
	snprintf(buf, size, "keep, skip");
	for (k = ADV_NORMAL; k <= ADV_NOREUSE; k++) {
		if (k == ADV_DONTNEED || !adv_family_has(fam, (enum adv_kind)k))
			continue;
		len = strlen(buf);
		snprintf(buf + len, size - len, ", %s",
			 adv_kind_name((enum adv_kind)k));
	}
}

static int parse_action(struct parser *ps, const config_setting_t *s,
			struct rule_ctx *rc, enum adv_family fam,
			enum adv_kind kind)
{
	struct adv_action *a = &rc->rule->action[fam][kind];
	const char *key = config_setting_name(s);
	const char *fk = fam == ADV_FAMILY_FADVISE ? "fadvise." : "";
	char exp[128], kbuf[64];
	enum adv_kind to;
	const char *v;

	snprintf(kbuf, sizeof(kbuf), ": %s%s", fk, key);
	v = want_string(ps, s, rc->what, kbuf);
	if (!v)
		return -1;
	allowed(fam, kind, exp, sizeof(exp));
	if (!strcmp(v, "keep")) {
		a->act = ADV_ACT_KEEP;
		return 0;
	}
	if (strcmp(v, "skip") && (adv_kind_parse(v, &to) ||
				  !strcmp(v, "others")))
		return perr(ps, s, "%s: unknown advice \"%s\" for key %s%s "
			    "(expected %s)", rc->what, v, fk, key, exp);
	if (fam == ADV_FAMILY_MADVISE && kind == ADV_DONTNEED)
		return perr(ps, s, "%s: madvise dontneed can only be keep: on "
			    "MAP_PRIVATE file mappings it discards private "
			    "copies, so \"%s\" would change memory contents "
			    "(fadvise dontneed may be skipped)", rc->what, v);
	/*
	 * madvise values beyond the five named ones include MADV_REMOVE and
	 * MADV_FREE (drop data), MADV_DONTFORK/WIPEONFORK (fork semantics)
	 * and MADV_GUARD_INSTALL (protection): a program relies on their
	 * effect, so claiming success without doing them is not safe.
	 */
	if (fam == ADV_FAMILY_MADVISE && kind == ADV_OTHER)
		return perr(ps, s, "%s: madvise others can only be keep: it "
			    "covers advice like MADV_REMOVE, MADV_FREE and "
			    "MADV_DONTFORK whose effects programs rely on, so "
			    "\"%s\" is unsafe (fadvise others may be skipped)",
			    rc->what, v);
	if (!strcmp(v, "skip")) {
		a->act = ADV_ACT_SKIP;
		return 0;
	}
	if (kind == ADV_OTHER)
		return perr(ps, s, "%s: fadvise.others can only be keep or "
			    "skip: it stands for advice values with meanings of "
			    "their own, rewriting them to \"%s\" is unsafe",
			    rc->what, v);
	if (to == ADV_DONTNEED)
		return perr(ps, s, "%s: rewriting %s%s to dontneed would drop "
			    "cached data (expected %s)", rc->what, fk, key,
			    exp);
	if (fam == ADV_FAMILY_MADVISE && to == ADV_NOREUSE)
		return perr(ps, s, "%s: noreuse is not a madvise advice, "
			    "%s cannot be rewritten to it (use fadvise = "
			    "{ ... } or on_map = [ \"noreuse\" ]; expected %s)",
			    rc->what, key, exp);
	if (to == kind)
		return perr(ps, s, "%s: rewriting %s%s to %s changes nothing: "
			    "use keep", rc->what, fk, key, v);
	a->act = ADV_ACT_REWRITE;
	a->to = to;
	return 0;
}

/* family_key - the advice kind a key names within @fam, or -1. */
static int family_key(enum adv_family fam, const char *key)
{
	enum adv_kind k;

	if (adv_kind_parse(key, &k) || !adv_family_has(fam, k))
		return -1;
	return (int)k;
}

static int parse_fadvise(struct parser *ps, const config_setting_t *g,
			 struct rule_ctx *rc)
{
	const config_setting_t *s;
	int i, n, k;

	if (config_setting_type(g) != CONFIG_TYPE_GROUP)
		return perr(ps, g, "%s: fadvise: expected a group { random = "
			    "...; ... }, got %s", rc->what, type_name(g));
	n = config_setting_length(g);
	for (i = 0; i < n; i++) {
		s = config_setting_get_elem(g, (unsigned int)i);
		k = family_key(ADV_FAMILY_FADVISE, config_setting_name(s));
		if (k < 0)
			return perr(ps, s, "%s: unknown key \"%s\" in fadvise "
				    "(expected " FADV_KEYS ")", rc->what,
				    config_setting_name(s));
		if (parse_action(ps, s, rc, ADV_FAMILY_FADVISE,
				 (enum adv_kind)k))
			return -1;
	}
	return 0;
}

static int add_on_map(struct parser *ps, const config_setting_t *s,
		      const char *v, void *arg)
{
	struct rule_ctx *rc = arg;
	unsigned int bit;

	if (!strcmp(v, "noreuse"))
		bit = MAP_ACT_NOREUSE;
	else if (!strcmp(v, "normal"))
		bit = MAP_ACT_NORMAL;
	else
		return perr(ps, s, "%s: unknown on_map action \"%s\" "
			    "(expected noreuse, normal)", rc->what, v);
	if (rc->rule->on_map & bit)
		return perr(ps, s, "%s: on_map lists \"%s\" twice", rc->what,
			    v);
	rc->rule->on_map |= bit;
	if ((rc->rule->on_map & MAP_ACT_NOREUSE) &&
	    (rc->rule->on_map & MAP_ACT_NORMAL))
		return perr(ps, s, "%s: on_map has both noreuse and normal, "
			    "but normal clears noreuse (expected one of them)",
			    rc->what);
	return 0;
}

static int parse_rule_key(struct parser *ps, const config_setting_t *s,
			  struct rule_ctx *rc)
{
	const char *key = config_setting_name(s);
	int k;

	if (!strcmp(key, "name"))
		return 0;	/* read first, by parse_rule() */
	if (!strcmp(key, "match"))
		return parse_match(ps, s, rc);
	if (!strcmp(key, "fadvise"))
		return parse_fadvise(ps, s, rc);
	if (!strcmp(key, "on_map"))
		return for_each_string(ps, s, rc->what, ": on_map", add_on_map,
				       rc);
	if (!strcmp(key, "noreuse"))
		return perr(ps, s, "%s: noreuse is not a madvise advice "
			    "(put it in fadvise = { noreuse = ...; }, or use "
			    "on_map = [ \"noreuse\" ])", rc->what);
	k = family_key(ADV_FAMILY_MADVISE, key);
	if (k < 0)
		return perr(ps, s, "%s: unknown key \"%s\" (expected "
			    RULE_KEYS ")", rc->what, key);
	return parse_action(ps, s, rc, ADV_FAMILY_MADVISE, (enum adv_kind)k);
}

static int rule_name(struct parser *ps, const config_setting_t *g,
		     struct rule_ctx *rc, size_t idx)
{
	const config_setting_t *s = config_setting_get_member(g, "name");
	struct policy_rule *r = rc->rule;
	const char *v;
	char buf[32];
	size_t i;

	snprintf(rc->what, sizeof(rc->what), "rule %zu", idx + 1);
	if (s) {
		v = want_string(ps, s, rc->what, ": name");
		if (!v)
			return -1;
		if (!*v)
			return perr(ps, s, "%s: empty name (remove it to get "
				    "the default \"rule %zu\")", rc->what,
				    idx + 1);
		r->name = strdup(v);
	} else {
		snprintf(buf, sizeof(buf), "rule %zu", idx + 1);
		r->name = strdup(buf);
	}
	if (!r->name)
		return enomem(ps, s);
	snprintf(rc->what, sizeof(rc->what), "rule \"%s\"", r->name);
	for (i = 0; i < idx; i++)
		if (!strcmp(ps->p->rules[i].name, r->name))
			return perr(ps, s ? s : g, "%s: duplicate rule name "
				    "(rule %zu at line %d has it too)",
				    rc->what, i + 1, ps->p->rules[i].line);
	return 0;
}

/*
 * check_reachable - a rule after one that matches everything, or whose
 * globs all appear in earlier rules, can never fire; a single glob that
 * an earlier rule already has is dead too.  Only these exact cases are
 * reported: general glob containment is not decidable cheaply enough.
 */
static int check_reachable(struct parser *ps, const config_setting_t *g,
			   struct rule_ctx *rc, size_t idx)
{
	const struct policy_rule *prev, *r = rc->rule;
	size_t i, j, k;

	for (i = 0; i < idx; i++) {
		prev = &ps->p->rules[i];
		for (j = 0; j < prev->nr_globs; j++) {
			if (glob_matches_everything(prev->globs[j]))
				return perr(ps, g, "%s can never match: rule "
					    "\"%s\" (line %d) before it matches "
					    "every path with \"%s\" (move the "
					    "catch-all rule last)", rc->what,
					    prev->name, prev->line,
					    prev->globs[j]);
			for (k = 0; k < r->nr_globs; k++)
				if (!strcmp(prev->globs[j], r->globs[k]))
					return perr(ps, g, "%s: glob \"%s\" can "
						    "never match here: rule "
						    "\"%s\" (line %d) has it "
						    "first", rc->what,
						    r->globs[k], prev->name,
						    prev->line);
		}
	}
	return 0;
}

static int parse_rule(struct parser *ps, const config_setting_t *g,
		      size_t idx)
{
	struct rule_ctx rc = { .rule = &ps->p->rules[idx] };
	int i, n;

	rc.rule->line = line_of(g);
	if (config_setting_type(g) != CONFIG_TYPE_GROUP)
		return perr(ps, g, "rules: element %zu: expected a group "
			    "{ match = ...; ... }, got %s", idx + 1,
			    type_name(g));
	/* Count the rule now so that policy_free() frees what it holds. */
	ps->p->nr_rules = idx + 1;
	if (rule_name(ps, g, &rc, idx))
		return -1;
	n = config_setting_length(g);
	for (i = 0; i < n; i++)
		if (parse_rule_key(ps, config_setting_get_elem(g,
					(unsigned int)i), &rc))
			return -1;
	if (!rc.rule->globs)
		return perr(ps, g, "%s: missing match (expected match = "
			    "[ \"glob\", ... ]; use \"**\" for every file)",
			    rc.what);
	return check_reachable(ps, g, &rc, idx);
}

static int parse_rules(struct parser *ps, const config_setting_t *s)
{
	size_t i, n;

	if (!is_string_list(s))
		return perr(ps, s, "rules: expected a list ( { match = ...; "
			    "}, ... ), got %s", type_name(s));
	n = (size_t)config_setting_length(s);
	if (config_setting_type(s) == CONFIG_TYPE_ARRAY && n)
		return perr(ps, s, "rules: expected a list ( { ... }, ... ), "
			    "got an array of scalars");
	if (!n)
		return 0;
	ps->p->rules = calloc(n, sizeof(*ps->p->rules));
	if (!ps->p->rules)
		return enomem(ps, s);
	for (i = 0; i < n; i++)
		if (parse_rule(ps, config_setting_get_elem(s, (unsigned int)i),
			       i))
			return -1;
	return 0;
}

/* ---- top level ---- */

static int parse_root(struct parser *ps, const config_setting_t *root)
{
	const config_setting_t *s;
	const char *key;
	int i, n;

	if (parse_version(ps, root))
		return -1;
	n = config_setting_length(root);
	for (i = 0; i < n; i++) {
		s = config_setting_get_elem(root, (unsigned int)i);
		key = config_setting_name(s);
		if (!strcmp(key, "version"))
			continue;
		if (!strcmp(key, "log")) {
			if (parse_log(ps, s))
				return -1;
		} else if (!strcmp(key, "processes")) {
			if (parse_processes(ps, s))
				return -1;
		} else if (!strcmp(key, "rules")) {
			if (parse_rules(ps, s))
				return -1;
		} else if (!strcmp(key, "watch")) {
			/* advshim-watch validates the inside. */
			if (config_setting_type(s) != CONFIG_TYPE_GROUP)
				return perr(ps, s, "watch: expected a group "
					    "{ ... }, got %s", type_name(s));
			ps->p->has_watch = true;
		} else {
			return perr(ps, s, "unknown top-level key \"%s\" "
				    "(expected version, log, processes, rules, "
				    "watch)", key);
		}
	}
	return 0;
}

/*
 * find_include - line number of the first `@include` directive, or 0.
 * libconfig would resolve includes against the working directory of
 * whichever process loads the policy (the shim runs in all of them), so
 * they are refused outright.  A directive must start its line, and
 * libconfig strings cannot span lines, so this scan has no false hits.
 */
static int find_include(const char *buf)
{
	const char *s = buf;
	int line = 1;

	for (;;) {
		s += strspn(s, " \t\r");
		if (!strncmp(s, "@include", 8))
			return line;
		s = strchr(s, '\n');
		if (!s)
			return 0;
		s++;
		line++;
	}
}

static struct policy *policy_alloc(const char *name)
{
	struct policy *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->source = strdup(name);
	p->log.level = POLICY_LOG_WARN;
	p->log.target = strdup("stderr");
	if (!p->source || !p->log.target) {
		policy_free(p);
		return NULL;
	}
	return p;
}

int policy_parse_buffer(const char *buf, const char *name,
			struct policy **out, struct policy_error *err)
{
	struct policy_error dummy;
	struct parser ps;
	config_t cfg;
	const char *file;
	int ret = -1;

	if (!err)
		err = &dummy;
	memset(err, 0, sizeof(*err));
	ps.name = name ? name : "<buffer>";
	ps.err = err;
	if (!buf || !out) {
		perr(&ps, NULL, "no policy text");
		err->line = 0;
		return -1;
	}
	ps.p = policy_alloc(ps.name);
	if (!ps.p) {
		perr(&ps, NULL, "out of memory");
		err->line = 0;
		return -1;
	}
	config_init(&cfg);
	err->line = find_include(buf);
	if (err->line) {
		snprintf(err->file, sizeof(err->file), "%s", ps.name);
		snprintf(err->msg, sizeof(err->msg), "@include is not "
			 "supported (every process would resolve it from its "
			 "own working directory): put all settings in one file");
		goto out;
	}
	if (!config_read_string(&cfg, buf)) {
		file = config_error_file(&cfg);
		snprintf(err->file, sizeof(err->file), "%s",
			 file ? file : ps.name);
		err->line = config_error_line(&cfg);
		snprintf(err->msg, sizeof(err->msg), "%s",
			 config_error_text(&cfg));
		goto out;
	}
	if (parse_root(&ps, config_root_setting(&cfg)))
		goto out;
	*out = ps.p;
	ps.p = NULL;
	ret = 0;
out:
	config_destroy(&cfg);
	policy_free(ps.p);
	return ret;
}
