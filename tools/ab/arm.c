// SPDX-License-Identifier: MIT
/*
 * arm.c - one arm's life: prepare its files, lru_gen and memcg, start the
 * watcher and (each at its start_ms) the workloads, sample every interval
 * until the duration ends, then stop everything and collect the results.
 * What the arm creates outside its directory is recorded in cleanup.h's
 * record before it exists.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/readfile.h"
#include "tools/ab/arm.h"
#include "tools/ab/cleanup.h"
#include "tools/ab/clock.h"
#include "tools/ab/files.h"
#include "tools/ab/outparse.h"

static double rel_s(const struct arm_ctx *c, uint64_t mono_ms)
{
	return mono_ms ? ((double)mono_ms * 1e6 - (double)c->t0_ns) / 1e9 : NAN;
}

/* Drop the files' page cache and watch their residency. */
static int prepare_files(struct arm_ctx *c, char *why, size_t size)
{
	const struct experiment *e = c->e;

	for (size_t i = 0; i < e->nfiles; i++) {
		int64_t left = file_drop_cache(c->paths[i]);

		if (left < 0) {
			snprintf(why, size, "dropping the page cache of %s: %s",
				 c->paths[i], strerror(errno));
			return -1;
		}
		if (left > (int64_t)(e->files[i].size_mib << 20) / 100)
			fprintf(stderr, "advshim-ab: warning: %.1f MiB of %s still cached after POSIX_FADV_DONTNEED (mapped elsewhere?)\n",
				(double)left / 1048576.0, c->paths[i]);
		if (resid_open(&c->resid[i], c->paths[i])) {
			snprintf(why, size, "mapping %s: %s", c->paths[i], strerror(errno));
			return -1;
		}
	}
	return 0;
}

static int prepare(struct arm_ctx *c, const struct memcg_root *root,
		   char *why, size_t size)
{
	const struct experiment *e = c->e;
	char name[128];

	if (mkdir(c->dir, 0755) && errno != EEXIST) {
		snprintf(why, size, "mkdir %s: %s", c->dir, strerror(errno));
		return -1;
	}
	if (prepare_files(c, why, size))
		return -1;
	if (cleanup_lru_set(c->o->lru_enabled, c->arm->lru_gen, why, size))
		return -1;
	snprintf(name, sizeof(name), "advshim-ab-%d-%s", (int)getpid(), c->arm->name);
	cleanup_set_memcg(&c->mc);
	if (memcg_create(root, name, e->limit_mib << 20, &c->mc, why, size))
		return -1;
	snprintf(c->res->io_source, sizeof(c->res->io_source), "proc-io");
	c->vars.memcg = c->mc.rel;
	c->vars.out = c->dir;
	c->vars.arm = c->arm->name;
	for (size_t w = 0; w < e->nwl; w++)
		if (arm_build_argv(c, w, why, size))
			return -1;
	return 0;
}

static int start_workload(struct arm_ctx *c, size_t w, char *why, size_t size)
{
	struct wl_run *r = &c->wl[w];
	char err[4400];

	snprintf(err, sizeof(err), "%s/%s.err", c->dir, c->e->wl[w].name);
	r->pid = spawn(r->argv, r->env.v, r->out, err, &c->mc, why, size);
	if (r->pid < 0) {
		r->pid = 0;
		return -1;
	}
	cleanup_add_group(r->pid);
	if (tail_open(&r->tail, r->out)) {
		snprintf(why, size, "cannot read %s: %s", r->out, strerror(errno));
		return -1;
	}
	return 0;
}

static int start_watcher(struct arm_ctx *c, char *why, size_t size)
{
	char *argv[64];
	struct envv env;
	int n, ret = -1;

	if (!c->arm->watch.enabled)
		return 0;
	n = arm_watcher_argv(c, argv, 64);
	if (n < 0)
		goto out;
	if (envv_from_environ(&env)) {
		envv_free(&env);
		goto out;
	}
	envv_unset(&env, "LD_PRELOAD");
	snprintf(c->watch_log, sizeof(c->watch_log), "%s/watch.log", c->dir);
	/* The watcher observes the memcg from outside: not charged to it. */
	c->watcher = spawn(argv, env.v, c->watch_log, c->watch_log, NULL, why, size);
	envv_free(&env);
	if (c->watcher < 0) {
		c->watcher = 0;
		goto out;
	}
	cleanup_add_group(c->watcher);
	ret = 0;
out:
	if (ret && !why[0])
		snprintf(why, size, "out of memory starting the watcher");
	for (int i = 0; i < n; i++)
		free(argv[i]);
	return ret;
}

static void reap(struct arm_ctx *c)
{
	for (size_t w = 0; w < c->e->nwl; w++) {
		struct wl_run *r = &c->wl[w];

		if (r->pid > 0 && waitpid(r->pid, &r->status, WNOHANG) == r->pid) {
			cleanup_forget_group(r->pid);
			r->pid = -1;
		}
	}
}

static bool event_row(const struct arm_ctx *c, double t0, double t1)
{
	double a = rel_s(c, c->ev_first_start), b = rel_s(c, c->ev_last_end);

	return (!isnan(a) && a > t0 && a <= t1) || (!isnan(b) && b > t0 && b <= t1);
}

/*
 * Until @due: start each workload whose start_ms has come, sleeping in
 * between.  Returns 0 (also when a signal stopped the wait), or -1 with
 * @why when a workload could not be started.
 */
static int wait_for_tick(struct arm_ctx *c, uint64_t due, char *why,
			 size_t size)
{
	const struct experiment *e = c->e;

	for (;;) {
		uint64_t next = due, now = now_ns();

		for (size_t w = 0; w < e->nwl; w++) {
			uint64_t at = c->t0_ns + e->wl[w].start_ms * 1000000ull;

			if (c->wl[w].pid == 0 && at <= now) {
				if (start_workload(c, w, why, size))
					return -1;
			} else if (c->wl[w].pid == 0 && at < next) {
				next = at;
			}
		}
		if (now >= due || stop_signal())
			return 0;
		sleep_until(next);
	}
}

/* Record sample @s, print it when due; -1 with @why when out of memory. */
static int keep_sample(struct arm_ctx *c, const struct sample *s,
		       unsigned long k, bool last, char *why, size_t size)
{
	const struct arm_result *r = c->res;

	if (arm_add(c->res, s)) {
		snprintf(why, size, "out of memory");
		return -1;
	}
	if (!c->o->quiet && (k % c->e->print_every == 0 || last ||
			     event_row(c, r->n > 1 ? r->s[r->n - 2].t : 0, s->t)))
		print_arm_row(stdout, c->res, s);
	return 0;
}

/* -1 with @why once the throughput workload has exited. */
static int throughput_alive(const struct arm_ctx *c, char *why, size_t size)
{
	const struct wl_run *r = &c->wl[c->e->throughput_wl];

	if (r->pid >= 0)
		return 0;
	snprintf(why, size, "the throughput workload %s exited early (status %d); see %s",
		 c->e->wl[c->e->throughput_wl].name,
		 WIFEXITED(r->status) ? WEXITSTATUS(r->status) : -1, r->out);
	return -1;
}

/* The sampling loop; returns 0, or -1 with @why (a workload failed). */
static int run_loop(struct arm_ctx *c, double duration, char *why, size_t size)
{
	uint64_t step = (uint64_t)c->e->interval_ms * 1000000ull, prev_ns;
	uint64_t end = c->t0_ns + (uint64_t)(duration * 1e9);
	struct sample s;

	sample_begin(c);
	prev_ns = c->t0_ns;
	for (unsigned long k = 1; !stop_signal(); k++) {
		uint64_t due = c->t0_ns + k * step, now;

		if (wait_for_tick(c, due < end ? due : end, why, size))
			return -1;
		if (stop_signal())
			break;
		now = now_ns();
		reap(c);
		sample_take(c, &s, (double)(now - c->t0_ns) / 1e9,
			    (double)(now - prev_ns) / 1e9);
		prev_ns = now;
		if (keep_sample(c, &s, k, now >= end, why, size) ||
		    throughput_alive(c, why, size))
			return -1;
		if (now >= end)
			break;
		/* A sample that took longer than an interval (a loaded or
		 * emulated machine) skips the missed ticks instead of
		 * sampling again at once over a sliver of time. */
		while (c->t0_ns + (k + 1) * step <= now_ns() &&
		       c->t0_ns + (k + 1) * step < end)
			k++;
	}
	return 0;
}

/* Stop the workloads and the watcher; note the ones that failed. */
static void stop_programs(struct arm_ctx *c)
{
	pid_t g[MAX_WL + 1];
	int n = 0;

	for (size_t w = 0; w < c->e->nwl; w++)
		if (c->wl[w].pid > 0)
			g[n++] = c->wl[w].pid;
	if (c->watcher > 0)
		g[n++] = c->watcher;
	stop_groups(g, n, 3000);
	for (int i = 0; i < n; i++)
		cleanup_forget_group(g[i] < 0 ? -g[i] : g[i]);
	/* A workload that ended by itself with a failure is worth a note
	 * (a cold reader that failed leaves the arm without its event). */
	for (size_t w = 0; w < c->e->nwl; w++) {
		int st = c->wl[w].status;
		size_t len = strlen(c->res->note);

		if (c->wl[w].pid == -1 && (!WIFEXITED(st) || WEXITSTATUS(st)) &&
		    (int)w != c->e->throughput_wl)
			snprintf(c->res->note + len, sizeof(c->res->note) - len,
				 "%sworkload %s failed (status %d, see %s.err)",
				 len ? "; " : "", c->e->wl[w].name,
				 WIFEXITED(st) ? WEXITSTATUS(st) : -1,
				 c->e->wl[w].name);
	}
}

static void finish_arm(struct arm_ctx *c)
{
	char *buf;

	stop_programs(c);
	/* Late events (the cold reader's last "end") are still in its file. */
	sample_events(c);
	c->res->event_start = rel_s(c, c->ev_first_start);
	c->res->event_end = rel_s(c, c->ev_last_end);
	if (c->arm->watch.enabled && !read_file(c->watch_log, &buf, NULL, 0)) {
		parse_watch_log(buf, &c->res->watch);
		free(buf);
	}
	if (memcg_destroy(&c->mc))
		fprintf(stderr, "advshim-ab: cannot remove memcg %s: %s\n",
			c->mc.fs, strerror(errno));
	cleanup_set_memcg(NULL);
	cleanup_lru_restore();
	sample_end(c);
	for (size_t i = 0; i < c->e->nfiles; i++)
		resid_close(&c->resid[i]);
	for (size_t w = 0; w < c->e->nwl; w++) {
		tail_close(&c->wl[w].tail);
		if (c->wl[w].argv)
			for (size_t i = 0; i < c->wl[w].argc; i++)
				free(c->wl[w].argv[i]);
		free(c->wl[w].argv);
		envv_free(&c->wl[w].env);
	}
}

static int write_arm_tsv(const char *out, const struct arm_result *r)
{
	char path[4200];
	FILE *f;

	snprintf(path, sizeof(path), "%s/arm-%s.tsv", out, r->name);
	f = fopen(path, "w");
	if (!f || tsv_write_arm(f, r) || fclose(f)) {
		fprintf(stderr, "advshim-ab: writing %s: %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* The arm's result before any sample: names, files, parameters. */
static void result_init(struct arm_result *res, const struct experiment *e,
			const struct exp_arm *arm)
{
	snprintf(res->name, sizeof(res->name), "%s", arm->name);
	snprintf(res->label, sizeof(res->label), "%s", arm->label);
	res->nfiles = e->nfiles;
	for (size_t i = 0; i < e->nfiles; i++)
		snprintf(res->files[i], sizeof(res->files[i]), "%s", e->files[i].name);
	res->params = (struct ab_params){ e->baseline_s, e->recover_pct,
					  e->settle_majflt, e->settle_intervals };
	res->watch.enabled = arm->watch.enabled;
	res->watch.dry_run = arm->watch.dry_run;
}

/* Say what went wrong (stderr and the result's note) and the event. */
static void report_arm(const struct arm_ctx *c, char *why, size_t size)
{
	struct arm_result *res = c->res;
	const struct experiment *e = c->e;

	if (stop_signal() && !why[0])
		snprintf(why, size, "interrupted by signal %d", stop_signal());
	if (why[0]) {
		size_t len = strlen(res->note);

		fprintf(stderr, "advshim-ab: arm %s: %s\n", c->arm->name, why);
		snprintf(res->note + len, sizeof(res->note) - len, "%s%s",
			 len ? "; " : "", why);
	}
	if (res->note[0] && !why[0])
		fprintf(stderr, "advshim-ab: arm %s: %s\n", c->arm->name, res->note);
	if (!isnan(res->event_start) && !c->o->quiet)
		printf("   cold read (%s): %.1f s .. %s\n",
		       e->event_wl >= 0 ? e->wl[e->event_wl].name : "-",
		       res->event_start, isnan(res->event_end) ? "not finished" :
		       (snprintf(why, size, "%.1f s", res->event_end), why));
}

int arm_run(const struct experiment *e, const struct exp_arm *arm,
	    const struct ab_opts *o, const struct memcg_root *root,
	    char **paths, struct arm_result *res)
{
	struct arm_ctx *c = calloc(1, sizeof(*c));
	double duration = o->duration_s > 0 ? o->duration_s : e->duration_s;
	char why[8192] = "";
	int ret;

	if (!c)
		return -1;
	c->e = e;
	c->arm = arm;
	c->o = o;
	c->res = res;
	c->paths = paths;
	c->vars.build = o->build;
	c->vars.dir = o->dir;
	for (size_t w = 0; w < MAX_WL; w++)
		c->wl[w].tail.fd = -1, c->wl[w].rr_seen = -1;
	snprintf(c->dir, sizeof(c->dir), "%s/%s", o->out, arm->name);
	result_init(res, e, arm);
	if (!o->quiet)
		print_arm_head(stdout, res);
	ret = prepare(c, root, why, sizeof(why));
	if (!ret) {
		c->t0_ns = now_ns();
		ret = start_watcher(c, why, sizeof(why));
	}
	if (!ret)
		ret = run_loop(c, duration, why, sizeof(why));
	finish_arm(c);
	report_arm(c, why, sizeof(why));
	write_arm_tsv(o->out, res);
	free(c);
	return ret;
}
