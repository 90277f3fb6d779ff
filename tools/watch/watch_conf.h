/* SPDX-License-Identifier: MIT */
/*
 * watch_conf.h - advshim-watch's settings, and the `watch` group of an
 * advshim policy file that sets them:
 *
 *   watch = {
 *     interval_ms = 1000;
 *     cgroups = [ "/system.slice/opensearch.service" ];
 *     ...
 *   };
 *
 * Every key, with its type, range, default and meaning, is a row of the
 * table in watch_settings.c (the manual pages' lists are generated from
 * it).  The policy parser accepts the group without looking inside; this
 * reader owns its schema.  Parsing is from a buffer; nothing here exits,
 * and nothing locks: a struct watch_conf belongs to whoever holds it.
 */
#ifndef ADVSHIM_WATCH_CONF_H
#define ADVSHIM_WATCH_CONF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "policy/policy.h"
#include "tools/watch/detector.h"

struct watch_conf {
	unsigned int interval_ms;	/* poll period */
	bool dry_run;			/* log commands, write none */
	bool log_decisions;		/* a decision event per lruvec and tick */
	char **cgroups;		/* NULL-terminated when nr_cgroups > 0 */
	size_t nr_cgroups;	/* 0: every memcg */
	struct det_params det;		/* the detector's settings */
	bool from_file;		/* a watch group was present */
};

/* watch_conf_defaults - fill @out with the table's defaults (no allocation). */
void watch_conf_defaults(struct watch_conf *out);

/*
 * watch_conf_parse_buffer - parse policy text @buf (@name for errors) and
 * fill @out from its `watch` group, or with defaults when there is none.
 * Returns 0, or -1 with @err set (FILE:LINE, line >= 1) on a syntax error,
 * an unknown key, a wrong type, a value out of its range, or a cgroup path
 * not starting with '/'.  On failure @out holds nothing to free.
 */
int watch_conf_parse_buffer(const char *buf, const char *name,
			    struct watch_conf *out, struct policy_error *err);

/*
 * watch_conf_load_file - read @path and parse it as above; -1 with @err
 * (line 0) when the file cannot be read.
 */
int watch_conf_load_file(const char *path, struct watch_conf *out,
			 struct policy_error *err);

/* watch_conf_print - the settings as a `watch` group, one key a line. */
void watch_conf_print(const struct watch_conf *c, FILE *f);

/* watch_conf_free - free what parsing allocated; @c may be reused. */
void watch_conf_free(struct watch_conf *c);

/*
 * watch_conf_set_cgroups - replace the cgroup list with copies of @paths
 * (@n of them).  Returns 0 or -1 (ENOMEM; the old list is kept).
 */
int watch_conf_set_cgroups(struct watch_conf *c, char *const *paths,
			   size_t n);

/*
 * watch_conf_add_cgroup - append a copy of @path to the cgroup list.
 * Returns 0 or -1 (ENOMEM; the list is unchanged).
 */
int watch_conf_add_cgroup(struct watch_conf *c, const char *path);

#endif /* ADVSHIM_WATCH_CONF_H */
