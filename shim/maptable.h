/* SPDX-License-Identifier: MIT */
/*
 * maptable.h - address range -> file, for the shim's madvise decisions.
 *
 * An AVL tree of non-overlapping half-open ranges [start, end) keyed by
 * start.  Since ranges never overlap, ends are sorted too, so "the first
 * range ending after addr" is one descent: every operation is O(log n),
 * also with 100k live mappings.  Nodes come from slab_alloc(), never
 * malloc.  Each range holds a reference on an opaque file object through
 * the get/put callbacks, so splitting a range takes one more reference and
 * dropping one releases it.
 *
 * Locking: none inside; the shim serialises writers (see shim/state.h).
 * Readers may run concurrently with each other.
 */
#ifndef ADVSHIM_MAPTABLE_H
#define ADVSHIM_MAPTABLE_H

#include <stddef.h>
#include <stdint.h>

struct map_node {
	uintptr_t start;
	uintptr_t end;		/* exclusive */
	void *file;
	struct map_node *left;
	struct map_node *right;
	int height;
};

struct maptable {
	struct map_node *root;
	size_t count;		/* live ranges */
	void (*file_get)(void *file);	/* may be NULL */
	void (*file_put)(void *file);	/* may be NULL */
};

/*
 * maptable_map - record [start, end) -> @file, replacing whatever the table
 * had in that range (MAP_FIXED, address reuse).  Takes a reference on
 * @file.  Returns 0, or -1 with errno = ENOMEM (the range is then unknown
 * to the table: overlapping ranges are still removed) or EINVAL (empty).
 */
int maptable_map(struct maptable *t, uintptr_t start, uintptr_t end,
		 void *file);

/*
 * maptable_unmap - forget [start, end): ranges inside go, ranges crossing
 * an edge are trimmed, a range containing it is split in two.  Never
 * fails: if a split cannot get a node, the tail part is forgotten too
 * (later lookups fall back to the kernel's view).  Returns the number of
 * ranges that were touched.
 */
size_t maptable_unmap(struct maptable *t, uintptr_t start, uintptr_t end);

/*
 * maptable_remap - what mremap(old, old_len, new_len, ..) -> new did: the
 * file of the range containing @old now backs [new, new + new_len) and
 * [old, old + old_len) is gone (old_len == 0, duplicating a shared
 * mapping, keeps the old range).  Returns 0, 1 if @old was not in the
 * table (nothing changed), or -1/ENOMEM as maptable_map.
 */
int maptable_remap(struct maptable *t, uintptr_t old, size_t old_len,
		   uintptr_t new, size_t new_len);

/*
 * maptable_next - the range with the lowest start whose end is > @addr
 * (the one containing @addr if any, else the next one), or NULL.
 */
const struct map_node *maptable_next(const struct maptable *t,
				     uintptr_t addr);

/* maptable_overlaps - true if any range intersects [start, end). */
int maptable_overlaps(const struct maptable *t, uintptr_t start,
		      uintptr_t end);

/* maptable_clear - drop every range (puts every file reference). */
void maptable_clear(struct maptable *t);

/* maptable_check - verify AVL balance and ordering; 0 ok, -1 broken. */
int maptable_check(const struct maptable *t);

#endif /* ADVSHIM_MAPTABLE_H */
