// SPDX-License-Identifier: MIT
/*
 * doctor_watchers.c - is an advshim-watch running, and which memcgs does
 * it age?  From each watcher's command line (d->root/proc/PID/cmdline):
 * --cgroup PATH (repeated; none: every memcg), --dry-run, and --config
 * FILE, whose `watch` group supplies the cgroup list and dry_run when the
 * command line does not (advshim-watch(8): flags beat the file).  A
 * watcher whose command line cannot be read counts as watching nothing.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/readfile.h"
#include "policy/policy.h"
#include "tools/cli/doctor.h"
#include "tools/watch/watch_conf.h"

static int add_cgroup(struct doc_watcher *w, const char *path)
{
	char **n = realloc(w->cgroups, (w->nr_cgroups + 1) * sizeof(*n));

	if (!n)
		return -1;
	w->cgroups = n;
	if (!(n[w->nr_cgroups] = strdup(path)))
		return -1;
	w->nr_cgroups++;
	return 0;
}

/* The config file's watch group, for what the command line left open. */
static int from_config(const struct doctor *d, struct doc_watcher *w,
		       const char *file, bool flags_cgroups, bool flag_dry)
{
	struct policy_error err;
	struct watch_conf c;
	char path[DOC_PATH_MAX];
	size_t i;
	int r = 0;

	if (path_join(path, sizeof(path), d->root, file) ||
	    watch_conf_load_file(path, &c, &err))
		return 0;	/* the watcher would not have started */
	if (!flag_dry)
		w->dry_run = c.dry_run;
	for (i = 0; !flags_cgroups && !r && i < c.nr_cgroups; i++)
		r = add_cgroup(w, c.cgroups[i]);
	watch_conf_free(&c);
	return r;
}

/* Parse the NUL-separated @args (@len bytes) into @w. */
static int parse_cmdline(const struct doctor *d, struct doc_watcher *w,
			 const char *args, size_t len)
{
	const char *a, *next, *config = NULL;
	bool dry = false;
	size_t off;
	int r = 0;

	for (off = 0; off < len && !r; off += strlen(args + off) + 1) {
		a = args + off;
		next = off + strlen(a) + 1 < len ? a + strlen(a) + 1 : NULL;
		if (!strcmp(a, "--dry-run"))
			dry = true;
		else if (!strncmp(a, "--cgroup=", 9))
			r = add_cgroup(w, a + 9);
		else if (!strcmp(a, "--cgroup") && next)
			r = add_cgroup(w, next);
		else if (!strncmp(a, "--config=", 9))
			config = a + 9;
		else if ((!strcmp(a, "--config") || !strcmp(a, "-c")) && next)
			config = next;
	}
	w->dry_run = dry;
	if (!r && config)
		r = from_config(d, w, config, w->nr_cgroups > 0, dry);
	return r;
}

static int add_watcher(struct doctor *d, int pid)
{
	struct doc_watcher w = { .pid = pid }, *n;
	char rel[64], *buf;
	size_t len;

	snprintf(rel, sizeof(rel), "/proc/%d/cmdline", pid);
	if (read_file_at(d->root, rel, &buf, &len, 0))
		return 0;
	if (parse_cmdline(d, &w, buf, len)) {
		free(buf);
		return -1;
	}
	free(buf);
	n = realloc(d->watchers, (d->nr_watchers + 1) * sizeof(*n));
	if (!n)
		return -1;
	d->watchers = n;
	d->watchers[d->nr_watchers++] = w;
	return 0;
}

int doc_watchers_scan(struct doctor *d)
{
	char path[DOC_PATH_MAX], rel[64], *comm;
	struct dirent *de;
	DIR *dir;
	int r = 0;

	if (path_join(path, sizeof(path), d->root, "/proc") ||
	    !(dir = opendir(path)))
		return 0;	/* doc_procs_scan reports it */
	while (!r && (de = readdir(dir))) {
		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		snprintf(rel, sizeof(rel), "/proc/%.20s/comm", de->d_name);
		if (read_file_at(d->root, rel, &comm, NULL, 4096))
			continue;
		if (!strcmp(comm, "advshim-watch\n"))
			r = add_watcher(d, atoi(de->d_name));
		free(comm);
	}
	closedir(dir);
	if (r)
		errno = ENOMEM;
	return r;
}
