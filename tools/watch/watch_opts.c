// SPDX-License-Identifier: MIT
/*
 * watch_opts.c - advshim-watch's options: the fixed ones and one per row
 * of the settings table.
 */
#include "tools/watch/watch_opts.h"

#include <getopt.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "common/confcheck.h"
#include "common/optdoc.h"
#include "tools/watch/watch_settings.h"

enum {
	O_CONFIG = 256, O_ONCE, O_LOGFMT, O_METRICS, O_DEBUGFS, O_SYSFS,
	O_CGROOT, O_KERNEL, O_VERSION, O_REPLAY, O_LISTEN,
	O_SETTING = 512,	/* + index in watch_settings[] */
};

struct fixed_opt {
	const char *name;
	const char *metavar;	/* NULL: no argument */
	int val;		/* take_fixed() stores it */
	const char *help;
};

/* Listed before the settings in --help ... */
static const struct fixed_opt head_opts[] = {
	{ "config", "FILE", O_CONFIG,
	  "read the `watch` group of an advshim policy" },
	{ "once", NULL, O_ONCE, "one poll, then exit" },
	{ "replay", "DIR", O_REPLAY,
	  "play a recorded run (DIR/frames.txt, DIR/arm.env) through the "
	  "watcher as a dry run, print every decision and the bursts" },
};

/* ... and after them. */
static const struct fixed_opt tail_opts[] = {
	{ "log-format", "text|json", O_LOGFMT,
	  "decision log on stdout (text)" },
	{ "metrics-file", "PATH", O_METRICS,
	  "Prometheus textfile, replaced each poll (written to PATH.tmp, "
	  "then renamed)" },
	{ "metrics-listen", "ADDR:PORT", O_LISTEN,
	  "serve GET /metrics over HTTP there (PORT alone: 127.0.0.1)" },
	{ "debugfs-root", "DIR", O_DEBUGFS,
	  "directory holding lru_gen (/sys/kernel/debug); giving it also "
	  "lifts the root requirement" },
	{ "sysfs-root", "DIR", O_SYSFS, "sysfs root (/sys)" },
	{ "cgroup-root", "DIR", O_CGROOT,
	  "cgroup mount (/sys/fs/cgroup; v1: DIR/memory)" },
	{ "kernel", "X.Y", O_KERNEL,
	  "use this kernel's write rules (default: uname)" },
	{ "version", NULL, O_VERSION, "the version" },
};

#define NR_FIXED (OPTDOC_NR(head_opts) + OPTDOC_NR(tail_opts) + 1)	/* + --help */

/* put_opt - one option of --help, as every tool prints them (optdoc.c). */
static void put_opt(FILE *f, const char *name, const char *metavar,
		    const char *help)
{
	const struct optdoc d = { name, 0, metavar, help };

	optdoc_put(f, &d, false);
}

static void put_fixed(FILE *f, const struct fixed_opt *o, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		put_opt(f, o[i].name, o[i].metavar, o[i].help);
}

void watch_usage(FILE *f)
{
	const struct watch_setting *s;
	char opt[40], meta[128], help[512], def[64];
	size_t i;

	fprintf(f, "usage: advshim-watch [OPTION]...\n"
		"Ages MGLRU (lru_gen) when a memcg's oldest generation "
		"thrashes.\n\n");
	put_fixed(f, head_opts, OPTDOC_NR(head_opts));
	for (i = 0; i < watch_nr_settings; i++) {
		s = &watch_settings[i];
		if (s->type == WSET_BOOL)
			snprintf(help, sizeof(help), "%s", s->help);
		else if (s->type == WSET_PATHS)
			snprintf(help, sizeof(help), "%s; repeatable", s->help);
		else
			snprintf(help, sizeof(help), "%s (%s)", s->help,
				 wset_format_default(s, def, sizeof(def)));
		put_opt(f, wset_opt_name(s, opt, sizeof(opt)),
			wset_metavar(s, meta, sizeof(meta)), help);
	}
	put_fixed(f, tail_opts, OPTDOC_NR(tail_opts));
	fprintf(f, "  -h, --help               this text\n");
}

static struct option *add_fixed(struct option *lo, const struct fixed_opt *o,
				size_t n)
{
	size_t i;

	for (i = 0; i < n; i++, lo++) {
		lo->name = o[i].name;
		lo->has_arg = o[i].metavar ? required_argument : no_argument;
		lo->flag = NULL;
		lo->val = o[i].val;
	}
	return lo;
}

/* build_opts - getopt's table into @lo; option names into @names. */
static void build_opts(struct option *lo, char (*names)[40])
{
	const struct watch_setting *s;
	size_t i;

	lo = add_fixed(lo, head_opts, OPTDOC_NR(head_opts));
	for (i = 0; i < watch_nr_settings; i++, lo++) {
		s = &watch_settings[i];
		lo->name = wset_opt_name(s, names[i], sizeof(names[i]));
		lo->has_arg = s->type == WSET_BOOL ? no_argument :
			      required_argument;
		lo->flag = NULL;
		lo->val = O_SETTING + (int)i;
	}
	lo = add_fixed(lo, tail_opts, OPTDOC_NR(tail_opts));
	*lo++ = (struct option){ "help", no_argument, NULL, 'h' };
	*lo = (struct option){ NULL, 0, NULL, 0 };
}

/* take_setting - --KEY VALUE (or the flag --KEY) of table row @i. */
static int take_setting(struct watch_opts *o, size_t i, const char *arg)
{
	const struct watch_setting *s = &watch_settings[i];
	char name[48], opt[40], why[256];
	int ret;

	snprintf(name, sizeof(name), "--%s",
		 wset_opt_name(s, opt, sizeof(opt)));
	if (s->type == WSET_BOOL)
		ret = wset_parse(s, &o->cli, "true", name, why, sizeof(why));
	else if (s->type != WSET_PATHS)
		ret = wset_parse(s, &o->cli, arg, name, why, sizeof(why));
	else if (!(ret = wset_check_path(arg, name, why, sizeof(why))) &&
		 (ret = watch_conf_add_cgroup(&o->cli, arg)))
		snprintf(why, sizeof(why), "%s: out of memory", name);
	if (ret) {
		fprintf(stderr, "advshim-watch: %s\n", why);
		return -1;
	}
	o->given |= 1ull << i;
	return 0;
}

static int take_format(struct watch_opts *o, const char *arg)
{
	if (!strcmp(arg, "text")) {
		o->format = WLOG_TEXT;
		return 0;
	}
	if (!strcmp(arg, "json")) {
		o->format = WLOG_JSON;
		return 0;
	}
	fprintf(stderr, "advshim-watch: --log-format: unknown format \"%s\" "
		"(expected text, json)\n", arg);
	return -1;
}

/*
 * fixed_dest - the field of @o that fixed option @c sets to its argument,
 * or NULL when @c is not one of those.
 */
static const char **fixed_dest(struct watch_opts *o, int c)
{
	const struct {
		int val;
		const char **dest;
	} d[] = {
		{ O_CONFIG, &o->config },	{ O_REPLAY, &o->replay },
		{ O_METRICS, &o->metrics },	{ O_LISTEN, &o->listen },
		{ O_DEBUGFS, &o->debugfs },	{ O_SYSFS, &o->sysfs },
		{ O_CGROOT, &o->cgroup_root },	{ O_KERNEL, &o->kernel },
	};
	size_t i;

	for (i = 0; i < OPTDOC_NR(d); i++)
		if (d[i].val == c)
			return d[i].dest;
	return NULL;
}

/*
 * take_fixed - fixed option @c (its argument @arg) into @o: a path or
 * name into its field (fixed_dest), the others here; anything else
 * getopt returns ('?', ':') is a usage error.  0 ok, -1 bad (said), 1
 * exit 0 (help/version).
 */
static int take_fixed(struct watch_opts *o, int c, const char *arg)
{
	const char **dest = fixed_dest(o, c);

	if (dest) {
		*dest = arg;
		if (c == O_DEBUGFS)
			o->debugfs_given = true;
		return 0;
	}
	switch (c) {
	case O_ONCE:
		o->once = true;
		return 0;
	case O_LOGFMT:
		return take_format(o, arg);
	case O_VERSION:
		printf("advshim-watch %s\n", ADVSHIM_VERSION);
		return 1;
	case 'h':
		watch_usage(stdout);
		return 1;
	}
	watch_usage(stderr);
	return -1;
}

/* take_opt - one option; 0 ok, -1 bad (said), 1 exit 0 (help/version). */
static int take_opt(struct watch_opts *o, int c, char *arg)
{
	if (c >= O_SETTING && c < O_SETTING + (int)watch_nr_settings)
		return take_setting(o, (size_t)(c - O_SETTING), arg);
	return take_fixed(o, c, arg);
}

int watch_opts_parse(int argc, char **argv, struct watch_opts *o)
{
	struct option lo[NR_FIXED + WATCH_MAX_SETTINGS + 1];
	char names[WATCH_MAX_SETTINGS][40];
	int c, ret;

	memset(o, 0, sizeof(*o));
	o->debugfs = "/sys/kernel/debug";
	o->sysfs = "/sys";
	o->cgroup_root = "/sys/fs/cgroup";
	o->format = WLOG_TEXT;
	watch_conf_defaults(&o->cli);
	if (watch_nr_settings > WATCH_MAX_SETTINGS) {
		fprintf(stderr, "advshim-watch: %zu settings, at most %d\n",
			watch_nr_settings, WATCH_MAX_SETTINGS);
		return -1;
	}
	build_opts(lo, names);
	optind = 0;	/* glibc: start over, even after an earlier parse */
	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		ret = take_opt(o, c, optarg);
		if (ret)
			return ret;
	}
	if (optind < argc) {
		fprintf(stderr, "advshim-watch: unexpected argument '%s'\n",
			argv[optind]);
		watch_usage(stderr);
		return -1;
	}
	return 0;
}

int watch_opts_conf(const struct watch_opts *o, struct watch_conf *c,
		    struct policy_error *err)
{
	struct conf_ctx cc = CONF_CTX(o->config ? o->config :
				      "advshim-watch", err);
	const struct watch_setting *s;
	size_t i;

	if (o->config) {
		if (watch_conf_load_file(o->config, c, err))
			return -1;
	} else {
		watch_conf_defaults(c);
	}
	for (i = 0; i < watch_nr_settings; i++) {
		s = &watch_settings[i];
		if (!(o->given & (1ull << i)))
			continue;
		if (s->type != WSET_PATHS)
			memcpy((char *)c + s->off,
			       (const char *)&o->cli + s->off, s->size);
		else if (watch_conf_set_cgroups(c, o->cli.cgroups,
						o->cli.nr_cgroups))
			goto nomem;
	}
	return 0;
nomem:
	watch_conf_free(c);
	return conf_err_line(&cc, 0, "out of memory");
}

void watch_opts_free(struct watch_opts *o)
{
	watch_conf_free(&o->cli);
}
