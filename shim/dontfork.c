// SPDX-License-Identifier: MIT
/*
 * dontfork.c - file ranges a fork child does not inherit (MADV_DONTFORK).
 *
 * The kernel leaves VM_DONTCOPY ranges out of a child, but the child's
 * copy of the table still has them; an anonymous mapping the child makes
 * there (anonymous mmap never looks at the table) would get the vanished
 * file's action for its advice.  So the ranges of known files that got
 * MADV_DONTFORK are recorded in a second table (shim.dontfork, no file
 * references) and the child's fork handler drops them from its table.
 *
 * Every error is on the safe side: a recorded range that is in fact
 * inherited only costs the child kernel-view lookups for it.  So a
 * DONTFORK range is recorded before the call (a fork racing with it
 * still sees the record), MADV_DOFORK removes it only after it worked,
 * and a record that cannot be stored (ENOMEM) makes the child drop its
 * whole table (dontfork_lost).  Ranges that only hold anonymous memory
 * are not recorded: a file mapped there later is a new mapping, inherited
 * (register_file removes any stale record for it).
 */
#include <errno.h>
#include <sys/mman.h>

#include "shim/calls.h"

/* The page range of a madvise call, false if the kernel refuses it. */
static bool page_range(void *addr, size_t len, uintptr_t *s, uintptr_t *e)
{
	*s = (uintptr_t)addr;
	*e = *s + page_up(len);
	return page_aligned(*s) && len && *e > *s;
}

/* Record [s, e) (write lock held); on ENOMEM the child drops everything. */
static void record(uintptr_t s, uintptr_t e)
{
	int saved = errno;

	if (maptable_map(&shim.dontfork, s, e, NULL))
		shim.dontfork_lost = true;
	errno = saved;
}

void dontfork_before(void *addr, size_t len, int advice)
{
	uintptr_t s, e;

	if (advice != MADV_DONTFORK || !shim_active() || !table_nr() ||
	    !page_range(addr, len, &s, &e))
		return;
	shim_busy++;
	shim_wrlock();
	if (maptable_overlaps(&shim.table, s, e))
		record(s, e);
	shim_unlock();
	shim_busy--;
}

void dontfork_after(void *addr, size_t len, int advice)
{
	uintptr_t s, e;

	if (advice != MADV_DOFORK || !shim_active() ||
	    !page_range(addr, len, &s, &e))
		return;
	shim_busy++;
	shim_wrlock();
	dontfork_forget(s, e);
	shim_unlock();
	shim_busy--;
}

void dontfork_forget(uintptr_t s, uintptr_t e)
{
	if (shim.dontfork.count)
		maptable_unmap(&shim.dontfork, s, e);
}

bool dontfork_overlaps(uintptr_t s, uintptr_t e)
{
	return shim.dontfork_lost ||
	       (shim.dontfork.count && maptable_overlaps(&shim.dontfork, s, e));
}

void dontfork_moved(uintptr_t s, uintptr_t e)
{
	record(s, e);
}

void dontfork_child(void)
{
	const struct map_node *n;
	uintptr_t pos = 0;

	if (!shim.dontfork_lost && !shim.dontfork.count)
		return;
	if (shim.dontfork_lost) {
		maptable_clear(&shim.table);
	} else {
		/* Unmapping from shim.table leaves these records valid. */
		while ((n = maptable_next(&shim.dontfork, pos))) {
			maptable_unmap(&shim.table, n->start, n->end);
			pos = n->end;
		}
	}
	/* Nothing in this process carries VM_DONTCOPY now. */
	maptable_clear(&shim.dontfork);
	shim.dontfork_lost = false;
	table_changed();
}
