/* SPDX-License-Identifier: MIT */
/*
 * parser.h - what parse.c (the top level) and parse_rule.c (rules) share.
 * Internal to policy/: nothing outside includes it.
 *
 * A parser fills one struct policy that nobody else sees until parsing is
 * done, so none of this locks.  Every function reports the first problem
 * through conf_err() (common/confcheck.h: FILE:LINE: message) and returns
 * -1; what it allocated stays reachable from ps->p for policy_free().
 */
#ifndef ADVSHIM_POLICY_PARSER_H
#define ADVSHIM_POLICY_PARSER_H

#include <libconfig.h>
#include <stdbool.h>

#include "common/confcheck.h"
#include "policy/policy.h"

struct parser {
	struct conf_ctx cc;		/* errors go to the caller's policy_error */
	struct policy *p;
};

/* is_string_list - @s is an array or a list (of strings, hopefully). */
bool is_string_list(const config_setting_t *s);

/*
 * for_each_string - call @fn on every string of @s, which may be a single
 * string or an array/list of strings (each element checked); @name names
 * @s in messages.  Returns 0, or -1 at the first failure.
 */
int for_each_string(struct parser *ps, const config_setting_t *s,
		    const char *name,
		    int (*fn)(struct parser *, const config_setting_t *,
			      const char *, void *),
		    void *arg);

/*
 * parse_rules - the `rules` list into ps->p->rules, each rule validated
 * and checked to be reachable.  Returns 0 or -1.
 */
int parse_rules(struct parser *ps, const config_setting_t *s);

/*
 * parse_adaptive - the `adaptive` group into ps->p->adaptive (which holds
 * the defaults already), each key range-checked, then the whole with
 * adapt_params_check().  Returns 0 or -1.
 */
int parse_adaptive(struct parser *ps, const config_setting_t *g);

/* policy_adaptive_default - the defaults of the `adaptive` group into @a. */
void policy_adaptive_default(struct policy_adaptive *a);

#endif /* ADVSHIM_POLICY_PARSER_H */
