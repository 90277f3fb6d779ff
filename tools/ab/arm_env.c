// SPDX-License-Identifier: MIT
/*
 * arm_env.c - what each program of an arm runs with: the expanded command
 * of a workload (an override may replace it), its environment (no
 * inherited shim unless the arm asks for it) and the watcher's command.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy/policy.h"
#include "tools/ab/arm.h"

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

/* LD_PRELOAD and ADVSHIM_CONFIG for a workload the shim runs in. */
static int add_shim_env(struct arm_ctx *c, size_t w, const struct exp_shim *s,
			char *why, size_t size)
{
	struct envv *env = &c->wl[w].env;
	char path[4400], *kv = NULL, *pol = NULL;
	int ret = -1;

	snprintf(path, sizeof(path), "%s/policy-%s.conf", c->dir,
		 c->e->wl[w].name);
	if (s->policy) {
		if (exp_expand(c->e, &c->vars, s->policy, &pol))
			goto oom;
	} else if (write_text(path, s->policy_text ? s->policy_text :
			      policy_default_text)) {
		snprintf(why, size, "writing %s: %s", path, strerror(errno));
		return -1;
	}
	if (asprintf(&kv, "LD_PRELOAD=%s", c->o->shim) < 0 || envv_set(env, kv))
		goto oom;
	free(kv);
	if (asprintf(&kv, "ADVSHIM_CONFIG=%s", pol ? pol : path) < 0 ||
	    envv_set(env, kv))
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

/* Environment of workload @w: no inherited shim unless the arm asks. */
static int build_env(struct arm_ctx *c, size_t w, char *why, size_t size)
{
	struct exp_shim s = shim_for(c, w);
	struct envv *env = &c->wl[w].env;

	if (envv_from_environ(env))
		goto oom;
	envv_unset(env, "LD_PRELOAD");
	envv_unset(env, "ADVSHIM_CONFIG");
	if (s.enabled == 1 && add_shim_env(c, w, &s, why, size))
		return -1;
	if (add_env(env, c, c->arm->env, c->arm->nenv))
		goto oom;
	for (size_t i = 0; i < c->arm->nov; i++)
		if (c->arm->ov[i].wl == (int)w &&
		    add_env(env, c, c->arm->ov[i].env, c->arm->ov[i].nenv))
			goto oom;
	return 0;
oom:
	snprintf(why, size, "out of memory building the environment");
	return -1;
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

int arm_build_argv(struct arm_ctx *c, size_t w, char *why, size_t size)
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

/* The default watcher command: the memcg and the arm's interval. */
static int default_watcher(const struct arm_ctx *c, char **argv)
{
	const struct exp_watcher *w = &c->arm->watch;
	char iv[16];
	const char *fixed[] = { c->o->watch, "--cgroup", c->mc.rel,
		"--interval-ms", iv, "--log-format", "json" };
	int n = 0;

	snprintf(iv, sizeof(iv), "%u", w->interval_ms);
	for (size_t i = 0; i < sizeof(fixed) / sizeof(*fixed); i++)
		if (!(argv[n++] = strdup(fixed[i])))
			return -1;
	if (w->dry_run && !(argv[n++] = strdup("--dry-run")))
		return -1;
	return n;
}

int arm_watcher_argv(const struct arm_ctx *c, char **argv, int max)
{
	const struct exp_watcher *w = &c->arm->watch;
	int n = 0;

	memset(argv, 0, sizeof(char *) * (size_t)max);
	if (w->ncommand) {
		for (size_t i = 0; i < w->ncommand && n < max - 2; i++)
			if (exp_expand(c->e, &c->vars, w->command[i], &argv[n++]))
				goto oom;
	} else if ((n = default_watcher(c, argv)) < 0) {
		goto oom;
	}
	for (size_t i = 0; i < w->nargs && n < max - 2; i++)
		if (exp_expand(c->e, &c->vars, w->args[i], &argv[n++]))
			goto oom;
	return n;
oom:
	for (int i = 0; i < max; i++)
		free(argv[i]);
	return -1;
}
