/* SPDX-License-Identifier: MIT */
/*
 * maptable.h - address range -> file, for the shim's madvise decisions.
 *
 * A B+tree of non-overlapping half-open ranges [start, end).  Leaves hold
 * the ranges in address order in one array each (2 KiB: 80 ranges);
 * inner nodes hold, per child, the largest end in that child's subtree
 * (2 KiB: 112 children).  Since ranges never overlap, starts and ends are
 * both sorted, so "the first range ending after addr" is one descent of
 * 3 nodes for 100k ranges, each searched by comparing a group of keys at
 * once (independent loads) twice: about 2 dependent cache misses per
 * level, where an AVL tree (or a binary search) pays ~17 dependent,
 * often mispredicted steps.  Nodes come from slab_alloc(), never malloc.  Each range holds
 * a reference on an opaque file object through the get/put callbacks, so
 * splitting a range takes one more reference and dropping one releases it.
 *
 * Locking: none inside; the shim serialises writers (see shim/shim.h).
 * Readers may run concurrently with each other.
 */
#ifndef ADVSHIM_MAPTABLE_H
#define ADVSHIM_MAPTABLE_H

#include <stddef.h>
#include <stdint.h>

/*
 * One range, stored inside a leaf.  A pointer to it (maptable_next) stays
 * valid only until the table is next changed: entries move when leaves
 * split, merge or shift.  The shim revalidates cached pointers with its
 * table generation (shim.h table_gen, view.c).
 */
struct map_node {
	uintptr_t start;
	uintptr_t end;		/* exclusive */
	void *file;		/* a reference held (maptable.file_get) */
};

/* A node's size: a 2 KiB slab block (80 ranges or 112 children). */
#define MAPTABLE_NODE_BYTES	2048
#define MAPTABLE_LEAF_MAX	80

struct mt_node;			/* private to maptable.c (maptable_node.h) */

struct maptable {
	struct mt_node *root;	/* NULL when empty */
	size_t count;		/* live ranges */
	void (*file_get)(void *file);	/* may be NULL */
	void (*file_put)(void *file);	/* may be NULL */
	/*
	 * Slots per node; 0 (the default) means as many as fit in a node
	 * (MAPTABLE_NODE_BYTES: 80 ranges, 112 children).
	 * Tests and the fuzzer set a small value (>= 3; set it while the
	 * table is empty) so that few ranges already split and merge nodes.
	 */
	unsigned int fanout;
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
 * (the one containing @addr if any, else the next one), or NULL.  The
 * pointer is valid until the next change of the table.
 */
const struct map_node *maptable_next(const struct maptable *t,
				     uintptr_t addr);

/*
 * maptable_next_leaf - maptable_next() that also sets *@leaf to the node
 * holding the result (NULL with it), for maptable_leaf_find().
 */
const struct map_node *maptable_next_leaf(const struct maptable *t,
					  uintptr_t addr,
					  const struct mt_node **leaf);

/*
 * maptable_leaf_find - the range containing @addr if leaf @leaf (from
 * maptable_next_leaf, table unchanged since) holds it, else NULL: a
 * finger search among the ~80 neighbours of a recent hit, two cache
 * lines instead of a descent.  @leaf may be NULL.
 */
const struct map_node *maptable_leaf_find(const struct mt_node *leaf,
					  uintptr_t addr);

/*
 * maptable_leaf_copy - copy leaf @leaf (from maptable_next_leaf, the table
 * unchanged since) into @buf (MAPTABLE_NODE_BYTES, aligned for pointers)
 * and return the copy: a leaf that maptable_leaf_find() and
 * maptable_leaf_ranges() read like the original and that no later change
 * of the table touches.
 */
const struct mt_node *maptable_leaf_copy(void *buf, const struct mt_node *leaf);

/*
 * maptable_leaf_ranges - the ranges of leaf @leaf, in address order, and
 * their number in *@nr; valid as long as @leaf is.
 */
const struct map_node *maptable_leaf_ranges(const struct mt_node *leaf,
					    unsigned int *nr);

/*
 * maptable_gap - if no range holds @addr, set [*@lo, *@hi) to the free
 * stretch around it (*@lo: the end of the range before, 0 if none; *@hi:
 * the start of the range after, UINTPTR_MAX if none) and return 1; else
 * return 0 and leave them.  One descent: the range before is read from
 * the keys passed on the way down (an inner node's key is the largest
 * end below it).
 */
int maptable_gap(const struct maptable *t, uintptr_t addr, uintptr_t *lo,
		 uintptr_t *hi);

/* maptable_overlaps - true if any range intersects [start, end). */
int maptable_overlaps(const struct maptable *t, uintptr_t start,
		      uintptr_t end);

/* maptable_clear - drop every range (puts every file reference). */
void maptable_clear(struct maptable *t);

/*
 * maptable_check - verify the tree: ranges sorted, non-empty and disjoint,
 * every inner key the exact largest end below it, all leaves at one
 * depth, node fill within bounds, count right.  0 ok, -1 broken.
 */
int maptable_check(const struct maptable *t);

/* maptable_height - levels from the root to the leaves (0: empty). */
int maptable_height(const struct maptable *t);

#endif /* ADVSHIM_MAPTABLE_H */
