/* SPDX-License-Identifier: MIT */
/*
 * watch_conf.h - the `watch` group of an advshim policy file.
 *
 *   watch = {
 *     interval_ms = 1000;          # poll period
 *     persist = 3;                 # thrashing intervals before aging
 *     cooldown_ms = 10000;         # no aging after an episode ends
 *     dry_run = false;             # log the command instead of writing
 *     cgroups = [ "/system.slice/opensearch.service" ];  # [] = all memcgs
 *     min_refaults_per_s = 500.0;  # file refaults/s that count as thrash
 *     max_activations_pct = 5.0;   # activations/refaults above: healthy
 *     max_agings_per_min = 6;      # per memcg x node
 *     max_steps = 4;               # agings per episode
 *     min_age_spacing_ms = 2000;   # between two agings of one memcg x node
 *     max_youngest_growth_pct = 0.25;  # youngest gen growth per interval
 *                                  # (% of file pages) that means a reader
 *                                  # is still promoting: do not age yet
 *     min_stuck_pct = 10.0;        # a younger gen must hold this % of the
 *                                  # file pages, else aging cannot help
 *     max_burst = 4;               # aging steps written back to back
 *     drain_timeout_ms = 60000;    # wait for min_seq after a burst
 *   };
 *
 * The policy parser accepts the group without looking inside; this reader
 * owns its schema.  Parsing is from a buffer; nothing here exits.
 */
#ifndef ADVSHIM_WATCH_CONF_H
#define ADVSHIM_WATCH_CONF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "policy/policy.h"

struct watch_conf {
	unsigned int interval_ms;
	unsigned int persist;
	unsigned int cooldown_ms;
	bool dry_run;
	char **cgroups;		/* NULL-terminated when nr_cgroups > 0 */
	size_t nr_cgroups;	/* 0: every memcg */
	double min_refaults_per_s;
	double max_activations_pct;
	unsigned int max_agings_per_min;
	unsigned int max_steps;
	unsigned int min_age_spacing_ms;
	double max_youngest_growth_pct;
	double min_stuck_pct;
	unsigned int max_burst;
	unsigned int drain_timeout_ms;
	bool from_file;		/* a watch group was present */
};

/* watch_conf_defaults - fill @out with the defaults (no allocation). */
void watch_conf_defaults(struct watch_conf *out);

/*
 * watch_conf_parse_buffer - parse policy text @buf (@name for errors) and
 * fill @out from its `watch` group, or with defaults when there is none.
 * Returns 0, or -1 with @err set (file:line) on a syntax error, an unknown
 * key, a wrong type, or an impossible value (interval_ms 0, persist 0,
 * max_steps 0, max_agings_per_min 0, max_burst 0 or > 4, negative thresholds, a cgroup path not
 * starting with '/').  On failure @out holds nothing to free.
 */
int watch_conf_parse_buffer(const char *buf, const char *name,
			    struct watch_conf *out, struct policy_error *err);

/*
 * watch_conf_load_file - read @path and parse it as above; -1 with @err
 * (line 0) when the file cannot be read.
 */
int watch_conf_load_file(const char *path, struct watch_conf *out,
			 struct policy_error *err);

/* watch_conf_print - the effective settings, one "key = value;" a line. */
void watch_conf_print(const struct watch_conf *c, FILE *f);

/* watch_conf_free - free what parsing allocated; @c may be reused. */
void watch_conf_free(struct watch_conf *c);

/*
 * watch_conf_set_cgroups - replace the cgroup list with copies of @paths
 * (@n of them).  Returns 0 or -1 (ENOMEM; the old list is kept).
 */
int watch_conf_set_cgroups(struct watch_conf *c, char *const *paths,
			   size_t n);

#endif /* ADVSHIM_WATCH_CONF_H */
