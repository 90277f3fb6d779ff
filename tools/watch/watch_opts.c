// SPDX-License-Identifier: MIT
/*
 * watch_opts.c - advshim-watch's options as optdoc rows (common/optdoc.h):
 * the fixed ones and one per row of the settings table.
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

/* Listed before the settings in --help ... */
static const struct optdoc head_opts[] = {
	{ "config", O_CONFIG, "FILE",
	  "read the `watch` group of an advshim policy" },
	{ "once", O_ONCE, NULL, "one poll, then exit" },
	{ "replay", O_REPLAY, "DIR",
	  "play a recorded run (DIR/frames.txt, DIR/arm.env) through the "
	  "watcher as a dry run, print every decision and the bursts" },
};

/* ... and after them.  take_fixed() stores each one. */
static const struct optdoc tail_opts[] = {
	{ "log-format", O_LOGFMT, "text|json",
	  "decision log on stdout (text)" },
	{ "metrics-file", O_METRICS, "PATH",
	  "Prometheus textfile, replaced each poll (written to PATH.tmp, "
	  "then renamed)" },
	{ "metrics-listen", O_LISTEN, "ADDR:PORT",
	  "serve GET /metrics over HTTP there (PORT alone: 127.0.0.1)" },
	{ "debugfs-root", O_DEBUGFS, "DIR",
	  "directory holding lru_gen (/sys/kernel/debug); giving it also "
	  "lifts the root requirement" },
	{ "sysfs-root", O_SYSFS, "DIR", "sysfs root (/sys)" },
	{ "cgroup-root", O_CGROOT, "DIR",
	  "cgroup mount (/sys/fs/cgroup; v1: DIR/memory)" },
	{ "kernel", O_KERNEL, "X.Y",
	  "use this kernel's write rules (default: uname)" },
	{ "version", O_VERSION, NULL, "the version" },
	{ "help", 'h', NULL, "this text" },
};

#define NR_FIXED (OPTDOC_NR(head_opts) + OPTDOC_NR(tail_opts))

_Static_assert(NR_FIXED + WATCH_MAX_SETTINGS <= OPTDOC_MAX,
	       "one optdoc_set holds every option advshim-watch may have");

/* Room for a setting's option name and for an enum's metavar. */
#define OPT_NAME_LEN	40
#define OPT_META_LEN	128

/*
 * setting_opt - watch_settings[@i] as an option: its name written into
 * @name (OPT_NAME_LEN bytes), an enum's metavar into @meta (OPT_META_LEN
 * bytes), the row's help phrase as it is.
 */
static struct optdoc setting_opt(size_t i, char *name, char *meta)
{
	const struct watch_setting *s = &watch_settings[i];

	return (struct optdoc){
		.name = wset_opt_name(s, name, OPT_NAME_LEN),
		.val = O_SETTING + (int)i,
		.metavar = wset_metavar(s, meta, OPT_META_LEN),
		.help = s->help,
	};
}

/* setting_help - @s's --help text: with its default, or "repeatable". */
static const char *setting_help(const struct watch_setting *s, char *buf,
				size_t size)
{
	char def[64];

	if (s->type == WSET_BOOL)
		return s->help;
	if (s->type == WSET_PATHS)
		snprintf(buf, size, "%s; repeatable", s->help);
	else
		snprintf(buf, size, "%s (%s)", s->help,
			 wset_format_default(s, def, sizeof(def)));
	return buf;
}

void watch_usage(FILE *f)
{
	char name[OPT_NAME_LEN], meta[OPT_META_LEN], help[512];
	struct optdoc d;
	size_t i;

	fputs("usage: advshim-watch [OPTION]...\n"
	      "Ages MGLRU (lru_gen) when a memcg's oldest generation "
	      "thrashes.\n\n", f);
	optdoc_put_n(f, head_opts, OPTDOC_NR(head_opts), false);
	for (i = 0; i < watch_nr_settings; i++) {
		d = setting_opt(i, name, meta);
		d.help = setting_help(&watch_settings[i], help, sizeof(help));
		optdoc_put(f, &d, false);
	}
	optdoc_put_n(f, tail_opts, OPTDOC_NR(tail_opts), false);
}

/*
 * build_opts - every option into @set in --help's order (glibc lists an
 * ambiguous abbreviation's candidates in it); the settings' names, which
 * @set points at, into @names.  The set keeps no metavar, so one @meta
 * serves every row.  0, or -1 (optdoc_add said why).
 */
static int build_opts(struct optdoc_set *set, char (*names)[OPT_NAME_LEN])
{
	char meta[OPT_META_LEN];
	struct optdoc d;
	size_t i;

	if (optdoc_init(set, "", head_opts, OPTDOC_NR(head_opts)))
		return -1;
	for (i = 0; i < watch_nr_settings; i++) {
		d = setting_opt(i, names[i], meta);
		if (optdoc_add(set, &d, 1))
			return -1;
	}
	return optdoc_add(set, tail_opts, OPTDOC_NR(tail_opts));
}

/* take_setting - --KEY VALUE (or the flag --KEY) of table row @i. */
static int take_setting(struct watch_opts *o, size_t i, const char *arg)
{
	const struct watch_setting *s = &watch_settings[i];
	char name[OPT_NAME_LEN + 2], opt[OPT_NAME_LEN], why[256];
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
	char names[WATCH_MAX_SETTINGS][OPT_NAME_LEN];
	struct optdoc_set set;
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
	if (build_opts(&set, names))
		return -1;
	optind = 0;	/* glibc: start over, even after an earlier parse */
	while ((c = optdoc_getopt(&set, argc, argv)) != -1) {
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
