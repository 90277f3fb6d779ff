/* SPDX-License-Identifier: MIT */
/*
 * inspect.h - what `advshim inspect` (cmd_inspect.c) takes from
 * inspect_adapt.c (the adaptive advice's part of its output),
 * inspect_prom.c (--prometheus) and inspect_span.c (a file's mapped bytes
 * counted once).  Single threaded,
 * no locks; only inspect_span_add() can fail.
 */
#ifndef ADVSHIM_CLI_INSPECT_H
#define ADVSHIM_CLI_INSPECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "shim/stats_layout.h"

/*
 * inspect_adapt_text - the lines about the adaptive group of a process
 * whose stats page @a is (a consistent copy): choice, why, the memcg's
 * figures, counters, the last switches and how long ago.
 */
void inspect_adapt_text(const struct advshim_stats_adapt *a, FILE *f);

/* inspect_adapt_json - the same as a JSON member "adaptive":{...}. */
void inspect_adapt_json(const struct advshim_stats_adapt *a, FILE *f);

/*
 * inspect_adapt_mark - "normal" or "random" if the file at @path (inode
 * @inode, from smaps) is one of the group's files, else NULL.  The device
 * is compared too when @path can be stat'ed as that inode.
 */
const char *inspect_adapt_mark(const struct advshim_stats_adapt *a,
			       const char *path, uint64_t inode);

/* What --prometheus reports of one process. */
struct inspect_prom {
	int pid;
	char comm[64];
	bool loaded;			/* libadvshim.so mapped */
	bool have_stats, have_adapt;	/* st (and st.adapt) valid */
	unsigned int rr_vmas;		/* file VMAs with rr or sr */
	struct advshim_stats st;
};

/*
 * inspect_prom_write - the text exposition of the @n processes @v, and
 * @mglru_enabled (lru_gen/enabled bits, -1 unknown), on @f.  Returns 0,
 * or -1 when writing @f failed (ferror).
 */
int inspect_prom_write(const struct inspect_prom *v, size_t n,
		       int mglru_enabled, FILE *f);

/*
 * What the `advshim run --seccomp` supervisor of a process reports of it
 * (inspect_seccomp.c).  @report holds the supervisor's lines about this
 * pid only (seccomp.h's format), NUL-terminated.
 */
struct inspect_sec {
	int sup;			/* 0: not under --seccomp */
	int err;			/* 0, or -errno of asking it */
	char policy[512];
	uint64_t trapped, continued, dropped;
	char report[16384];
};

/*
 * inspect_seccomp_read - find @pid's supervisor (SECCOMP_ENV in its
 * environment) and ask it.  Fills *@s (s->sup 0 when there is none or
 * the environment is unreadable).  Never fails otherwise: s->err says.
 */
void inspect_seccomp_read(int pid, struct inspect_sec *s);

/* inspect_seccomp_text - its lines for `advshim inspect` (none if !sup). */
void inspect_seccomp_text(const struct inspect_sec *s, FILE *f);

/* inspect_seccomp_json - the member "seccomp":{...} (null if !sup). */
void inspect_seccomp_json(const struct inspect_sec *s, FILE *f);

/* The file ranges [lo, hi) of one file's VMAs, in any order, overlapping. */
struct inspect_range {
	uint64_t lo, hi;
};

struct inspect_span {
	struct inspect_range *v;
	size_t n, cap;
};

/*
 * inspect_span_add - add the file range [@lo, @hi) to @s (zeroed at
 * first); an empty range is ignored.  Returns 0, or -1 with errno ENOMEM
 * (@s unchanged).
 */
int inspect_span_add(struct inspect_span *s, uint64_t lo, uint64_t hi);

/*
 * inspect_span_total - the bytes the union of @s's ranges covers: a range
 * mapped twice counts once.  Sorts @s's ranges in place.
 */
uint64_t inspect_span_total(struct inspect_span *s);

/* inspect_span_free - release @s's ranges; @s is empty again. */
void inspect_span_free(struct inspect_span *s);

#endif /* ADVSHIM_CLI_INSPECT_H */
