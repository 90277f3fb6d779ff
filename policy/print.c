// SPDX-License-Identifier: MIT
/*
 * print.c - the effective policy as a table, for `advshim check` and
 * `advshim explain`.  Every action is spelt out, defaults included, so
 * what the shim will do never has to be inferred from what is missing.
 */
#include <string.h>

#include "common/confcheck.h"
#include "policy/policy.h"

char *adv_action_format(struct adv_action a, char *buf, size_t size)
{
	if (!buf || !size)
		return buf;
	switch (a.act) {
	case ADV_ACT_SKIP:
		snprintf(buf, size, "skip");
		break;
	case ADV_ACT_REWRITE:
		snprintf(buf, size, "rewrite to %s", adv_kind_name(a.to));
		break;
	case ADV_ACT_ADAPT:
		snprintf(buf, size, "adaptive");
		break;
	default:
		snprintf(buf, size, "keep");
		break;
	}
	return buf;
}

char *policy_error_format(const struct policy_error *err, char *buf,
			  size_t size)
{
	if (!buf || !size)
		return buf;
	if (!err)
		snprintf(buf, size, "unknown error");
	else
		conf_error_text(buf, size, err->file, err->line, err->msg);
	return buf;
}

static const enum adv_kind print_order[] = {
	ADV_NORMAL, ADV_RANDOM, ADV_SEQUENTIAL, ADV_WILLNEED, ADV_DONTNEED,
	ADV_NOREUSE, ADV_OTHER,
};

static void print_cell(const struct policy_rule *rule, enum adv_family fam,
		       enum adv_kind kind, bool last, FILE *f)
{
	char buf[48];

	if (!adv_family_has(fam, kind))
		snprintf(buf, sizeof(buf), "-");
	else
		adv_action_format(policy_decide(rule, fam, kind), buf,
				  sizeof(buf));
	/* No padding after the last column: no trailing blanks. */
	fprintf(f, last ? "%s\n" : "%-20s", buf);
}

void policy_print_actions(const struct policy_rule *rule, FILE *f)
{
	size_t i;

	fprintf(f, "  %-14s%-20s%s\n", "advice", "madvise family",
		"fadvise family");
	for (i = 0; i < sizeof(print_order) / sizeof(print_order[0]); i++) {
		fprintf(f, "  %-14s", adv_kind_name(print_order[i]));
		print_cell(rule, ADV_FAMILY_MADVISE, print_order[i], false, f);
		print_cell(rule, ADV_FAMILY_FADVISE, print_order[i], true, f);
	}
	fprintf(f, "  on_map: ");
	if (!rule->on_map)
		fprintf(f, "nothing\n");
	else if (rule->on_map & MAP_ACT_NOREUSE)
		fprintf(f, "posix_fadvise(fd, 0, 0, POSIX_FADV_NOREUSE)\n");
	else
		fprintf(f, "posix_fadvise(fd, 0, 0, POSIX_FADV_NORMAL)\n");
}

void policy_print_rule(const struct policy *p, const struct policy_rule *rule,
		       FILE *f)
{
	size_t i;

	fprintf(f, "rule \"%s\" (%s:%d)\n", rule->name,
		p && p->source ? p->source : "?", rule->line);
	fprintf(f, "  match:");
	for (i = 0; i < rule->nr_globs; i++)
		fprintf(f, "%s\"%s\"", i ? ", " : " ", rule->globs[i]);
	fprintf(f, "\n");
	policy_print_actions(rule, f);
}

static bool policy_has_catch_all(const struct policy *p)
{
	size_t i, j;

	for (i = 0; i < p->nr_rules; i++)
		for (j = 0; j < p->rules[i].nr_globs; j++)
			if (glob_matches_everything(p->rules[i].globs[j]))
				return true;
	return false;
}

void policy_print_adaptive(const struct policy *p, FILE *f)
{
	const struct policy_adaptive *a = &p->adaptive;
	const struct adapt_params *x = &a->params;

	if (a->line)
		fprintf(f, "adaptive (the group at line %d): ", a->line);
	else
		fprintf(f, "adaptive (defaults): ");
	fprintf(f, "random = \"adaptive\" chooses at run time, per process\n");
	fprintf(f, "  need: the files mapped under such rules and advised "
		"RANDOM; capacity: the memory\n  cgroup's limit minus what is "
		"not page cache (MemAvailable without a limit)\n");
	fprintf(f, "  normal advice while need <= %u%% of capacity, "
		"MADV_RANDOM from %u%%; in between\n  the choice stays, unless "
		"normal advice thrashes for %u samples (usage >= %u%% of\n  "
		"the limit, >= %u major faults/s, >= %u memcg refaults per "
		"fault)\n", x->fit_pct, x->nofit_pct, x->thrash_persist,
		x->thrash_usage_pct, x->thrash_majflt_s, x->thrash_refaults);
	if (x->guard_fit_pct)
		fprintf(f, "  where advshim-watch ages the memory cgroup "
			"(its mark): normal advice is given\n  up above %u%% "
			"when the memcg is full and the process faults >= %u/s "
			"for %u\n  samples, and comes back only at or below "
			"%u%%\n", x->guard_fit_pct, x->thrash_majflt_s,
			x->thrash_persist, x->guard_fit_pct);
	fprintf(f, "  a sample every %u ms; a verdict holds %u samples; "
		"switches >= %u ms apart,\n  <= %u a minute; figures "
		"unreadable %u samples in a row: MADV_RANDOM\n",
		a->interval_ms, x->persist, x->dwell_ms, x->max_per_min,
		x->fail_after);
}

void policy_print(const struct policy *p, FILE *f)
{
	size_t i;

	if (!p || !f)
		return;
	fprintf(f, "policy %s (version %d)\n", p->source, p->version);
	fprintf(f, "log: level %s, target %s\n",
		policy_log_level_name(p->log.level), p->log.target);
	fprintf(f, "processes:");
	if (!p->nr_processes)
		fprintf(f, " all\n");
	for (i = 0; i < p->nr_processes; i++)
		fprintf(f, "%s%s%s", i ? ", " : " ", p->processes[i],
			i + 1 == p->nr_processes ? "\n" : "");
	if (p->has_watch)
		fprintf(f, "watch: present (checked by advshim-watch)\n");
	if (p->has_adaptive)
		policy_print_adaptive(p, f);
	else if (p->adaptive.line)
		fprintf(f, "adaptive: settings unused (no rule has random = "
			"\"adaptive\")\n");
	if (!p->nr_rules) {
		fprintf(f, "no rules: every advice passes through\n");
		return;
	}
	fprintf(f, "rules (first match wins; madvise family = madvise and "
		"posix_madvise):\n");
	for (i = 0; i < p->nr_rules; i++) {
		fprintf(f, "\n%zu. ", i + 1);
		policy_print_rule(p, &p->rules[i], f);
	}
	if (!policy_has_catch_all(p))
		fprintf(f, "\nany other path: every advice passes through\n");
}
