// SPDX-License-Identifier: MIT
/*
 * main.c - advshim-ab: A/B comparison of advice strategies in fresh memcgs.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/confcheck.h"
#include "common/optdoc.h"
#include "tools/ab/exp.h"
#include "tools/ab/run.h"

static const char usage_head[] =
"usage: advshim-ab [run] [options] [EXPERIMENT]   run (default: built-in experiment)\n"
"       advshim-ab check EXPERIMENT               validate and list the arms\n"
"       advshim-ab report [--no-plot] DIR         re-render tables and plot from DIR\n"
"       advshim-ab --print-default                print the built-in experiment\n"
"run options:\n";

static const char usage_tail[] =
"Needs root and a memory controller (cgroup v2, or v1 memory).  See advshim-ab(1).\n";

enum { O_SHIM = 256, O_CGROOT, O_CGPARENT, O_NO_PLOT };

static const struct optdoc run_opts[] = {
	{ "out", 'o', "DIR",
	  "results directory (default /var/tmp/advshim-ab/results-TIME)" },
	{ "arms", 'a', "A,B", "run only these arms" },
	{ "duration", 'd', "SEC", "override duration_s" },
	{ "dir", 'D', "DIR", "override the experiment's dir (${DIR})" },
	{ "build", 'B', "DIR", "${BUILD} (default: the directory of advshim-ab)" },
	{ "shim", O_SHIM, "PATH",
	  "libadvshim.so (default ${BUILD}/libadvshim.so, else the installed one)" },
	{ "cgroup-root", O_CGROOT, "DIR", "cgroup mount (default /sys/fs/cgroup)" },
	{ "cgroup-parent", O_CGPARENT, "P", "create memcgs under this relative path" },
	{ "quiet", 'q', NULL, "no timeline rows, summary only" },
	{ "no-plot", O_NO_PLOT, NULL, "write plot.gp but do not run gnuplot" },
	{ "help", 'h', NULL, "this text" },
};

static void usage(FILE *f)
{
	optdoc_help(f, usage_head, run_opts, OPTDOC_NR(run_opts), usage_tail);
}

/* print_error - @err as FILE:LINE: message on stderr; returns 2 (usage). */
static int print_error(const struct exp_error *err)
{
	char buf[sizeof(err->file) + sizeof(err->msg) + 16];

	fprintf(stderr, "%s\n", conf_error_text(buf, sizeof(buf), err->file,
						 err->line, err->msg));
	return 2;
}

static void self_dir(char *out, size_t size)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	char *slash;

	snprintf(out, size, ".");
	if (n <= 0)
		return;
	exe[n] = '\0';
	slash = strrchr(exe, '/');
	if (slash) {
		*slash = '\0';
		snprintf(out, size, "%s", exe);
	}
}

/*
 * default_tool - "@build/@name" when it exists (a build tree, or BINDIR
 * holding everything), else "@installed/@name": an installed advshim-ab
 * lives in BINDIR while the library is in LIBDIR and the watcher in SBINDIR.
 */
static void default_tool(char *out, size_t size, const char *build,
			 const char *installed, const char *name)
{
	snprintf(out, size, "%s/%s", build, name);
	if (access(out, F_OK))
		snprintf(out, size, "%s/%s", installed, name);
}

static int split_arms(char *list, struct ab_opts *o)
{
	size_t n = 1;

	for (char *p = list; *p; p++)
		n += *p == ',';
	o->arms = calloc(n, sizeof(char *));
	if (!o->arms)
		return -1;
	for (char *tok = strtok(list, ","); tok; tok = strtok(NULL, ","))
		o->arms[o->narms++] = tok;
	return o->narms ? 0 : -1;
}

static int load(const char *path, struct experiment **e)
{
	struct exp_error err;

	if (!path)
		return exp_parse_buffer(exp_default_text, "<default>", e, &err) ?
			print_error(&err) : 0;
	return exp_load_file(path, e, &err) ? print_error(&err) : 0;
}

static int cmd_check(const char *path)
{
	struct experiment *e;
	int ret = load(path, &e);

	if (ret)
		return ret;
	printf("%s: ok: %s, limit %llu MiB, %g s, %zu files, %zu workloads, %zu arms:\n",
	       path, e->name, (unsigned long long)e->limit_mib, e->duration_s,
	       e->nfiles, e->nwl, e->narms);
	for (size_t i = 0; i < e->narms; i++) {
		const struct exp_arm *a = &e->arms[i];

		printf("  %-16s %s (shim %s%s, lru_gen %s, watcher %s, %zu overrides)\n",
		       a->name, a->label, a->shim.enabled == 1 ? "on" : "off",
		       a->shim.policy ? ", policy file" : a->shim.policy_text ?
		       ", inline policy" : "", a->lru_gen < 0 ? "unchanged" :
		       a->lru_gen ? "y" : "n", !a->watch.enabled ? "off" :
		       a->watch.dry_run ? "dry-run" : "on", a->nov);
	}
	exp_free(e);
	return 0;
}

/* --duration SEC into o->duration_s; 0, or 2 after a message. */
static int take_duration(const char *arg, struct ab_opts *o)
{
	char *end;

	errno = 0;
	o->duration_s = strtod(arg, &end);
	if (errno || *end || !(o->duration_s >= 1)) {
		fprintf(stderr, "advshim-ab: --duration '%s': expected seconds >= 1\n", arg);
		return 2;
	}
	return 0;
}

/* One run option @c (getopt's value) into @o; 0, -1 (help shown) or 2. */
static int take_run_opt(int c, char *arg, struct ab_opts *o)
{
	switch (c) {
	case 'o': o->out = arg; return 0;
	case 'a':
		if (split_arms(arg, o)) {
			fprintf(stderr, "advshim-ab: --arms: expected NAME[,NAME...]\n");
			return 2;
		}
		return 0;
	case 'd': return take_duration(arg, o);
	case 'D':
		if (arg[0] != '/') {
			fprintf(stderr, "advshim-ab: --dir must be absolute\n");
			return 2;
		}
		o->dir = arg;
		return 0;
	case 'B': o->build = arg; return 0;
	case O_SHIM: o->shim = arg; return 0;
	case O_CGROOT: o->cgroot = arg; return 0;
	case O_CGPARENT: o->cgparent = arg; return 0;
	case O_NO_PLOT: o->no_plot = true; return 0;
	case 'q': o->quiet = true; return 0;
	case 'h': usage(stdout); return -1;
	default: fputs("advshim-ab: see --help\n", stderr); return 2;
	}
}

/* Run options into @o; 0, -1 (help shown) or 2 after a message. */
static int parse_run_opts(int argc, char **argv, struct ab_opts *o)
{
	struct optdoc_set set;
	int c, ret;

	optdoc_init(&set, "", run_opts, OPTDOC_NR(run_opts));
	while ((c = optdoc_getopt(&set, argc, argv)) != -1)
		if ((ret = take_run_opt(c, optarg, o)))
			return ret;
	if (optind < argc - 1) {
		fprintf(stderr, "advshim-ab: one EXPERIMENT file expected\n");
		return 2;
	}
	return 0;
}

/* Paths not given on the command line: the shim, the watcher, the results. */
struct run_paths {
	char shim[PATH_MAX + 32];
	char watch[PATH_MAX + 32];
	char out[PATH_MAX];
};

static void default_paths(struct ab_opts *o, const struct experiment *e,
			  struct run_paths *p)
{
	if (!o->shim) {
		default_tool(p->shim, sizeof(p->shim), o->build, ADVSHIM_LIBDIR,
			     "libadvshim.so");
		o->shim = p->shim;
	}
	default_tool(p->watch, sizeof(p->watch), o->build, ADVSHIM_SBINDIR,
		     "advshim-watch");
	o->watch = p->watch;
	if (!o->out) {
		time_t t = time(NULL);
		char stamp[32];

		strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", localtime(&t));
		snprintf(p->out, sizeof(p->out), "%s/results-%s",
			 o->dir ? o->dir : e->dir, stamp);
		o->out = p->out;
	}
}

static int cmd_run(int argc, char **argv)
{
	struct ab_opts o = { .cgroot = "/sys/fs/cgroup",
		.lru_enabled = "/sys/kernel/mm/lru_gen/enabled",
		.lru_debug = "/sys/kernel/debug/lru_gen", .proc = "/proc" };
	char build[PATH_MAX];
	struct run_paths paths;
	struct experiment *e;
	int ret;

	self_dir(build, sizeof(build));
	o.build = build;
	ret = parse_run_opts(argc, argv, &o);
	if (!ret)
		ret = load(optind < argc ? argv[optind] : NULL, &e);
	if (ret) {
		free(o.arms);
		return ret < 0 ? 0 : ret;
	}
	default_paths(&o, e, &paths);
	ret = ab_run(e, &o);
	exp_free(e);
	free(o.arms);
	return ret;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc >= 2 && !strcmp(argv[1], "--print-default")) {
		fputs(exp_default_text, stdout);
		return 0;
	}
	if (argc >= 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		usage(stdout);
		return 0;
	}
	if (argc >= 2 && !strcmp(argv[1], "check")) {
		if (argc != 3) {
			fputs("usage: advshim-ab check EXPERIMENT\n", stderr);
			return 2;
		}
		return cmd_check(argv[2]);
	}
	if (argc >= 2 && !strcmp(argv[1], "report")) {
		bool no_plot = argc == 4 && !strcmp(argv[2], "--no-plot");

		if (argc != 3 + no_plot) {
			fputs("usage: advshim-ab report [--no-plot] DIR\n", stderr);
			return 2;
		}
		return ab_report(argv[argc - 1], no_plot);
	}
	if (argc >= 2 && !strcmp(argv[1], "run"))
		return cmd_run(argc - 1, argv + 1);
	return cmd_run(argc, argv);
}
