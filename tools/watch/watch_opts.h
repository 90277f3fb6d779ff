/* SPDX-License-Identifier: MIT */
/*
 * watch_opts.h - advshim-watch's command line.
 *
 * The options that set a watcher setting come from the settings table
 * (watch_settings.h): --KEY with '-' for '_', --cgroup repeatable, a flag
 * for a boolean.  The others say where the kernel files are and how to
 * log.  Settings given here beat the config file's (watch_opts_conf).
 *
 * Single-threaded (getopt_long's global state); nothing here locks.
 */
#ifndef ADVSHIM_WATCH_OPTS_H
#define ADVSHIM_WATCH_OPTS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "tools/watch/watch_conf.h"
#include "tools/watch/wlog.h"

/* The one textfile path the shipped unit, drop-in and DaemonSet use. */
#define WATCH_METRICS_FILE "/var/lib/prometheus/node-exporter/advshim-watch.prom"

struct watch_opts {
	const char *debugfs, *sysfs, *cgroup_root, *kernel, *config, *metrics;
	const char *replay;		/* --replay DIR, or NULL */
	const char *listen;		/* --metrics-listen, or NULL */
	bool debugfs_given, once;
	enum wlog_format format;
	struct watch_conf cli;		/* values of the settings given */
	uint64_t given;		/* bit i: watch_settings[i] given */
};

/*
 * watch_opts_parse - @argv into @o (which it initialises: defaults for the
 * paths, no setting given).  Returns 0 to run; 1 when --help or --version
 * was printed on stdout (exit 0); -1 after printing what is wrong and the
 * usage on stderr.  @o holds memory for watch_opts_free() in every case.
 * Resets getopt (optind), so it may be called more than once.
 */
int watch_opts_parse(int argc, char **argv, struct watch_opts *o);

/*
 * watch_opts_conf - the settings to run with: the config file's `watch`
 * group (defaults without --config) with the given options on top.
 * Returns 0, or -1 with @err set (the file's FILE:LINE error, or "out of
 * memory"); @c then holds nothing to free.
 */
int watch_opts_conf(const struct watch_opts *o, struct watch_conf *c,
		    struct policy_error *err);

/* watch_opts_free - free what parsing allocated (@o may be reused). */
void watch_opts_free(struct watch_opts *o);

/* watch_usage - the --help text (options from the table) on @f. */
void watch_usage(FILE *f);

#endif /* ADVSHIM_WATCH_OPTS_H */
