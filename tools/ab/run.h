/* SPDX-License-Identifier: MIT */
/*
 * run.h - running an experiment's arms and rendering the results.
 * advshim-ab is single-threaded: nothing here takes a lock; ab_run
 * installs signal handlers and an atexit cleanup (tools/ab/cleanup.h).
 */
#ifndef ADVSHIM_AB_RUN_H
#define ADVSHIM_AB_RUN_H

#include <stdbool.h>
#include <stddef.h>

#include "tools/ab/exp.h"
#include "tools/ab/timeline.h"

struct ab_opts {
	const char *out;		/* results directory */
	const char *build;		/* ${BUILD} */
	const char *dir;		/* overrides the experiment's dir */
	const char *shim;		/* libadvshim.so */
	const char *watch;		/* advshim-watch */
	const char *cgroot;		/* /sys/fs/cgroup */
	const char *cgparent;		/* relative parent, or NULL */
	const char *lru_enabled;	/* /sys/kernel/mm/lru_gen/enabled */
	const char *lru_debug;		/* /sys/kernel/debug/lru_gen */
	const char *proc;		/* /proc */
	char **arms;			/* run only these (NULL: all) */
	size_t narms;
	double duration_s;		/* > 0: override */
	bool quiet;			/* no timeline rows */
	bool no_plot;
};

/*
 * ab_run - run every selected arm of @e, one after another, each in a
 * fresh memcg; print the timelines and the summary; write the TSVs and
 * the plot into o->out.  Cleans up on every path (SIGINT/SIGTERM too).
 * Returns the process exit status: 0, 1 (environment or run failure) or
 * 130 (interrupted).
 */
int ab_run(const struct experiment *e, const struct ab_opts *o);

/*
 * ab_report - re-render the summary (and summary.tsv, the plot) from the
 * arm TSVs in @dir.  Returns the exit status (0, or 1 with a message).
 */
int ab_report(const char *dir, bool no_plot);

/*
 * ab_render - print the summary of @r, write summary.tsv and (unless
 * @no_plot) the gnuplot script and PNG into @dir.  0, or -1 after a
 * message on stderr.
 */
int ab_render(const char *dir, const struct arm_result *r, size_t n,
	      bool no_plot);

/*
 * ab_render_saved - ab_render() of the arms of @r as read back from
 * their TSV files in @dir, so a live run and `report DIR` print the same
 * numbers.  0, or -1 after a message.
 */
int ab_render_saved(const char *dir, const struct arm_result *r, size_t n,
		    bool no_plot);

#endif /* ADVSHIM_AB_RUN_H */
