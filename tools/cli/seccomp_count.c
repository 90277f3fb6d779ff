// SPDX-License-Identifier: MIT
/*
 * seccomp_count.c - the supervisor's counters: in total, per process and
 * per file (the first SECD_SEEN of each process), what `advshim inspect`
 * and the last log line show.
 */
#include <string.h>

#include "tools/cli/seccomp.h"

void secd_count(struct secd *d, const struct secd_result *r)
{
	struct secd_proc *e = r->proc;
	struct secd_seen *f = NULL;
	unsigned int i;

	d->why[r->why]++;
	if (r->answer == SECD_DROP)
		d->dropped++;
	else
		d->continued++;
	if (!e || e->tgid != r->tgid)
		return;
	e->trapped++;
	e->why[r->why]++;
	if (r->answer == SECD_DROP)
		e->dropped++;
	else
		e->continued++;
	if (!r->path[0])
		return;
	for (i = 0; i < e->nr_seen && !f; i++)
		if (!strcmp(e->seen[i].path, r->path))
			f = &e->seen[i];
	if (!f) {
		if (e->nr_seen == SECD_SEEN)
			return;
		f = &e->seen[e->nr_seen++];
		secd_copy_path(f->path, sizeof(f->path), r->path);
	}
	if (r->answer == SECD_DROP)
		f->dropped++;
	else
		f->continued++;
	f->why = r->why;
	f->rule = r->rule;
}
