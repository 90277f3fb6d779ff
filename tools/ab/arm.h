/* SPDX-License-Identifier: MIT */
/*
 * arm.h - one arm of an experiment while it runs: its memcg, workloads,
 * watcher and sampler state.  Shared by arm.c (the arm's life),
 * arm_env.c (commands and environments) and sample.c (the samplers);
 * the rest of advshim-ab sees only run.h.  Single-threaded: no locks.
 */
#ifndef ADVSHIM_AB_ARM_H
#define ADVSHIM_AB_ARM_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/lrugen.h"
#include "common/memstat.h"
#include "common/residency.h"
#include "tools/ab/exp.h"
#include "tools/ab/memcg.h"
#include "tools/ab/proc.h"
#include "tools/ab/run.h"
#include "tools/ab/timeline.h"

#define MAX_WL 16
#define MAX_PIDS 64

/* One workload of the arm. */
struct wl_run {
	pid_t pid;		/* 0: not started; -1: exited */
	int status;
	char out[4200];
	struct tail tail;
	char **argv;
	size_t argc;
	struct envv env;
	int rr_seen;		/* -1 unknown, 0 no, 1 yes */
};

/* Bytes a process of the memcg read, per /proc/PID/io. */
struct pid_io {
	pid_t pid;
	uint64_t bytes;
};

struct arm_ctx {
	const struct experiment *e;
	const struct exp_arm *arm;
	const struct ab_opts *o;
	struct memcg mc;
	struct exp_vars vars;
	char dir[4096];
	struct wl_run wl[MAX_WL];
	pid_t watcher;
	char watch_log[4200];
	struct resid resid[AB_MAX_FILES];
	char **paths;		/* real paths of the files */
	uint64_t t0_ns;
	struct memstat ms_prev;
	uint64_t io_prev;	/* /proc/PID/io sum at the last sample */
	uint64_t io_stat0, io_stat_prev;	/* io.stat rbytes: start, last */
	struct pid_io pio[MAX_PIDS];
	int npio;
	struct lrugen_snap lru;	/* the last lru_gen read, reused */
	uint64_t ev_first_start, ev_last_end;	/* mono ms; 0: none */
	uint64_t thr_elapsed;	/* elapsed_ms of the last throughput row */
	struct arm_result *res;
};

/*
 * arm_build_argv - expand workload @w's command (an override may replace
 * it) and build its environment (arm_build_env).  Returns 0, or -1 with a
 * sentence in @why.
 */
int arm_build_argv(struct arm_ctx *c, size_t w, char *why, size_t size);

/*
 * arm_watcher_argv - the watcher's command line for this arm in @argv
 * (room for @max entries, NULL-terminated, each malloc'd; free them with
 * free()).  Returns the count, or -1 (out of memory: what was built is
 * freed).
 */
int arm_watcher_argv(const struct arm_ctx *c, char **argv, int max);

/*
 * sample_begin - first readings of the counters that samples are rates
 * of (memory.stat, io.stat, /proc/PID/io).  Missing files are fine.
 */
void sample_begin(struct arm_ctx *c);

/*
 * sample_take - fill @s for the interval of @dt s ending at @t s: the
 * throughput workload's rows, cold-read events, memory.stat rates, bytes
 * read from storage, file residency, lru_gen generations, VmFlags rr.
 * What cannot be read stays "not available".  Cannot fail.
 */
void sample_take(struct arm_ctx *c, struct sample *s, double t, double dt);

/* sample_events - read the event workload's new start/end lines. */
void sample_events(struct arm_ctx *c);

/* sample_end - free what the samplers kept between samples. */
void sample_end(struct arm_ctx *c);

/*
 * arm_run - run arm @arm of @e in a fresh memcg under @root, fill @res,
 * write its TSV into o->out.  Returns 0, or -1 (the reason is printed and
 * kept in res->note).  Everything it started is stopped on return.
 */
int arm_run(const struct experiment *e, const struct exp_arm *arm,
	    const struct ab_opts *o, const struct memcg_root *root,
	    char **paths, struct arm_result *res);

#endif /* ADVSHIM_AB_ARM_H */
