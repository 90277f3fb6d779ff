// SPDX-License-Identifier: MIT
/*
 * exp_model.c - the experiment model of exp.h: its lookups and its
 * release.  Both parsers (exp_parse.c, exp_arm.c) fill it and use these;
 * this file calls neither.
 */
#include <stdlib.h>
#include <string.h>

#include "common/confcheck.h"
#include "tools/ab/exp.h"

int exp_find_workload(const struct experiment *e, const char *name)
{
	for (size_t i = 0; i < e->nwl; i++)
		if (!strcmp(e->wl[i].name, name))
			return (int)i;
	return -1;
}

static void free_shim(struct exp_shim *s)
{
	free(s->policy);
	free(s->policy_text);
}

void exp_free(struct experiment *e)
{
	if (!e)
		return;
	for (size_t i = 0; i < e->nfiles; i++) {
		free(e->files[i].name);
		free(e->files[i].path);
	}
	for (size_t i = 0; i < e->nwl; i++) {
		free(e->wl[i].name);
		free_strv(e->wl[i].argv, e->wl[i].argc);
	}
	for (size_t i = 0; i < e->narms; i++) {
		struct exp_arm *a = &e->arms[i];

		free(a->name);
		free(a->label);
		free_shim(&a->shim);
		free_strv(a->watch.args, a->watch.nargs);
		free_strv(a->watch.command, a->watch.ncommand);
		free_strv(a->env, a->nenv);
		for (size_t j = 0; j < a->nov; j++) {
			free(a->ov[j].workload);
			free_shim(&a->ov[j].shim);
			free_strv(a->ov[j].env, a->ov[j].nenv);
			free_strv(a->ov[j].argv, a->ov[j].argc);
		}
		free(a->ov);
	}
	free(e->files);
	free(e->wl);
	free(e->arms);
	free(e->source);
	free(e->name);
	free(e->description);
	free(e->dir);
	free(e);
}
