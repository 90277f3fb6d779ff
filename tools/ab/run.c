// SPDX-License-Identifier: MIT
/*
 * run.c - one arm after another, each in a fresh memcg.
 *
 * Everything the run creates outside its results directory (workload
 * process groups, the watcher, the memcg, a changed lru_gen/enabled) is
 * recorded in `cleanup` before it exists, and undone by cleanup_now() on
 * every exit path: the end of an arm, an error, SIGINT/SIGTERM (the
 * handler only sets a flag; the sampling loop notices within one tick)
 * and exit() (atexit).
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/readfile.h"
#include "policy/policy.h"
#include "tools/ab/files.h"
#include "tools/ab/kparse.h"
#include "tools/ab/memcg.h"
#include "tools/ab/proc.h"
#include "tools/ab/run.h"

#define MAX_WL 16
#define MAX_PIDS 64

static volatile sig_atomic_t stop_signal;

static struct {
	pid_t pgid[MAX_WL + 1];
	int npgid;
	struct memcg *mc;
	const char *lru_path;
	char lru_saved[64];
	bool lru_dirty;
} cleanup;

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
	uint64_t ev_first_start, ev_last_end;	/* mono ms; 0: none */
	uint64_t thr_elapsed;	/* elapsed_ms of the last throughput row */
	struct arm_result *res;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void on_signal(int sig)
{
	stop_signal = sig;
}

static void sleep_until(uint64_t deadline)
{
	uint64_t now = now_ns();
	struct timespec ts;

	if (now >= deadline)
		return;
	ts.tv_sec = (time_t)((deadline - now) / 1000000000ull);
	ts.tv_nsec = (long)((deadline - now) % 1000000000ull);
	nanosleep(&ts, NULL);	/* EINTR: the caller checks stop_signal */
}

static void forget_pgid(pid_t pgid)
{
	for (int i = 0; i < cleanup.npgid; i++)
		if (cleanup.pgid[i] == pgid)
			cleanup.pgid[i] = cleanup.pgid[--cleanup.npgid];
}

/* SIGTERM the groups, give them @grace_ms, then SIGKILL; reap all. */
static void stop_groups(pid_t *pgids, int n, long grace_ms)
{
	uint64_t until = now_ns() + (uint64_t)grace_ms * 1000000ull;
	bool left = true;

	for (int i = 0; i < n; i++)
		if (pgids[i] > 0)
			kill(-pgids[i], SIGTERM);
	while (left && now_ns() < until) {
		left = false;
		for (int i = 0; i < n; i++) {
			if (pgids[i] <= 0)
				continue;
			if (waitpid(pgids[i], NULL, WNOHANG) == pgids[i] ||
			    (kill(-pgids[i], 0) && errno == ESRCH))
				pgids[i] = -pgids[i];
			else
				left = true;
		}
		if (left)
			sleep_until(now_ns() + 20000000ull);
	}
	for (int i = 0; i < n; i++) {
		pid_t g = pgids[i] < 0 ? -pgids[i] : pgids[i];

		if (g <= 0)
			continue;
		kill(-g, SIGKILL);
		waitpid(g, NULL, 0);
	}
}

static void lru_restore(void)
{
	if (!cleanup.lru_dirty)
		return;
	if (write_file_at(NULL, cleanup.lru_path, cleanup.lru_saved,
			  strlen(cleanup.lru_saved), 0))
		fprintf(stderr, "advshim-ab: could not restore %s to %s: %s\n",
			cleanup.lru_path, cleanup.lru_saved, strerror(errno));
	cleanup.lru_dirty = false;
}

static void cleanup_now(void)
{
	if (cleanup.npgid) {
		pid_t g[MAX_WL + 1];
		int n = cleanup.npgid;

		memcpy(g, cleanup.pgid, sizeof(pid_t) * (size_t)n);
		cleanup.npgid = 0;
		stop_groups(g, n, 2000);
	}
	if (cleanup.mc) {
		if (memcg_destroy(cleanup.mc))
			fprintf(stderr, "advshim-ab: cannot remove memcg %s: %s\n",
				cleanup.mc->fs, strerror(errno));
		cleanup.mc = NULL;
	}
	lru_restore();
}

static void install_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	atexit(cleanup_now);
}

/* ---- set-up per arm ---------------------------------------------------- */

static int lru_set(const struct ab_opts *o, int want, char *why, size_t size)
{
	char *cur;

	if (want < 0)
		return 0;
	if (read_file(o->lru_enabled, &cur, NULL, 0)) {
		snprintf(why, size, "this arm sets lru_gen but %s cannot be read: %s (kernel without CONFIG_LRU_GEN?)",
			 o->lru_enabled, strerror(errno));
		return -1;
	}
	cur[strcspn(cur, "\n")] = '\0';
	snprintf(cleanup.lru_saved, sizeof(cleanup.lru_saved), "%s", cur);
	free(cur);
	cleanup.lru_path = o->lru_enabled;
	cleanup.lru_dirty = true;
	if (write_file_at(NULL, o->lru_enabled, want ? "y" : "n", 1, 0)) {
		snprintf(why, size, "writing %s to %s: %s", want ? "y" : "n",
			 o->lru_enabled, strerror(errno));
		return -1;
	}
	return 0;
}

/* The shim settings that apply to workload @w in this arm. */
static struct exp_shim shim_for(const struct arm_ctx *c, size_t w)
{
	struct exp_shim s = c->arm->shim;

	for (size_t i = 0; i < c->arm->nov; i++) {
		const struct exp_shim *ov = &c->arm->ov[i].shim;

		if (c->arm->ov[i].wl != (int)w)
			continue;
		if (ov->enabled >= 0)
			s.enabled = ov->enabled;
		if (ov->policy || ov->policy_text) {
			s.policy = ov->policy;
			s.policy_text = ov->policy_text;
		}
	}
	return s;
}

static int write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -1;
	fputs(text, f);
	return fclose(f);
}

static int add_env(struct envv *env, const struct arm_ctx *c, char **v,
		   size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char *s;
		int ret;

		if (exp_expand(c->e, &c->vars, v[i], &s))
			return -1;
		ret = envv_set(env, s);
		free(s);
		if (ret)
			return -1;
	}
	return 0;
}

/* Environment of workload @w: no inherited shim unless the arm asks. */
static int build_env(struct arm_ctx *c, size_t w, char *why, size_t size)
{
	struct exp_shim s = shim_for(c, w);
	struct envv *env = &c->wl[w].env;
	char path[4400], *kv = NULL, *pol = NULL;
	int ret = -1;

	if (envv_from_environ(env))
		goto oom;
	envv_unset(env, "LD_PRELOAD");
	envv_unset(env, "ADVSHIM_CONFIG");
	if (s.enabled == 1) {
		snprintf(path, sizeof(path), "%s/policy-%s.conf", c->dir,
			 c->e->wl[w].name);
		if (s.policy) {
			if (exp_expand(c->e, &c->vars, s.policy, &pol))
				goto oom;
		} else if (write_text(path, s.policy_text ? s.policy_text :
				      policy_default_text)) {
			snprintf(why, size, "writing %s: %s", path, strerror(errno));
			return -1;
		}
		if (asprintf(&kv, "LD_PRELOAD=%s", c->o->shim) < 0 ||
		    envv_set(env, kv))
			goto oom;
		free(kv);
		if (asprintf(&kv, "ADVSHIM_CONFIG=%s", pol ? pol : path) < 0 ||
		    envv_set(env, kv))
			goto oom;
	}
	if (add_env(env, c, c->arm->env, c->arm->nenv))
		goto oom;
	for (size_t i = 0; i < c->arm->nov; i++)
		if (c->arm->ov[i].wl == (int)w &&
		    add_env(env, c, c->arm->ov[i].env, c->arm->ov[i].nenv))
			goto oom;
	ret = 0;
	goto out;
oom:
	snprintf(why, size, "out of memory building the environment");
out:
	free(kv);
	free(pol);
	return ret;
}

/* The command of workload @w in this arm (an override may replace it). */
static char *const *command_of(const struct arm_ctx *c, size_t w, size_t *argc)
{
	for (size_t i = 0; i < c->arm->nov; i++) {
		if (c->arm->ov[i].wl == (int)w && c->arm->ov[i].argv) {
			*argc = c->arm->ov[i].argc;
			return c->arm->ov[i].argv;
		}
	}
	*argc = c->e->wl[w].argc;
	return c->e->wl[w].argv;
}

static int build_argv(struct arm_ctx *c, size_t w, char *why, size_t size)
{
	const struct exp_workload *wl = &c->e->wl[w];
	char *const *argv = command_of(c, w, &c->wl[w].argc);

	c->wl[w].argv = calloc(c->wl[w].argc + 1, sizeof(char *));
	if (!c->wl[w].argv)
		goto oom;
	for (size_t i = 0; i < c->wl[w].argc; i++)
		if (exp_expand(c->e, &c->vars, argv[i], &c->wl[w].argv[i]))
			goto oom;
	snprintf(c->wl[w].out, sizeof(c->wl[w].out), "%s/%s.out", c->dir, wl->name);
	return build_env(c, w, why, size);
oom:
	snprintf(why, size, "out of memory building the command of %s", wl->name);
	return -1;
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
	cleanup.pgid[cleanup.npgid++] = r->pid;
	if (tail_open(&r->tail, r->out)) {
		snprintf(why, size, "cannot read %s: %s", r->out, strerror(errno));
		return -1;
	}
	return 0;
}

static int start_watcher(struct arm_ctx *c, char *why, size_t size)
{
	const struct exp_watcher *w = &c->arm->watch;
	char *argv[64] = { NULL }, iv[16], ps[16], exe[4200];
	int n = 0, ret = -1;
	struct envv env;

	if (!w->enabled)
		return 0;
	snprintf(iv, sizeof(iv), "%u", w->interval_ms);
	snprintf(ps, sizeof(ps), "%u", w->persist);
	snprintf(exe, sizeof(exe), "%s", c->o->watch);
	if (w->ncommand) {
		for (size_t i = 0; i < w->ncommand && n < 62; i++)
			if (exp_expand(c->e, &c->vars, w->command[i], &argv[n++]))
				goto out;
	} else {
		const char *fixed[] = { exe, "--cgroup", c->mc.rel, "--interval-ms",
			iv, "--persist", ps, "--log-format", "json" };

		for (size_t i = 0; i < sizeof(fixed) / sizeof(*fixed); i++)
			if (!(argv[n++] = strdup(fixed[i])))
				goto out;
		if (w->dry_run && !(argv[n++] = strdup("--dry-run")))
			goto out;
	}
	for (size_t i = 0; i < w->nargs && n < 62; i++)
		if (exp_expand(c->e, &c->vars, w->args[i], &argv[n++]))
			goto out;
	if (envv_from_environ(&env))
		goto out;
	envv_unset(&env, "LD_PRELOAD");
	snprintf(c->watch_log, sizeof(c->watch_log), "%s/watch.log", c->dir);
	/* The watcher observes the memcg from outside: not charged to it. */
	c->watcher = spawn(argv, env.v, c->watch_log, c->watch_log, NULL, why, size);
	envv_free(&env);
	if (c->watcher < 0) {
		c->watcher = 0;
		goto out;
	}
	cleanup.pgid[cleanup.npgid++] = c->watcher;
	ret = 0;
out:
	if (ret && !why[0])
		snprintf(why, size, "out of memory starting the watcher");
	for (int i = 0; i < n; i++)
		free(argv[i]);
	return ret;
}

/* ---- sampling ----------------------------------------------------------- */

static void reap(struct arm_ctx *c)
{
	for (size_t w = 0; w < c->e->nwl; w++) {
		struct wl_run *r = &c->wl[w];

		if (r->pid > 0 && waitpid(r->pid, &r->status, WNOHANG) == r->pid) {
			forget_pgid(r->pid);
			r->pid = -1;
		}
	}
}

/*
 * Rows of the throughput workload since the last sample, averaged over
 * their own intervals (weighted by length).  advshim-load should report
 * several times per sample (the default experiment: every 250 ms), so a
 * sample never falls between two rows.
 */
static void read_throughput(struct arm_ctx *c, struct sample *s)
{
	struct wl_run *r = &c->wl[c->e->throughput_wl];
	double reads = 0, qps = 0, span = 0;
	struct load_row row;
	char line[1024];

	while (tail_line(&r->tail, line, sizeof(line))) {
		double dt;

		if (!parse_load_row(line, &row))
			continue;
		dt = row.elapsed_ms > c->thr_elapsed ?
			(double)(row.elapsed_ms - c->thr_elapsed) : 1;
		c->thr_elapsed = row.elapsed_ms;
		reads += row.reads_s * dt;
		qps += row.qps * dt;
		span += dt;
		if (isnan(s->p99_us) || row.p99_us > s->p99_us)
			s->p99_us = row.p99_us;
	}
	if (span > 0) {
		s->reads_s = reads / span;
		s->qps = qps / span;
	}
}

static void read_events(struct arm_ctx *c)
{
	struct wl_run *r;
	char line[1024];
	unsigned int loop;
	uint64_t ms;
	bool end;

	if (c->e->event_wl < 0)
		return;
	r = &c->wl[c->e->event_wl];
	if (!r->pid)
		return;
	while (tail_line(&r->tail, line, sizeof(line))) {
		if (!parse_stream_event(line, &end, &loop, &ms))
			continue;
		if (!end && !c->ev_first_start)
			c->ev_first_start = ms;
		if (end)
			c->ev_last_end = ms;
	}
}

static double rate(uint64_t now, uint64_t prev, double dt)
{
	return now >= prev ? (double)(now - prev) / dt : NAN;
}

static void read_memstat(struct arm_ctx *c, struct sample *s, double dt)
{
	char *buf = memcg_read(&c->mc, "memory.stat");
	struct memstat m;

	if (!buf)
		return;
	parse_memstat(buf, c->mc.version == 1, &m);
	free(buf);
	if (m.has_pgmajfault)
		s->majflt_s = rate(m.pgmajfault, c->ms_prev.pgmajfault, dt);
	if (m.has_refault)
		s->refault_s = rate(m.refault_file, c->ms_prev.refault_file, dt);
	if (m.has_activate)
		s->activ_s = rate(m.activate_file, c->ms_prev.activate_file, dt);
	c->ms_prev = m;
}

/* Bytes read so far by the memcg's processes per /proc/PID/io. */
static uint64_t proc_io_total(struct arm_ctx *c)
{
	pid_t pids[MAX_PIDS];
	uint64_t sum = 0;
	char path[64], *buf;
	int n = memcg_pids(&c->mc, pids, MAX_PIDS);

	for (int i = 0; i < n && i < MAX_PIDS; i++) {
		int64_t v;
		int j;

		snprintf(path, sizeof(path), "%d/io", (int)pids[i]);
		if (read_file_at(c->o->proc, path, &buf, NULL, 0))
			continue;
		v = parse_proc_io(buf);
		free(buf);
		if (v < 0)
			continue;
		for (j = 0; j < c->npio && c->pio[j].pid != pids[i]; j++)
			;
		if (j == c->npio) {
			if (c->npio == MAX_PIDS)
				continue;
			c->pio[c->npio++].pid = pids[i];
		}
		if ((uint64_t)v > c->pio[j].bytes)
			c->pio[j].bytes = (uint64_t)v;
	}
	/* Exited processes keep their last value: the sum never drops. */
	for (int j = 0; j < c->npio; j++)
		sum += c->pio[j].bytes;
	return sum;
}

/*
 * MiB/s read from storage since the last sample: the memcg's io.stat on
 * cgroup v2 once it has counted anything (some devices or kernels leave
 * it empty), else the sum of /proc/PID/io read_bytes of its processes
 * (which misses what a process read between its last sample and exit).
 */
static double io_rate(struct arm_ctx *c, double dt)
{
	uint64_t stat = 0, proc = proc_io_total(c), d;
	char *buf;

	if (c->mc.has_io_stat && (buf = memcg_read(&c->mc, "io.stat"))) {
		stat = parse_iostat_rbytes(buf);
		free(buf);
	}
	if (stat > c->io_stat0) {
		d = stat - (c->io_stat_prev > c->io_stat0 ? c->io_stat_prev : c->io_stat0);
		snprintf(c->res->io_source, sizeof(c->res->io_source), "io.stat");
	} else {
		d = proc >= c->io_prev ? proc - c->io_prev : 0;
	}
	c->io_stat_prev = stat;
	c->io_prev = proc;
	return (double)d / 1048576.0 / dt;
}

static void read_gens(struct arm_ctx *c, struct sample *s)
{
	struct gens g;
	char *buf;

	if (read_file(c->o->lru_debug, &buf, NULL, 0))
		return;
	if (!parse_lrugen(buf, c->mc.rel, &g)) {
		s->min_seq = (long)g.min_seq;
		s->max_seq = (long)g.max_seq;
	}
	free(buf);
}

static void read_rr(struct arm_ctx *c, struct sample *s)
{
	int state[AB_MAX_FILES];
	char path[64], *buf;

	for (size_t w = 0; w < c->e->nwl; w++) {
		struct wl_run *r = &c->wl[w];

		if (r->pid <= 0)
			continue;
		snprintf(path, sizeof(path), "%d/smaps", (int)r->pid);
		if (read_file_at(c->o->proc, path, &buf, NULL, 0))
			continue;
		if (parse_smaps_rr(buf, (const char *const *)c->paths,
				   c->e->nfiles, state) > 0) {
			int rr = 0;

			for (size_t i = 0; i < c->e->nfiles; i++)
				rr |= state[i] == 1;
			r->rr_seen = r->rr_seen == 1 || rr;
			if ((int)w == c->e->throughput_wl)
				s->rr = rr;
		}
		free(buf);
	}
}

static void take_sample(struct arm_ctx *c, struct sample *s, double t,
			double dt)
{
	sample_blank(s, t);
	read_throughput(c, s);
	read_events(c);
	read_memstat(c, s, dt);
	s->read_mib_s = io_rate(c, dt);
	for (size_t i = 0; i < c->e->nfiles; i++) {
		int64_t b = resid_bytes(&c->resid[i]);

		s->resid_mib[i] = b < 0 ? NAN : (double)b / 1048576.0;
	}
	read_gens(c, s);
	read_rr(c, s);
}

/* ---- one arm ------------------------------------------------------------ */

static double rel_s(const struct arm_ctx *c, uint64_t mono_ms)
{
	return mono_ms ? ((double)mono_ms * 1e6 - (double)c->t0_ns) / 1e9 : NAN;
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
	if (lru_set(c->o, c->arm->lru_gen, why, size))
		return -1;
	snprintf(name, sizeof(name), "advshim-ab-%d-%s", (int)getpid(), c->arm->name);
	cleanup.mc = &c->mc;
	if (memcg_create(root, name, e->limit_mib << 20, &c->mc, why, size))
		return -1;
	snprintf(c->res->io_source, sizeof(c->res->io_source), "proc-io");
	c->vars.memcg = c->mc.rel;
	c->vars.out = c->dir;
	c->vars.arm = c->arm->name;
	for (size_t w = 0; w < e->nwl; w++)
		if (build_argv(c, w, why, size))
			return -1;
	return 0;
}

static bool event_row(const struct arm_ctx *c, double t0, double t1)
{
	double a = rel_s(c, c->ev_first_start), b = rel_s(c, c->ev_last_end);

	return (!isnan(a) && a > t0 && a <= t1) || (!isnan(b) && b > t0 && b <= t1);
}

/* The sampling loop; returns 0, or -1 with @why (a workload failed). */
static int run_loop(struct arm_ctx *c, double duration, char *why, size_t size)
{
	const struct experiment *e = c->e;
	uint64_t step = (uint64_t)e->interval_ms * 1000000ull, prev_ns;
	uint64_t end = c->t0_ns + (uint64_t)(duration * 1e9);
	struct sample s;
	char *buf;

	if ((buf = memcg_read(&c->mc, "memory.stat"))) {
		parse_memstat(buf, c->mc.version == 1, &c->ms_prev);
		free(buf);
	}
	if (c->mc.has_io_stat && (buf = memcg_read(&c->mc, "io.stat"))) {
		c->io_stat0 = c->io_stat_prev = parse_iostat_rbytes(buf);
		free(buf);
	}
	c->io_prev = proc_io_total(c);
	prev_ns = c->t0_ns;
	for (unsigned long k = 1; !stop_signal; k++) {
		uint64_t due = c->t0_ns + k * step, now;

		if (due > end)
			due = end;
		for (;;) {
			uint64_t next = due;

			now = now_ns();
			for (size_t w = 0; w < e->nwl; w++) {
				uint64_t at = c->t0_ns + e->wl[w].start_ms * 1000000ull;

				if (c->wl[w].pid == 0 && at <= now) {
					if (start_workload(c, w, why, size))
						return -1;
				} else if (c->wl[w].pid == 0 && at < next) {
					next = at;
				}
			}
			if (now >= due || stop_signal)
				break;
			sleep_until(next);
		}
		if (stop_signal)
			break;
		now = now_ns();
		reap(c);
		take_sample(c, &s, (double)(now - c->t0_ns) / 1e9,
			    (double)(now - prev_ns) / 1e9);
		prev_ns = now;
		if (arm_add(c->res, &s)) {
			snprintf(why, size, "out of memory");
			return -1;
		}
		if (!c->o->quiet && (k % e->print_every == 0 || now >= end ||
				     event_row(c, c->res->n > 1 ?
					       c->res->s[c->res->n - 2].t : 0, s.t)))
			print_arm_row(stdout, c->res, &s);
		if (c->wl[e->throughput_wl].pid < 0) {
			snprintf(why, size, "the throughput workload %s exited early (status %d); see %s",
				 e->wl[e->throughput_wl].name,
				 WIFEXITED(c->wl[e->throughput_wl].status) ?
				 WEXITSTATUS(c->wl[e->throughput_wl].status) : -1,
				 c->wl[e->throughput_wl].out);
			return -1;
		}
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

static void finish_arm(struct arm_ctx *c)
{
	pid_t g[MAX_WL + 1];
	int n = 0;
	char *buf;

	for (size_t w = 0; w < c->e->nwl; w++)
		if (c->wl[w].pid > 0)
			g[n++] = c->wl[w].pid;
	if (c->watcher > 0)
		g[n++] = c->watcher;
	stop_groups(g, n, 3000);
	for (int i = 0; i < n; i++)
		forget_pgid(g[i] < 0 ? -g[i] : g[i]);
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
	/* Late events (the cold reader's last "end") are still in its file. */
	read_events(c);
	c->res->event_start = rel_s(c, c->ev_first_start);
	c->res->event_end = rel_s(c, c->ev_last_end);
	if (c->arm->watch.enabled && !read_file(c->watch_log, &buf, NULL, 0)) {
		parse_watch_log(buf, &c->res->watch);
		free(buf);
	}
	if (memcg_destroy(&c->mc))
		fprintf(stderr, "advshim-ab: cannot remove memcg %s: %s\n",
			c->mc.fs, strerror(errno));
	cleanup.mc = NULL;
	lru_restore();
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

static int run_arm(const struct experiment *e, const struct exp_arm *arm,
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
	snprintf(res->name, sizeof(res->name), "%s", arm->name);
	snprintf(res->label, sizeof(res->label), "%s", arm->label);
	res->nfiles = e->nfiles;
	for (size_t i = 0; i < e->nfiles; i++)
		snprintf(res->files[i], sizeof(res->files[i]), "%s", e->files[i].name);
	res->params = (struct ab_params){ e->baseline_s, e->recover_pct,
					  e->settle_majflt, e->settle_intervals };
	res->watch.enabled = arm->watch.enabled;
	res->watch.dry_run = arm->watch.dry_run;
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
	if (stop_signal && !why[0])
		snprintf(why, sizeof(why), "interrupted by signal %d", (int)stop_signal);
	if (why[0]) {
		size_t len = strlen(res->note);

		fprintf(stderr, "advshim-ab: arm %s: %s\n", arm->name, why);
		snprintf(res->note + len, sizeof(res->note) - len, "%s%s",
			 len ? "; " : "", why);
	}
	if (res->note[0] && !why[0])
		fprintf(stderr, "advshim-ab: arm %s: %s\n", arm->name, res->note);
	if (!isnan(res->event_start) && !o->quiet)
		printf("   cold read (%s): %.1f s .. %s\n",
		       e->event_wl >= 0 ? e->wl[e->event_wl].name : "-",
		       res->event_start, isnan(res->event_end) ? "not finished" :
		       (snprintf(why, sizeof(why), "%.1f s", res->event_end), why));
	write_arm_tsv(o->out, res);
	free(c);
	return ret;
}

/* ---- the whole experiment ------------------------------------------------ */

static bool arm_selected(const struct ab_opts *o, const char *name)
{
	if (!o->narms)
		return true;
	for (size_t i = 0; i < o->narms; i++)
		if (!strcmp(o->arms[i], name))
			return true;
	return false;
}

/* Everything that can be checked before any arm runs. */
static int preflight(const struct experiment *e, const struct ab_opts *o,
		     struct memcg_root *root)
{
	char why[1024], path[4200];
	bool shim = false, watch = false, lru = false;

	if (geteuid() != 0) {
		fprintf(stderr, "advshim-ab: must run as root: it creates memory cgroups, drops the test files' page cache and may write /sys/kernel/mm/lru_gen/enabled (try sudo)\n");
		return -1;
	}
	if (memcg_detect(o->cgroot, o->cgparent, root, why, sizeof(why))) {
		fprintf(stderr, "advshim-ab: %s\n", why);
		return -1;
	}
	for (size_t i = 0; i < e->narms; i++) {
		const struct exp_arm *a = &e->arms[i];

		if (!arm_selected(o, a->name))
			continue;
		shim |= a->shim.enabled == 1;
		for (size_t j = 0; j < a->nov; j++)
			shim |= a->ov[j].shim.enabled == 1;
		watch |= a->watch.enabled && !a->watch.ncommand;
		lru |= a->lru_gen >= 0;
	}
	if (shim && access(o->shim, R_OK)) {
		fprintf(stderr, "advshim-ab: an arm uses the shim but %s is missing (build it: make %s, or give --shim PATH)\n",
			o->shim, o->shim);
		return -1;
	}
	snprintf(path, sizeof(path), "%s", o->watch);
	if (watch && access(path, X_OK)) {
		fprintf(stderr, "advshim-ab: an arm runs the watcher but %s is missing (build it first)\n", path);
		return -1;
	}
	if (lru && access(o->lru_enabled, W_OK)) {
		fprintf(stderr, "advshim-ab: an arm sets lru_gen but %s is not writable: %s (this kernel has no MGLRU; drop lru_gen from the arms or run in the lab VM)\n",
			o->lru_enabled, strerror(errno));
		return -1;
	}
	for (size_t i = 0; i < o->narms; i++) {
		bool found = false;

		for (size_t j = 0; j < e->narms; j++)
			found |= !strcmp(o->arms[i], e->arms[j].name);
		if (!found) {
			fprintf(stderr, "advshim-ab: --arms: no arm is named \"%s\"\n", o->arms[i]);
			return -1;
		}
	}
	return 0;
}

/* Create the files (once) and resolve their real paths for smaps. */
static char **setup_files(const struct experiment *e, const struct ab_opts *o)
{
	char **paths = calloc(e->nfiles + 1, sizeof(char *));
	struct exp_vars v = { .build = o->build, .dir = o->dir, .out = o->out,
			      .arm = "", .memcg = "" };
	char why[1024];

	if (!paths)
		return NULL;
	for (size_t i = 0; i < e->nfiles; i++) {
		char *p = NULL;

		if (exp_expand(e, &v, e->files[i].path, &p)) {
			fprintf(stderr, "advshim-ab: expanding %s failed\n", e->files[i].path);
			goto fail;
		}
		if (file_ensure(p, e->files[i].size_mib << 20, why, sizeof(why))) {
			fprintf(stderr, "advshim-ab: %s\n", why);
			free(p);
			goto fail;
		}
		paths[i] = realpath(p, NULL);
		free(p);
		if (!paths[i])
			goto fail;
	}
	return paths;
fail:
	for (size_t i = 0; i < e->nfiles; i++)
		free(paths[i]);
	free(paths);
	return NULL;
}

int ab_run(const struct experiment *e, const struct ab_opts *o)
{
	struct arm_result *res = calloc(e->narms, sizeof(*res));
	struct memcg_root root;
	size_t n = 0;
	char **paths = NULL;
	int ret = 1;

	if (!res)
		return 1;
	if (preflight(e, o, &root))
		goto out;
	if (mkdir(o->out, 0755) && errno != EEXIST) {
		fprintf(stderr, "advshim-ab: mkdir %s: %s\n", o->out, strerror(errno));
		goto out;
	}
	install_signals();
	if (!(paths = setup_files(e, o)))
		goto out;
	printf("advshim-ab: %s: memcg %d MiB (cgroup v%d), %g s per arm, results in %s\n",
	       e->name, (int)e->limit_mib, root.version,
	       o->duration_s > 0 ? o->duration_s : e->duration_s, o->out);
	ret = 0;
	for (size_t i = 0; i < e->narms && !stop_signal; i++) {
		if (!arm_selected(o, e->arms[i].name))
			continue;
		arm_init(&res[n]);
		if (run_arm(e, &e->arms[i], o, &root, paths, &res[n]))
			ret = 1;
		n++;
	}
	if (n && ab_render_saved(o->out, res, n, o->no_plot))
		ret = 1;
	if (stop_signal) {
		fprintf(stderr, "advshim-ab: interrupted; memcgs and workloads cleaned up\n");
		ret = 130;
	}
out:
	cleanup_now();
	for (size_t i = 0; i < n; i++)
		arm_free(&res[i]);
	free(res);
	if (paths)
		for (size_t i = 0; i < e->nfiles; i++)
			free(paths[i]);
	free(paths);
	return ret;
}
