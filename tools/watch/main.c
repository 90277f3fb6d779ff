// SPDX-License-Identifier: MIT
/*
 * main.c - advshim-watch: startup checks, the poll loop, signals (SIGHUP
 * reloads the config, SIGTERM/SIGINT stop cleanly), the metrics
 * textfile and the HTTP endpoint (watch_http.c), served while it sleeps.  Options are in watch_opts.c, lru_gen itself in watch*.c.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#include "common/cgroup_read.h"
#include "common/clock.h"
#include "common/confcheck.h"
#include "common/readfile.h"
#include "tools/watch/kver.h"
#include "tools/watch/watch.h"
#include "tools/watch/watch_conf.h"
#include "tools/watch/watch_http.h"
#include "tools/watch/watch_opts.h"
#include "tools/watch/watch_replay.h"
#include "tools/watch/wlog.h"

#define EXIT_ENV 1		/* the machine cannot be watched */
#define EXIT_USAGE 2		/* bad command line or config */
#define EXIT_IDLE 3		/* --once while lru_gen is disabled */
#define DEBUGFS_MAGIC_NR 0x64626720

static volatile sig_atomic_t got_stop, got_hup;

static void on_signal(int sig)
{
	if (sig == SIGHUP)
		got_hup = 1;
	else
		got_stop = 1;
}

static bool dir_is_empty(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;
	bool empty = true;

	if (!d)
		return true;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			empty = false;
	closedir(d);
	return empty;
}

/*
 * Can this machine be watched at all?  Says why not, with the fix, and
 * returns EXIT_ENV; 0 when lru_gen is there.
 */
static int check_lrugen(const struct watch_opts *o)
{
	char path[PATH_MAX];
	struct statfs sfs;
	struct stat st;

	if (path_join(path, sizeof(path), o->debugfs, "lru_gen"))
		return EXIT_ENV;
	if (!stat(path, &st))
		return 0;
	if (stat(o->debugfs, &st)) {
		fprintf(stderr, "advshim-watch: %s: %s\n", o->debugfs,
			strerror(errno));
		return EXIT_ENV;
	}
	/* an unmounted /sys/kernel/debug is an empty directory */
	if (dir_is_empty(o->debugfs) ||
	    (!o->debugfs_given && !statfs(o->debugfs, &sfs) &&
	     sfs.f_type != DEBUGFS_MAGIC_NR)) {
		fprintf(stderr, "advshim-watch: debugfs is not mounted at %s; "
			"mount it with: mount -t debugfs none %s\n",
			o->debugfs, o->debugfs);
		return EXIT_ENV;
	}
	fprintf(stderr, "advshim-watch: %s does not exist: this kernel has "
		"no multi-gen LRU (built without CONFIG_LRU_GEN); nothing to "
		"watch\n", path);
	return EXIT_ENV;
}

static int kernel_rules(const struct watch_opts *o, struct kver_rules *r,
			char *desc, size_t size)
{
	struct utsname u;
	struct kver v;
	const char *rel = o->kernel;

	if (!rel) {
		if (uname(&u))
			return -1;
		rel = u.release;
	}
	if (kver_parse(rel, &v)) {
		fprintf(stderr, "advshim-watch: cannot tell the kernel version "
			"from '%s'; pass --kernel X.Y\n", rel);
		return -1;
	}
	if (v.major < 6) {
		fprintf(stderr, "advshim-watch: kernel %d.%d predates the "
			"multi-gen LRU (6.1)\n", v.major, v.minor);
		return -1;
	}
	kver_rules_for(&v, r);
	snprintf(desc, size, "kernel %d.%d: %s, %s IDs", v.major, v.minor,
		 r->seq_exact ? "seq must equal max_seq" :
		 "seq <= max_seq, EEXIST possible",
		 r->id_u64 ? "u64 cgroup" : "16-bit memcg");
	return 0;
}

/* Write the textfile atomically: PATH.tmp, then rename(2). */
static void write_metrics(struct watch *w, const char *path,
			  struct wlog *log, uint64_t now_ms)
{
	char tmp[PATH_MAX];
	struct wevent ev;
	FILE *f;
	int ok;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= (int)sizeof(tmp))
		return;
	f = fopen(tmp, "we");
	ok = f && !watch_write_metrics(w, f);
	if (f && fclose(f))
		ok = 0;
	if (ok && !rename(tmp, path))
		return;
	wevent_init(&ev, "error");
	ev.msg = "cannot write the metrics file";
	ev.error = strerror(errno);
	wlog_emit(log, now_ms, &ev);
	unlink(tmp);
}

/* Sleep until @deadline_ms unless a signal arrives first. */
static void sleep_until(uint64_t deadline_ms)
{
	uint64_t now = mono_ms();
	struct timespec ts;

	if (deadline_ms <= now)
		return;
	ts.tv_sec = (time_t)((deadline_ms - now) / 1000);
	ts.tv_nsec = (long)((deadline_ms - now) % 1000) * 1000000;
	nanosleep(&ts, NULL);	/* EINTR on a signal: fine, we look */
}

/* reload - SIGHUP: the config again; a bad one keeps @conf (logged). */
static void reload(const struct watch_opts *o, struct watch *w,
		   struct watch_conf *conf, struct wlog *log, uint64_t t)
{
	char emsg[sizeof(((struct policy_error *)0)->file) + POLICY_ERR_MSG];
	struct policy_error err;
	struct watch_conf n;
	struct wevent ev;
	char msg[sizeof(emsg) + 64];

	if (watch_opts_conf(o, &n, &err)) {
		snprintf(msg, sizeof(msg), "SIGHUP: %s; keeping the previous "
			 "settings", conf_error_text(emsg, sizeof(emsg),
					 err.file, err.line, err.msg));
		wevent_init(&ev, "error");
		ev.msg = msg;
		wlog_emit(log, t, &ev);
		return;
	}
	if (watch_set_conf(w, &n)) {
		watch_conf_free(&n);
		return;
	}
	watch_conf_free(conf);
	*conf = n;
	wevent_init(&ev, "start");
	ev.msg = "SIGHUP: configuration reloaded";
	wlog_emit(log, t, &ev);
}

/* The machine and how it is watched, settled before the loop starts. */
struct setup {
	struct kver_rules rules;
	char desc[256];		/* the kernel's rules, for the log */
	char memcg_root[PATH_MAX];
	bool v1;
};

static void log_start(struct wlog *log, const struct setup *su,
		      const struct watch_conf *conf)
{
	char msg[PATH_MAX + 600];
	struct wevent ev;

	snprintf(msg, sizeof(msg), "%s; memcgs in cgroup %s at %s; %zu "
		 "target(s)%s%s", su->desc, su->v1 ? "v1" : "v2",
		 su->memcg_root, conf->nr_cgroups,
		 conf->nr_cgroups ? "" : " (all memcgs)",
		 conf->dry_run ? "; dry run" : "");
	wevent_init(&ev, "start");
	ev.msg = msg;
	wlog_emit(log, 0, &ev);
}

static int render(void *w, FILE *f)
{
	return watch_write_metrics(w, f);
}

/*
 * poll_loop - tick every interval until a signal (or once); 1 if idle.
 * Between ticks it sleeps, or serves @http (NULL: none) until the next.
 */
static int poll_loop(const struct watch_opts *o, struct watch *w,
		     struct watch_conf *conf, struct wlog *log,
		     struct whttp *http)
{
	uint64_t t0 = mono_ms(), next = t0, now;
	struct wevent ev;
	int idle = 0;

	while (!got_stop) {
		now = mono_ms() - t0;
		if (got_hup) {
			got_hup = 0;
			reload(o, w, conf, log, now);
		}
		idle = watch_tick(w, now);
		if (o->metrics)
			write_metrics(w, o->metrics, log, now);
		if (o->once)
			break;
		next += conf->interval_ms;
		if (next < mono_ms())
			next = mono_ms();	/* do not catch up in bursts */
		if (http)
			whttp_serve(http, next, render, w);
		else
			sleep_until(next);
	}
	wevent_init(&ev, "stop");
	ev.msg = got_stop ? "signal: exiting" : "one pass done";
	wlog_emit(log, mono_ms() - t0, &ev);
	return idle;
}

static int run(const struct watch_opts *o, struct watch_conf *conf,
	       const struct setup *su)
{
	struct wlog log = { stdout, o->format };
	struct whttp *http = NULL;
	struct watch_fs *fs;
	struct wevent ev;
	struct watch_io io;
	struct watch *w;
	char why[256], msg[300];
	int idle;

	if (o->listen && !(http = whttp_open(o->listen, why, sizeof(why)))) {
		fprintf(stderr, "advshim-watch: %s\n", why);
		return errno == EINVAL ? EXIT_USAGE : EXIT_ENV;
	}
	fs = watch_fs_new(o->debugfs, o->sysfs, su->memcg_root);
	if (!fs) {
		perror("advshim-watch");
		whttp_close(http);
		return EXIT_ENV;
	}
	watch_fs_io(fs, &io);
	w = watch_new(conf, &su->rules, su->v1, &io, &log);
	if (!w) {
		watch_fs_free(fs);
		perror("advshim-watch");
		whttp_close(http);
		return EXIT_ENV;
	}
	log_start(&log, su, conf);
	if (http) {
		snprintf(msg, sizeof(msg), "metrics at http://%s/metrics",
			 whttp_addr(http));
		wevent_init(&ev, "start");
		ev.msg = msg;
		wlog_emit(&log, 0, &ev);
	}
	idle = poll_loop(o, w, conf, &log, http);
	whttp_close(http);
	watch_free(w);
	watch_fs_free(fs);
	return o->once && idle ? EXIT_IDLE : 0;
}

/* check_machine - can it be watched, and how?  0 or EXIT_ENV (said). */
static int check_machine(const struct watch_opts *o, struct setup *su)
{
	int v;

	/* debugfs is root-only; a fixture tree (--debugfs-root) is not */
	if (geteuid() != 0 && !o->debugfs_given) {
		fprintf(stderr, "advshim-watch: must run as root (debugfs and "
			"lru_gen writes are root-only); --debugfs-root DIR runs "
			"unprivileged against a fixture tree\n");
		return EXIT_ENV;
	}
	if (kernel_rules(o, &su->rules, su->desc, sizeof(su->desc)))
		return EXIT_ENV;
	if (check_lrugen(o))
		return EXIT_ENV;
	v = cg_detect_mount(o->cgroup_root, su->memcg_root,
			    sizeof(su->memcg_root));
	su->v1 = v == CG_V1;
	if (v < 0) {
		fprintf(stderr, "advshim-watch: no memory cgroup hierarchy at "
			"%s (neither cgroup2 nor %s/memory); refault rates "
			"would be unknown, so nothing could ever be aged\n",
			o->cgroup_root, o->cgroup_root);
		return EXIT_ENV;
	}
	return 0;
}

/* replay - --replay DIR: the recording's decisions and bursts on stdout. */
static int replay(const struct watch_opts *o, const struct watch_conf *conf)
{
	struct wlog log = { stdout, o->format };
	struct replay_result *res = malloc(sizeof(*res));
	struct replay_case c;
	char why[4200];
	int ret = 0;

	if (!res) {
		fprintf(stderr, "advshim-watch: out of memory\n");
		return 1;
	}
	if (replay_dir(o->replay, conf, &log, &c, res, why, sizeof(why))) {
		fprintf(stderr, "advshim-watch: --replay: %s\n", why);
		ret = 1;
	} else {
		replay_summary(&c, res, stdout);
	}
	free(res);
	return ret;
}

int main(int argc, char **argv)
{
	char emsg[sizeof(((struct policy_error *)0)->file) + POLICY_ERR_MSG];
	struct sigaction sa = { .sa_handler = on_signal };
	struct policy_error err;
	struct watch_opts o;
	struct watch_conf conf;
	struct setup su;
	int ret;

	ret = watch_opts_parse(argc, argv, &o);
	if (ret) {
		watch_opts_free(&o);
		return ret > 0 ? 0 : EXIT_USAGE;
	}
	if (watch_opts_conf(&o, &conf, &err)) {
		fprintf(stderr, "advshim-watch: %s\n",
			conf_error_text(emsg, sizeof(emsg), err.file,
					err.line, err.msg));
		watch_opts_free(&o);
		return EXIT_USAGE;
	}
	if (o.replay) {
		ret = replay(&o, &conf);
		watch_conf_free(&conf);
		watch_opts_free(&o);
		return ret;
	}
	ret = check_machine(&o, &su);
	if (!ret) {
		sigaction(SIGTERM, &sa, NULL);
		sigaction(SIGINT, &sa, NULL);
		sigaction(SIGHUP, &sa, NULL);
		signal(SIGPIPE, SIG_IGN);
		ret = run(&o, &conf, &su);
	}
	watch_conf_free(&conf);
	watch_opts_free(&o);
	return ret;
}
