/* SPDX-License-Identifier: MIT */
/*
 * view.h - this thread's view of the mapping table (view.c): the leaf of
 * its last hit and a few learnt extents, and the lock-free lookup the
 * advice path inlines.
 */
#ifndef ADVSHIM_VIEW_H
#define ADVSHIM_VIEW_H

#include "shim/calls.h"

#define VIEW_EXTENTS	8
#define VIEW_NOFILE	4

/*
 * Adjacent table ranges whose files decide alike, [start, end), with the
 * madvise-family outcome per advice kind (decide_code(): ADV_KEEP,
 * ADV_SKIP or the value to issue; for adaptive files ADV_ADAPT, the
 * group's choice, or ADV_UNKNOWN, a tag to change under the lock).
 */
struct view_extent {
	uintptr_t start, end;
	bool quiet;			/* no rewrite or skip left to log */
	signed char code[ADV_NR_KINDS];
};

struct view {
	unsigned long gen;		/* shim.table_gen of all below */
	const struct mt_node *leaf;	/* the finger: last leaf hit */
	bool again;			/* the last view_find hit the finger */
	unsigned int nr, last, victim;	/* extents used, last hit, next out */
	struct view_extent ext[VIEW_EXTENTS];
	unsigned long nofile_gen;	/* vm_gen() of all nofile[] */
	unsigned int nr_nofile, nofile_victim;
	struct {
		uintptr_t start, end;
	} nofile[VIEW_NOFILE];		/* no file mapping, said the kernel */
	unsigned long gap_gen;		/* shim.table_gen of gap_* */
	uintptr_t gap_start, gap_end;	/* no table range in there */
};

/* This thread's view: written only by it, with shim.lock held. */
extern __thread struct view shim_view
	__attribute__((tls_model("initial-exec"))) SHIM_HIDDEN;

/*
 * view_find - the range containing @pos, or the first one after it (NULL:
 * none): this thread's last leaf is searched before the tree is
 * descended.  shim.lock held (either mode); the result is valid until it
 * is released.
 */
const struct map_node *view_find(uintptr_t pos) SHIM_HIDDEN;

/*
 * view_learn - @n, from the last view_find (the lock held since), was just
 * decided: if that lookup hit this thread's last leaf again, remember the
 * run of ranges around @n that decide alike, for view_code().  shim.lock
 * held (either mode); never fails (an extent is just not learnt).
 */
void view_learn(const struct map_node *n) SHIM_HIDDEN;

/*
 * view_point - a range containing @addr was just recorded: this thread's
 * next advice is most likely for it, so its leaf becomes the one searched
 * first.  shim.lock held for writing.
 */
void view_point(uintptr_t addr) SHIM_HIDDEN;

/*
 * view_learn_nofile - the kernel said [@start, @end) is a mapping of no
 * regular file (anonymous memory, a device, a deleted file: advice there
 * keeps the caller's value), in an answer stamped @gen (vm_watch() before
 * the question).  Remembered for view_nofile(); no lock needed (this
 * thread's own), never fails.
 */
void view_learn_nofile(uintptr_t start, uintptr_t end, unsigned long gen)
	SHIM_HIDDEN;

/*
 * view_nofile - without the lock: whether [@start, @end) lies inside a
 * range the kernel told this thread holds no file, and no mapping call
 * the shim saw returned since (vm_gen).  Then the advice goes to the
 * kernel as it came.  A mapping made where such memory was by a call the
 * shim does not see (brk, the dynamic loader, a raw system call) is taken
 * for that memory until the shim sees a mapping call: its advice passes
 * unchanged, as for any range the shim does not know.
 */
static inline bool view_nofile(uintptr_t start, uintptr_t end)
{
	unsigned int i;

	if (shim_view.nofile_gen != vm_gen())
		return false;
	for (i = 0; i < shim_view.nr_nofile; i++)
		if (shim_view.nofile[i].start <= start &&
		    end <= shim_view.nofile[i].end)
			return true;
	return false;
}

/*
 * view_overlaps - whether a table range intersects [@start, @end) (not
 * empty); if none does, the free stretch of the table around it is
 * remembered for view_unknown().  shim.lock held (either mode).
 */
bool view_overlaps(uintptr_t start, uintptr_t end) SHIM_HIDDEN;

/*
 * view_unknown - without the lock: true if [@start, @end) lies in the
 * stretch with no table range this thread's last view_overlaps() found,
 * and the table did not change since (one atomic load of shim.table_gen):
 * munmap and a MAP_FIXED anonymous mmap there have no range to forget.
 * False: take the lock and look.  Safe without it as view_code() is: the
 * stretch is this thread's own and every table change bumps the
 * generation before its lock is released.
 */
static inline bool view_unknown(uintptr_t start, uintptr_t end)
{
	return shim_view.gap_start <= start && end <= shim_view.gap_end &&
	       shim_view.gap_gen == table_gen();
}

/* The learnt extent holding [@start, @end), or NULL (helper of view_code). */
static inline const struct view_extent *view_extent_of(uintptr_t start,
							uintptr_t end)
{
	const struct view_extent *x = &shim_view.ext[shim_view.last];
	unsigned int i;

	if (shim_view.last < shim_view.nr && x->start <= start && end <= x->end)
		return x;
	for (i = 0; i < shim_view.nr; i++) {
		x = &shim_view.ext[i];
		if (x->start <= start && end <= x->end) {
			shim_view.last = i;
			return x;
		}
	}
	return NULL;
}

/*
 * view_code - without the lock: if [@start, @end) lies inside an extent
 * this thread learnt and neither the table nor the cache changed since
 * (one atomic load of shim.table_gen), set *@code to the outcome for
 * advice @kind (as decide_code, or ADV_ADAPT / ADV_UNKNOWN: see struct
 * view_extent) and *@quiet (false: a rewrite or skip must still be
 * logged, under the lock) and return true.  Else false:
 * take the locked path.  Always false at log level debug (every call is
 * logged there).  Safe without the lock: see view.c.
 */
static inline bool view_code(uintptr_t start, uintptr_t end,
			     enum adv_kind kind, int *code, bool *quiet)
{
	const struct view_extent *x;

	kill_poll();		/* a change bumps the generation */
	if (shim_view.gen != table_gen() || shim.log_level >= POLICY_LOG_DEBUG)
		return false;
	x = view_extent_of(start, end);
	if (!x)
		return false;
	*code = x->code[kind];
	*quiet = x->quiet;
	return true;
}

#endif /* ADVSHIM_VIEW_H */
