// SPDX-License-Identifier: MIT
/*
 * exp_parse.c - experiment text (libconfig) -> struct experiment: the top
 * level, files, workloads and the event here; the arms in exp_arm.c; the
 * typed readers both use in exp_get.c; the model both fill (lookups and
 * freeing) in exp_model.c.  exp_parse -> exp_arm -> exp_get, exp_model.
 *
 * Strict on purpose: an experiment runs for minutes as root, so a typo
 * (a misspelt key silently ignored, a workload name that matches nothing)
 * must fail before anything starts, with file:line.
 */
#include <errno.h>
#include <libconfig.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/confcheck.h"
#include "common/readfile.h"
#include "tools/ab/exp.h"
#include "tools/ab/exp_get.h"

#define TOP_KEYS "version, name, description, limit_mib, duration_s, interval_ms, " \
	"dir, print_every, baseline_s, recover_pct, settle_majflt_s, " \
	"settle_intervals, files, workloads, event, arms"
#define FILE_KEYS "name, path, size_mib"
#define WL_KEYS "name, command, start_ms, throughput"
#define EVENT_KEYS "workload"

/* File @i of the "files" list. */
static int parse_file(struct exp_parser *ps, const config_setting_t *g, int i,
		      void *ctx)
{
	struct exp_file *f = &ps->e->files[i];
	double size = 0;
	char what[64];

	(void)ctx;
	if (group_head(ps, g, "files", i, FILE_KEYS, what, sizeof(what),
		       &f->line, &f->name) ||
	    get_str(ps, g, what, "path", true, &f->path) ||
	    get_num(ps, g, what, "size_mib", 1, 1 << 24, &size) ||
	    need_member(ps, g, what, "size_mib"))
		return -1;
	if (size != floor(size))
		return perr(ps, config_setting_get_member(g, "size_mib"),
			    "%s\"size_mib\" must be a whole number", what);
	f->size_mib = (uint64_t)size;
	return 0;
}

static int parse_files(struct exp_parser *ps, const config_setting_t *root)
{
	config_setting_t *l;
	int n;

	ps->e->files = get_groups(ps, root, "files", false,
				  sizeof(*ps->e->files), &l, &n);
	if (n <= 0)
		return n;
	return each_group(ps, l, &ps->e->nfiles, parse_file, NULL);
}

/* File paths may only use ${DIR} and ${BUILD}: they exist before arms. */
static int check_file_paths(struct exp_parser *ps, const config_setting_t *root)
{
	config_setting_t *l = config_setting_get_member(root, "files");

	for (size_t i = 0; i < ps->e->nfiles; i++) {
		const char *p = ps->e->files[i].path;
		config_setting_t *g = config_setting_get_elem(l, (unsigned int)i);

		if (check_subst_v(ps, g, "files: path ", &ps->e->files[i].path, 1))
			return -1;
		for (const char *s = strstr(p, "${"); s; s = strstr(s + 2, "${"))
			if (strncmp(s, "${DIR}", 6) && strncmp(s, "${BUILD}", 8))
				return perr(ps, g, "files: path \"%s\": only ${DIR} and ${BUILD} can be used in file paths",
					    p);
		if (!strstr(p, "${") && p[0] != '/')
			return perr(ps, g, "files: path \"%s\" must be absolute or start with ${DIR}",
				    p);
	}
	return 0;
}

/* Workload @i of the "workloads" list. */
static int parse_workload(struct exp_parser *ps, const config_setting_t *g,
			  int i, void *ctx)
{
	struct exp_workload *w = &ps->e->wl[i];
	char what[64];
	int thr = 0;

	(void)ctx;
	if (group_head(ps, g, "workloads", i, WL_KEYS, what, sizeof(what),
		       &w->line, &w->name) ||
	    get_strv(ps, g, what, "command", true, &w->argv, &w->argc) ||
	    get_uint(ps, g, what, "start_ms", 0, 86400000, &w->start_ms) ||
	    get_bool(ps, g, what, "throughput", &thr) ||
	    need_member(ps, g, what, "command"))
		return -1;
	if (check_subst_v(ps, config_setting_get_member(g, "command"),
			  what, w->argv, w->argc))
		return -1;
	w->throughput = thr;
	if (thr && ps->e->throughput_wl >= 0)
		return perr(ps, g, "%sonly one workload can be the throughput source (\"%s\" is already)",
			    what, ps->e->wl[ps->e->throughput_wl].name);
	if (thr)
		ps->e->throughput_wl = i;
	return 0;
}

static int parse_workloads(struct exp_parser *ps, const config_setting_t *root)
{
	config_setting_t *l;
	int n;

	ps->e->throughput_wl = -1;
	ps->e->wl = get_groups(ps, root, "workloads", true, sizeof(*ps->e->wl),
			       &l, &n);
	if (n < 0 || each_group(ps, l, &ps->e->nwl, parse_workload, NULL))
		return -1;
	if (ps->e->throughput_wl < 0)
		return perr(ps, l, "workloads: one workload needs \"throughput = true\" (its advshim-load random output is the rate)");
	return 0;
}

static int parse_event(struct exp_parser *ps, const config_setting_t *root)
{
	config_setting_t *g = config_setting_get_member(root, "event");
	char *wl = NULL;
	int ret;

	ps->e->event_wl = -1;
	if (!g)
		return 0;
	if (config_setting_type(g) != CONFIG_TYPE_GROUP)
		return conf_type_err(&ps->cc, g, "event",
				     "a group { workload = \"...\"; }");
	if (conf_check_keys(&ps->cc, g, "event: ", EVENT_KEYS) ||
	    get_str(ps, g, "event: ", "workload", true, &wl))
		return -1;
	ps->e->event_wl = exp_find_workload(ps->e, wl);
	ret = ps->e->event_wl < 0 ?
		perr(ps, config_setting_get_member(g, "workload"),
		     "event: no workload is named \"%s\"", wl) : 0;
	if (!ret && ps->e->event_wl == ps->e->throughput_wl)
		ret = perr(ps, g, "event: \"%s\" is the throughput workload; the event comes from a stream workload's start/end lines",
			   wl);
	free(wl);
	return ret;
}

static int parse_top(struct exp_parser *ps, const config_setting_t *root)
{
	struct experiment *e = ps->e;
	unsigned int version = 0;
	double limit = 0;

	e->duration_s = 120;
	e->interval_ms = 1000;
	e->print_every = 1;
	e->baseline_s = 10;
	e->recover_pct = 80;
	e->settle_majflt = 100;
	e->settle_intervals = 3;
	if (conf_check_keys(&ps->cc, root, "", TOP_KEYS) ||
	    get_uint(ps, root, "", "version", 1, 1000, &version))
		return -1;
	if (!config_setting_get_member(root, "version"))
		return perr(ps, NULL, "\"version = 1;\" is required");
	if (version != 1)
		return perr(ps, config_setting_get_member(root, "version"),
			    "unsupported version %u (this advshim-ab reads 1)", version);
	if (get_str(ps, root, "", "name", false, &e->name) ||
	    get_str(ps, root, "", "description", false, &e->description) ||
	    get_num(ps, root, "", "limit_mib", 16, 1 << 24, &limit) ||
	    get_num(ps, root, "", "duration_s", 1, 86400, &e->duration_s) ||
	    get_uint(ps, root, "", "interval_ms", 100, 600000, &e->interval_ms) ||
	    get_str(ps, root, "", "dir", false, &e->dir) ||
	    get_uint(ps, root, "", "print_every", 1, 3600, &e->print_every) ||
	    get_num(ps, root, "", "baseline_s", 1, 86400, &e->baseline_s) ||
	    get_num(ps, root, "", "recover_pct", 1, 100, &e->recover_pct) ||
	    get_num(ps, root, "", "settle_majflt_s", 0, 1e12, &e->settle_majflt) ||
	    get_uint(ps, root, "", "settle_intervals", 1, 3600, &e->settle_intervals))
		return -1;
	if (!config_setting_get_member(root, "limit_mib"))
		return perr(ps, NULL, "\"limit_mib\" (the memcg's memory limit) is required");
	if (limit != floor(limit))
		return perr(ps, config_setting_get_member(root, "limit_mib"),
			    "\"limit_mib\" must be a whole number");
	e->limit_mib = (uint64_t)limit;
	if (!e->name && !(e->name = strdup("experiment")))
		return perr(ps, NULL, "out of memory");
	if (!e->dir && !(e->dir = strdup("/var/tmp/advshim-ab")))
		return perr(ps, NULL, "out of memory");
	if (e->dir[0] != '/')
		return perr(ps, config_setting_get_member(root, "dir"),
			    "\"dir\" must be an absolute path");
	return 0;
}

/* Cross checks that need everything parsed. */
static int check_all(struct exp_parser *ps, const config_setting_t *root)
{
	struct experiment *e = ps->e;

	for (size_t i = 0; i < e->nwl; i++)
		if (e->wl[i].start_ms >= e->duration_s * 1000)
			return perr(ps, config_setting_get_elem(
					config_setting_get_member(root, "workloads"),
					(unsigned int)i),
				    "workloads[%zu]: \"start_ms\" = %u is not before the end of the run (duration_s = %g)",
				    i + 1, e->wl[i].start_ms, e->duration_s);
	return 0;
}

int exp_parse_buffer(const char *buf, const char *name,
		     struct experiment **out, struct exp_error *err)
{
	struct exp_parser ps = { .cc = CONF_CTX(name, err) };
	config_setting_t *root;
	config_t cfg;
	int line, ret = -1;

	memset(err, 0, sizeof(*err));
	config_init(&cfg);
	line = conf_find_include(buf);
	if (line) {
		conf_err_line(&ps.cc, line, "@include is not supported: put "
			      "the experiment in one file");
		goto out;
	}
	if (!config_read_string(&cfg, buf)) {
		conf_syntax_err(&ps.cc, &cfg);
		goto out;
	}
	ps.e = calloc(1, sizeof(*ps.e));
	if (!ps.e) {
		perr(&ps, NULL, "out of memory");
		goto out;
	}
	root = config_root_setting(&cfg);
	if (parse_top(&ps, root) || parse_files(&ps, root) ||
	    check_file_paths(&ps, root) || parse_workloads(&ps, root) ||
	    parse_event(&ps, root) || exp_parse_arms(&ps, root) ||
	    check_all(&ps, root))
		goto out;
	ps.e->source = strdup(name);
	if (!ps.e->source) {
		perr(&ps, NULL, "out of memory");
		goto out;
	}
	*out = ps.e;
	ps.e = NULL;
	ret = 0;
out:
	exp_free(ps.e);
	config_destroy(&cfg);
	return ret;
}

int exp_load_file(const char *path, struct experiment **out,
		  struct exp_error *err)
{
	struct conf_ctx cc = CONF_CTX(path, err);
	char *buf;
	int ret;

	memset(err, 0, sizeof(*err));
	if (read_file(path, &buf, NULL, 1 << 20))
		return conf_err_line(&cc, 0, "cannot read: %s", strerror(errno));
	ret = exp_parse_buffer(buf, path, out, err);
	free(buf);
	return ret;
}
