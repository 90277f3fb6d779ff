// SPDX-License-Identifier: MIT
/*
 * run.c - a whole experiment: check what can be checked before any arm
 * runs, create the test files once, then run the selected arms one after
 * another (arm.c) and render the results (render.c).  Whatever is left
 * when it returns or exits is cleaned up (cleanup.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tools/ab/arm.h"
#include "tools/ab/cleanup.h"
#include "tools/ab/files.h"
#include "tools/ab/run.h"

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
	cleanup_install();
	if (!(paths = setup_files(e, o)))
		goto out;
	printf("advshim-ab: %s: memcg %d MiB (cgroup v%d), %g s per arm, results in %s\n",
	       e->name, (int)e->limit_mib, root.version,
	       o->duration_s > 0 ? o->duration_s : e->duration_s, o->out);
	ret = 0;
	for (size_t i = 0; i < e->narms && !stop_signal(); i++) {
		if (!arm_selected(o, e->arms[i].name))
			continue;
		arm_init(&res[n]);
		if (arm_run(e, &e->arms[i], o, &root, paths, &res[n]))
			ret = 1;
		n++;
	}
	if (n && ab_render_saved(o->out, res, n, o->no_plot))
		ret = 1;
	if (stop_signal()) {
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
