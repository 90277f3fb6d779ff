// SPDX-License-Identifier: MIT
/*
 * main.c - advshim-watch: command line, startup checks, the poll loop,
 * signals (SIGHUP reloads the config, SIGTERM/SIGINT stop cleanly) and the
 * metrics textfile.  Everything about lru_gen itself is in watch.c.
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
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

#include "common/readfile.h"
#include "tools/watch/detector.h"
#include "tools/watch/kver.h"
#include "tools/watch/watch.h"
#include "tools/watch/watch_conf.h"
#include "tools/watch/wlog.h"

#define EXIT_ENV 1		/* the machine cannot be watched */
#define EXIT_USAGE 2		/* bad command line or config */
#define EXIT_IDLE 3		/* --once while lru_gen is disabled */
#define DEBUGFS_MAGIC_NR 0x64626720
#define DEFAULT_DEBUGFS "/sys/kernel/debug"

static volatile sig_atomic_t got_stop, got_hup;

static void on_signal(int sig)
{
	if (sig == SIGHUP)
		got_hup = 1;
	else
		got_stop = 1;
}

/* Settings given on the command line beat the config file's. */
struct opts {
	const char *debugfs, *sysfs, *cgroup_root, *kernel, *config, *metrics;
	bool debugfs_given, once;
	enum wlog_format format;
	struct watch_conf cli;		/* values of the given flags */
	bool has_interval, has_persist, has_cooldown, has_dry, has_minref,
	     has_maxact, has_maxage, has_steps, has_spacing, has_growth,
	     has_stuck, has_burst, has_drain;
	char **cgroups;
	size_t nr_cgroups;
};

static void usage(FILE *f)
{
	fprintf(f,
"usage: advshim-watch [OPTION]...\n"
"Ages MGLRU (lru_gen) when a memcg's oldest generation thrashes.\n\n"
"  --cgroup PATH            watch this memcg (the path lru_gen prints);\n"
"                           repeatable; default: the config's list, or all\n"
"  --config FILE            read the `watch` group of an advshim policy\n"
"  --dry-run                log the command instead of writing it\n"
"  --once                   one poll, then exit\n"
"  --interval-ms N          poll period (1000)\n"
"  --persist N              thrashing intervals before aging (3)\n"
"  --cooldown-ms N          no aging after an episode ends (10000)\n"
"  --min-refaults-per-s X   file refaults/s that count as thrash (500)\n"
"  --max-activations-pct X  activations per 100 refaults above which the\n"
"                           memcg is healthy, where meaningful (5)\n"
"  --max-agings-per-min N   aging steps per memcg x node (8)\n"
"  --max-steps N            aging steps per episode (8)\n"
"  --min-age-spacing-ms N   between two bursts of one memcg x node (2000)\n"
"  --min-stuck-pct X        a generation younger than the oldest must hold\n"
"                           this %% of the file pages, else aging cannot\n"
"                           help (10)\n"
"  --max-burst N            aging steps written back to back, 1-4 (4)\n"
"  --drain-timeout-ms N     wait this long for the oldest generation to\n"
"                           drain after a burst; 0: no limit (60000)\n"
"  --max-youngest-growth-pct X  youngest generation growth per interval\n"
"                           (%% of file pages) above which a reader is still\n"
"                           promoting pages: do not age yet (0.25)\n"
"  --log-format text|json   decision log on stdout (text)\n"
"  --metrics-file PATH      Prometheus textfile, replaced each poll\n"
"  --debugfs-root DIR       directory holding lru_gen (/sys/kernel/debug);\n"
"                           giving it also lifts the root requirement\n"
"  --sysfs-root DIR         sysfs root (/sys)\n"
"  --cgroup-root DIR        cgroup mount (/sys/fs/cgroup; v1: DIR/memory)\n"
"  --kernel X.Y             use this kernel's write rules (default: uname)\n"
"  -h, --help               this text;  --version\n");
}

static int parse_uint(const char *s, unsigned int lo, unsigned int hi,
		      unsigned int *out)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || *s == '-' || v < lo || v > hi)
		return -1;
	*out = (unsigned int)v;
	return 0;
}

static int parse_double(const char *s, double hi, double *out)
{
	char *end;
	double v = strtod(s, &end);

	if (end == s || *end || !(v >= 0 && v <= hi))
		return -1;
	*out = v;
	return 0;
}

enum {
	O_CGROUP = 256, O_CONFIG, O_DRY, O_ONCE, O_INTERVAL, O_PERSIST,
	O_COOLDOWN, O_MINREF, O_MAXACT, O_MAXAGE, O_MAXSTEPS, O_SPACING,
	O_GROWTH, O_STUCK, O_BURST, O_DRAIN, O_LOGFMT,
	O_METRICS, O_DEBUGFS, O_SYSFS, O_CGROOT, O_KERNEL, O_VERSION,
};

static const struct option long_opts[] = {
	{ "cgroup", required_argument, NULL, O_CGROUP },
	{ "config", required_argument, NULL, O_CONFIG },
	{ "dry-run", no_argument, NULL, O_DRY },
	{ "once", no_argument, NULL, O_ONCE },
	{ "interval-ms", required_argument, NULL, O_INTERVAL },
	{ "persist", required_argument, NULL, O_PERSIST },
	{ "min-age-spacing-ms", required_argument, NULL, O_SPACING },
	{ "max-youngest-growth-pct", required_argument, NULL, O_GROWTH },
	{ "min-stuck-pct", required_argument, NULL, O_STUCK },
	{ "max-burst", required_argument, NULL, O_BURST },
	{ "drain-timeout-ms", required_argument, NULL, O_DRAIN },
	{ "cooldown-ms", required_argument, NULL, O_COOLDOWN },
	{ "min-refaults-per-s", required_argument, NULL, O_MINREF },
	{ "max-activations-pct", required_argument, NULL, O_MAXACT },
	{ "max-agings-per-min", required_argument, NULL, O_MAXAGE },
	{ "max-steps", required_argument, NULL, O_MAXSTEPS },
	{ "log-format", required_argument, NULL, O_LOGFMT },
	{ "metrics-file", required_argument, NULL, O_METRICS },
	{ "debugfs-root", required_argument, NULL, O_DEBUGFS },
	{ "sysfs-root", required_argument, NULL, O_SYSFS },
	{ "cgroup-root", required_argument, NULL, O_CGROOT },
	{ "kernel", required_argument, NULL, O_KERNEL },
	{ "version", no_argument, NULL, O_VERSION },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static int bad_value(const char *opt, const char *val)
{
	fprintf(stderr, "advshim-watch: invalid value for --%s: '%s'\n", opt,
		val);
	return -1;
}

static int add_cgroup(struct opts *o, char *path)
{
	char **n;

	if (path[0] != '/') {
		fprintf(stderr, "advshim-watch: --cgroup '%s' must start with "
			"'/' (the path as lru_gen prints it)\n", path);
		return -1;
	}
	n = realloc(o->cgroups, (o->nr_cgroups + 1) * sizeof(char *));
	if (!n)
		return -1;
	o->cgroups = n;
	o->cgroups[o->nr_cgroups++] = path;
	return 0;
}

/* One option; 0 ok, -1 bad value, 1 exit 0 (help/version). */
static int take_opt(struct opts *o, int c, char *arg)
{
	const char *name = NULL;
	int i;

	for (i = 0; long_opts[i].name; i++)
		if (long_opts[i].val == c)
			name = long_opts[i].name;
	switch (c) {
	case O_CGROUP:
		return add_cgroup(o, arg);
	case O_CONFIG:
		o->config = arg;
		return 0;
	case O_DRY:
		o->has_dry = o->cli.dry_run = true;
		return 0;
	case O_ONCE:
		o->once = true;
		return 0;
	case O_INTERVAL:
		o->has_interval = true;
		return parse_uint(arg, 10, 3600000, &o->cli.interval_ms) ?
		       bad_value(name, arg) : 0;
	case O_PERSIST:
		o->has_persist = true;
		return parse_uint(arg, 1, 1000, &o->cli.persist) ?
		       bad_value(name, arg) : 0;
	case O_COOLDOWN:
		o->has_cooldown = true;
		return parse_uint(arg, 0, 86400000, &o->cli.cooldown_ms) ?
		       bad_value(name, arg) : 0;
	case O_MINREF:
		o->has_minref = true;
		return parse_double(arg, 1e12, &o->cli.min_refaults_per_s) ?
		       bad_value(name, arg) : 0;
	case O_MAXACT:
		o->has_maxact = true;
		return parse_double(arg, 100, &o->cli.max_activations_pct) ?
		       bad_value(name, arg) : 0;
	case O_MAXAGE:
		o->has_maxage = true;
		return parse_uint(arg, 1, 64, &o->cli.max_agings_per_min) ?
		       bad_value(name, arg) : 0;
	case O_MAXSTEPS:
		o->has_steps = true;
		return parse_uint(arg, 1, 1000, &o->cli.max_steps) ?
		       bad_value(name, arg) : 0;
	case O_SPACING:
		o->has_spacing = true;
		return parse_uint(arg, 0, 3600000,
				  &o->cli.min_age_spacing_ms) ?
		       bad_value(name, arg) : 0;
	case O_GROWTH:
		o->has_growth = true;
		return parse_double(arg, 100,
				    &o->cli.max_youngest_growth_pct) ?
		       bad_value(name, arg) : 0;
	case O_STUCK:
		o->has_stuck = true;
		return parse_double(arg, 100, &o->cli.min_stuck_pct) ?
		       bad_value(name, arg) : 0;
	case O_BURST:
		o->has_burst = true;
		return parse_uint(arg, 1, DET_MAX_GENS, &o->cli.max_burst) ?
		       bad_value(name, arg) : 0;
	case O_DRAIN:
		o->has_drain = true;
		return parse_uint(arg, 0, 3600000, &o->cli.drain_timeout_ms) ?
		       bad_value(name, arg) : 0;
	case O_LOGFMT:
		if (!strcmp(arg, "text"))
			o->format = WLOG_TEXT;
		else if (!strcmp(arg, "json"))
			o->format = WLOG_JSON;
		else
			return bad_value(name, arg);
		return 0;
	case O_METRICS:
		o->metrics = arg;
		return 0;
	case O_DEBUGFS:
		o->debugfs = arg;
		o->debugfs_given = true;
		return 0;
	case O_SYSFS:
		o->sysfs = arg;
		return 0;
	case O_CGROOT:
		o->cgroup_root = arg;
		return 0;
	case O_KERNEL:
		o->kernel = arg;
		return 0;
	case O_VERSION:
		printf("advshim-watch %s\n", ADVSHIM_VERSION);
		return 1;
	case 'h':
		usage(stdout);
		return 1;
	}
	usage(stderr);
	return -1;
}

/* The config file's watch group with the command line on top. */
static int effective_conf(const struct opts *o, struct watch_conf *c,
			  struct policy_error *err)
{
	if (o->config) {
		if (watch_conf_load_file(o->config, c, err))
			return -1;
	} else {
		watch_conf_defaults(c);
	}
	if (o->has_interval)
		c->interval_ms = o->cli.interval_ms;
	if (o->has_persist)
		c->persist = o->cli.persist;
	if (o->has_cooldown)
		c->cooldown_ms = o->cli.cooldown_ms;
	if (o->has_dry)
		c->dry_run = true;
	if (o->has_minref)
		c->min_refaults_per_s = o->cli.min_refaults_per_s;
	if (o->has_maxact)
		c->max_activations_pct = o->cli.max_activations_pct;
	if (o->has_maxage)
		c->max_agings_per_min = o->cli.max_agings_per_min;
	if (o->has_steps)
		c->max_steps = o->cli.max_steps;
	if (o->has_spacing)
		c->min_age_spacing_ms = o->cli.min_age_spacing_ms;
	if (o->has_growth)
		c->max_youngest_growth_pct = o->cli.max_youngest_growth_pct;
	if (o->has_stuck)
		c->min_stuck_pct = o->cli.min_stuck_pct;
	if (o->has_burst)
		c->max_burst = o->cli.max_burst;
	if (o->has_drain)
		c->drain_timeout_ms = o->cli.drain_timeout_ms;
	if (o->nr_cgroups && watch_conf_set_cgroups(c, o->cgroups,
						    o->nr_cgroups)) {
		watch_conf_free(c);
		snprintf(err->msg, sizeof(err->msg), "out of memory");
		return -1;
	}
	return 0;
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
static int check_lrugen(const struct opts *o)
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

static int kernel_rules(const struct opts *o, struct kver_rules *r,
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
	snprintf(desc, size, "kernel %d.%d: %s, %s IDs, activations %s",
		 v.major, v.minor,
		 r->seq_exact ? "seq must equal max_seq" :
		 "seq <= max_seq, EEXIST possible",
		 r->id_u64 ? "u64 cgroup" : "16-bit memcg",
		 r->activations_meaningful ? "used" :
		 "ignored (6.6-6.13 count MADV_RANDOM refaults as activations)");
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

static uint64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
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

static void reload(const struct opts *o, struct watch *w,
		   struct watch_conf *conf, struct wlog *log, uint64_t t)
{
	struct policy_error err;
	struct watch_conf n;
	struct wevent ev;
	char msg[POLICY_ERR_MSG + 300];

	if (effective_conf(o, &n, &err)) {
		snprintf(msg, sizeof(msg), "SIGHUP: %s:%d: %s; keeping the "
			 "previous settings", err.file, err.line, err.msg);
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

static int run(const struct opts *o, struct watch_conf *conf,
	       const struct kver_rules *rules, const char *desc,
	       const char *memcg_root, bool v1)
{
	struct wlog log = { stdout, o->format };
	struct watch_fs *fs;
	struct watch_io io;
	struct watch *w;
	struct wevent ev;
	uint64_t t0 = mono_ms(), next;
	char msg[PATH_MAX + 600];
	int idle = 0;

	fs = watch_fs_new(o->debugfs, o->sysfs, memcg_root);
	if (!fs) {
		perror("advshim-watch");
		return EXIT_ENV;
	}
	watch_fs_io(fs, &io);
	w = watch_new(conf, rules, v1, &io, &log);
	if (!w) {
		watch_fs_free(fs);
		perror("advshim-watch");
		return EXIT_ENV;
	}
	snprintf(msg, sizeof(msg), "%s; memcgs in cgroup %s at %s; %zu "
		 "target(s)%s%s", desc, v1 ? "v1" : "v2", memcg_root,
		 conf->nr_cgroups, conf->nr_cgroups ? "" : " (all memcgs)",
		 conf->dry_run ? "; dry run" : "");
	wevent_init(&ev, "start");
	ev.msg = msg;
	wlog_emit(&log, 0, &ev);
	next = t0;
	while (!got_stop) {
		uint64_t now = mono_ms() - t0;

		if (got_hup) {
			got_hup = 0;
			reload(o, w, conf, &log, now);
		}
		idle = watch_tick(w, now);
		if (o->metrics)
			write_metrics(w, o->metrics, &log, now);
		if (o->once)
			break;
		next += conf->interval_ms;
		if (next < mono_ms())
			next = mono_ms();	/* do not catch up in bursts */
		sleep_until(next);
	}
	wevent_init(&ev, "stop");
	ev.msg = got_stop ? "signal: exiting" : "one pass done";
	wlog_emit(&log, mono_ms() - t0, &ev);
	watch_free(w);
	watch_fs_free(fs);
	return o->once && idle ? EXIT_IDLE : 0;
}

int main(int argc, char **argv)
{
	struct opts o = {
		.debugfs = DEFAULT_DEBUGFS, .sysfs = "/sys",
		.cgroup_root = "/sys/fs/cgroup", .format = WLOG_TEXT,
	};
	struct sigaction sa = { .sa_handler = on_signal };
	struct policy_error err;
	struct watch_conf conf;
	struct kver_rules rules;
	char desc[256], memcg_root[PATH_MAX];
	bool v1 = false;
	int c, ret;

	while ((c = getopt_long(argc, argv, "h", long_opts, NULL)) != -1) {
		ret = take_opt(&o, c, optarg);
		if (ret) {
			free(o.cgroups);
			return ret > 0 ? 0 : EXIT_USAGE;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "advshim-watch: unexpected argument '%s'\n",
			argv[optind]);
		usage(stderr);
		free(o.cgroups);
		return EXIT_USAGE;
	}
	ret = EXIT_USAGE;
	if (effective_conf(&o, &conf, &err)) {
		fprintf(stderr, "advshim-watch: %s:%d: %s\n", err.file,
			err.line, err.msg);
		goto out_opts;
	}
	ret = EXIT_ENV;
	/* debugfs is root-only; a fixture tree (--debugfs-root) is not */
	if (geteuid() != 0 && !o.debugfs_given) {
		fprintf(stderr, "advshim-watch: must run as root (debugfs and "
			"lru_gen writes are root-only); --debugfs-root DIR runs "
			"unprivileged against a fixture tree\n");
		goto out_conf;
	}
	if (kernel_rules(&o, &rules, desc, sizeof(desc)))
		goto out_conf;
	ret = check_lrugen(&o);
	if (ret)
		goto out_conf;
	if (watch_fs_detect_memcg_root(o.cgroup_root, memcg_root,
				       sizeof(memcg_root), &v1)) {
		fprintf(stderr, "advshim-watch: no memory cgroup hierarchy at "
			"%s (neither cgroup2 nor %s/memory); refault rates "
			"would be unknown, so nothing could ever be aged\n",
			o.cgroup_root, o.cgroup_root);
		ret = EXIT_ENV;
		goto out_conf;
	}
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	ret = run(&o, &conf, &rules, desc, memcg_root, v1);
out_conf:
	watch_conf_free(&conf);
out_opts:
	free(o.cgroups);
	return ret;
}
