// SPDX-License-Identifier: MIT
/*
 * parse_rule.c - the `rules` list of a policy: globs, the action of every
 * advice key, on_map, and rules that can never match.
 *
 * Values that would change what a program relies on (dropping data,
 * skipping advice whose effect is part of the program's semantics) are
 * refused with the reason, so `advshim check` says why before the shim
 * ever sees them.
 */
#include <stdlib.h>
#include <string.h>

#include "policy/parser.h"

#define MADV_KEYS "normal, random, sequential, willneed, dontneed, others"
#define RULE_KEYS "name, match, " MADV_KEYS ", fadvise, on_map"
#define FADV_KEYS "normal, random, sequential, willneed, dontneed, noreuse, others"

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
		return perr(ps, s, "out of memory");
	r->nr_globs++;
	return 0;
}

static int parse_match(struct parser *ps, const config_setting_t *s,
		       struct rule_ctx *rc)
{
	char name[192];
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
		return perr(ps, s, "out of memory");
	snprintf(name, sizeof(name), "%s: match", rc->what);
	return for_each_string(ps, s, name, add_glob, rc);
}

/*
 * allowed - the values key @kind of @family accepts, for messages; the
 * rules themselves are in refuse_unsafe() and check_rewrite().
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

/* refuse_unsafe - madvise keys that can only be keep; -1 after reporting. */
static int refuse_unsafe(struct parser *ps, const config_setting_t *s,
			 const struct rule_ctx *rc, enum adv_family fam,
			 enum adv_kind kind, const char *v)
{
	if (fam != ADV_FAMILY_MADVISE)
		return 0;
	if (kind == ADV_DONTNEED)
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
	if (kind == ADV_OTHER)
		return perr(ps, s, "%s: madvise others can only be keep: it "
			    "covers advice like MADV_REMOVE, MADV_FREE and "
			    "MADV_DONTFORK whose effects programs rely on, so "
			    "\"%s\" is unsafe (fadvise others may be skipped)",
			    rc->what, v);
	return 0;
}

/* check_rewrite - may key @kind of @fam be rewritten to @to?  0 or -1. */
static int check_rewrite(struct parser *ps, const config_setting_t *s,
			 const struct rule_ctx *rc, enum adv_family fam,
			 enum adv_kind kind, enum adv_kind to)
{
	const char *fk = fam == ADV_FAMILY_FADVISE ? "fadvise." : "";
	const char *key = config_setting_name(s);
	char exp[128];

	allowed(fam, kind, exp, sizeof(exp));
	if (kind == ADV_OTHER)
		return perr(ps, s, "%s: fadvise.others can only be keep or "
			    "skip: it stands for advice values with meanings of "
			    "their own, rewriting them to \"%s\" is unsafe",
			    rc->what, adv_kind_name(to));
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
			    "use keep", rc->what, fk, key, adv_kind_name(to));
	return 0;
}

/* parse_action - one advice key of a rule: keep, skip or another advice. */
static int parse_action(struct parser *ps, const config_setting_t *s,
			struct rule_ctx *rc, enum adv_family fam,
			enum adv_kind kind)
{
	struct adv_action *a = &rc->rule->action[fam][kind];
	const char *fk = fam == ADV_FAMILY_FADVISE ? "fadvise." : "";
	const char *key = config_setting_name(s);
	char name[192], exp[128];
	enum adv_kind to = kind;
	const char *v;

	snprintf(name, sizeof(name), "%s: %s%s", rc->what, fk, key);
	v = conf_get_string(&ps->cc, s, name);
	if (!v)
		return -1;
	if (!strcmp(v, "keep")) {
		a->act = ADV_ACT_KEEP;
		return 0;
	}
	if (strcmp(v, "skip") && (adv_kind_parse(v, &to) ||
				  !strcmp(v, "others"))) {
		allowed(fam, kind, exp, sizeof(exp));
		return perr(ps, s, "%s: unknown advice \"%s\" for key %s%s "
			    "(expected %s)", rc->what, v, fk, key, exp);
	}
	if (refuse_unsafe(ps, s, rc, fam, kind, v))
		return -1;
	if (!strcmp(v, "skip")) {
		a->act = ADV_ACT_SKIP;
		return 0;
	}
	if (check_rewrite(ps, s, rc, fam, kind, to))
		return -1;
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
	char name[192];
	int i, n, k;

	snprintf(name, sizeof(name), "%s: fadvise", rc->what);
	if (config_setting_type(g) != CONFIG_TYPE_GROUP)
		return conf_type_err(&ps->cc, g, name,
				     "a group { random = ...; ... }");
	n = config_setting_length(g);
	for (i = 0; i < n; i++) {
		s = config_setting_get_elem(g, (unsigned int)i);
		k = family_key(ADV_FAMILY_FADVISE, config_setting_name(s));
		if (k < 0) {
			snprintf(name, sizeof(name), "%s: fadvise: ", rc->what);
			return conf_unknown_key(&ps->cc, s, name, FADV_KEYS);
		}
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
	char name[192];
	int k;

	if (!strcmp(key, "name"))
		return 0;	/* read first, by rule_name() */
	if (!strcmp(key, "match"))
		return parse_match(ps, s, rc);
	if (!strcmp(key, "fadvise"))
		return parse_fadvise(ps, s, rc);
	if (!strcmp(key, "on_map")) {
		snprintf(name, sizeof(name), "%s: on_map", rc->what);
		return for_each_string(ps, s, name, add_on_map, rc);
	}
	if (!strcmp(key, "noreuse"))
		return perr(ps, s, "%s: noreuse is not a madvise advice "
			    "(put it in fadvise = { noreuse = ...; }, or use "
			    "on_map = [ \"noreuse\" ])", rc->what);
	k = family_key(ADV_FAMILY_MADVISE, key);
	if (k < 0) {
		snprintf(name, sizeof(name), "%s: ", rc->what);
		return conf_unknown_key(&ps->cc, s, name, RULE_KEYS);
	}
	return parse_action(ps, s, rc, ADV_FAMILY_MADVISE, (enum adv_kind)k);
}

static int rule_name(struct parser *ps, const config_setting_t *g,
		     struct rule_ctx *rc, size_t idx)
{
	const config_setting_t *s = config_setting_get_member(g, "name");
	struct policy_rule *r = rc->rule;
	char buf[192];
	const char *v;
	size_t i;

	snprintf(rc->what, sizeof(rc->what), "rule %zu", idx + 1);
	if (s) {
		snprintf(buf, sizeof(buf), "%s: name", rc->what);
		v = conf_get_string(&ps->cc, s, buf);
		if (!v)
			return -1;
		if (!*v)
			return perr(ps, s, "%s: empty name (remove it to get "
				    "the default \"rule %zu\")", rc->what,
				    idx + 1);
		r->name = strdup(v);
	} else {
		r->name = strdup(rc->what);
	}
	if (!r->name)
		return perr(ps, s, "out of memory");
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
	char name[48];
	int i, n;

	rc.rule->line = conf_line(g);
	if (config_setting_type(g) != CONFIG_TYPE_GROUP) {
		snprintf(name, sizeof(name), "rules: element %zu", idx + 1);
		return conf_type_err(&ps->cc, g, name,
				     "a group { match = ...; ... }");
	}
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

int parse_rules(struct parser *ps, const config_setting_t *s)
{
	size_t i, n;

	if (!is_string_list(s))
		return conf_type_err(&ps->cc, s, "rules",
				     "a list ( { match = ...; }, ... )");
	n = (size_t)config_setting_length(s);
	if (config_setting_type(s) == CONFIG_TYPE_ARRAY && n)
		return perr(ps, s, "rules: expected a list ( { ... }, ... ), "
			    "got an array of scalars");
	if (!n)
		return 0;
	ps->p->rules = calloc(n, sizeof(*ps->p->rules));
	if (!ps->p->rules)
		return perr(ps, s, "out of memory");
	for (i = 0; i < n; i++)
		if (parse_rule(ps, config_setting_get_elem(s, (unsigned int)i),
			       i))
			return -1;
	return 0;
}
