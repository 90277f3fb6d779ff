/* SPDX-License-Identifier: MIT */
/*
 * maptable_node.h - one node of the mapping table: its layout and the
 * grouped key search (private to maptable.c).
 *
 * A node is a leaf (ranges, keyed by their end) or an inner node (one
 * child per slot, keyed by the largest end below it).  The tree's shape
 * (descent, splits, merges) is in maptable.c; everything here looks at or
 * changes a single node.
 */
#ifndef ADVSHIM_MAPTABLE_NODE_H
#define ADVSHIM_MAPTABLE_NODE_H

#include <stdint.h>
#include <string.h>

#include "shim/maptable.h"

#define NODE_BYTES	MAPTABLE_NODE_BYTES
#define GROUP		8	/* keys compared at once */
#define LEAF_GROUPS	10
#define INNER_GROUPS	14
#define SUMS		INNER_GROUPS	/* group summaries (2 cache lines) */
#define LEAF_MAX	(LEAF_GROUPS * GROUP)	/* 80 ranges */
#define INNER_MAX	(INNER_GROUPS * GROUP)	/* 112 children */
#define NO_KEY		UINTPTR_MAX

/*
 * Keys are searched a group of 8 at a time: the header holds the last key
 * of each group, the group found holds the key.  Comparing independent
 * loads and adding the results costs about one load's latency, where a
 * binary search pays one dependent load per halving; with the caches cold
 * (a system call, or another process, between two lookups) those
 * dependent loads are what a lookup costs.  Slots past nr hold NO_KEY
 * (and so do summaries of groups not full), so the comparisons need no
 * bounds: refresh() keeps this after any change.
 */
struct mt_node {
	unsigned int nr;	/* ranges (leaf) or children (inner) */
	unsigned int leaf;
	uintptr_t sum[SUMS];	/* key of each group's last slot */
	union {
		struct map_node ent[LEAF_MAX];	/* key: end */
		struct {
			uintptr_t max[INNER_MAX];	/* largest end below */
			struct mt_node *child[INNER_MAX];
		};
	};
};

_Static_assert(sizeof(struct mt_node) <= NODE_BYTES,
	       "node exceeds its slab class");
_Static_assert(LEAF_MAX == MAPTABLE_LEAF_MAX, "leaf size in maptable.h");

/* Most slots @n holds in table @t (its fanout, for tests, or the node's). */
static inline unsigned int cap(const struct maptable *t,
			       const struct mt_node *n)
{
	unsigned int max = n->leaf ? LEAF_MAX : INNER_MAX;

	if (t->fanout && t->fanout < max)
		return t->fanout < 3 ? 3 : t->fanout;
	return max;
}

/* Fewest slots a node other than the root keeps. */
static inline unsigned int min_fill(const struct maptable *t,
				    const struct mt_node *n)
{
	unsigned int m = cap(t, n) / 4, floor = n->leaf ? 1 : 2;

	return m < floor ? floor : m;
}

/* The key of slot @i: a range's end, or the largest end below a child. */
static inline uintptr_t key(const struct mt_node *n, unsigned int i)
{
	return n->leaf ? n->ent[i].end : n->max[i];
}

/* Restore the padding and the summaries after @n's slots changed. */
static inline void refresh(struct mt_node *n)
{
	unsigned int i, groups = n->leaf ? LEAF_GROUPS : INNER_GROUPS;

	for (i = n->nr; i < groups * GROUP; i++) {
		if (n->leaf) {
			n->ent[i] = (struct map_node){ NO_KEY, NO_KEY, NULL };
		} else {
			n->max[i] = NO_KEY;
			n->child[i] = NULL;
		}
	}
	for (i = 0; i < SUMS; i++)
		n->sum[i] = i < groups ? key(n, i * GROUP + GROUP - 1) : NO_KEY;
}

/* How many of @nr keys, @stride words apart, are <= @addr (unrolled). */
static inline unsigned int count_le(const uintptr_t *k, unsigned int nr,
				    unsigned int stride, uintptr_t addr)
{
	unsigned int i, c = 0;

	for (i = 0; i < nr; i++)
		c += k[i * stride] <= addr;
	return c;
}

/*
 * The first slot of @n whose key is > @addr, or n->nr.  For an inner
 * node the line of child pointers the answer is in is fetched while the
 * group's keys are compared (the next level needs it right after).
 */
static inline unsigned int node_pos(const struct mt_node *n,
				    uintptr_t addr)
{
	unsigned int g = count_le(n->sum, SUMS, 1, addr), i;

	if (n->leaf) {
		if (g >= LEAF_GROUPS)
			return n->nr;
		i = g * GROUP + count_le(&n->ent[g * GROUP].end, GROUP,
					 sizeof(struct map_node) / sizeof(uintptr_t),
					 addr);
	} else {
		if (g >= INNER_GROUPS)
			return n->nr;
		__builtin_prefetch(&n->child[g * GROUP]);
		i = g * GROUP + count_le(&n->max[g * GROUP], GROUP, 1, addr);
	}
	return i < n->nr ? i : n->nr;
}

/* The child of inner node @n a range starting at @start belongs under. */
static inline unsigned int child_pos(const struct mt_node *n,
				     uintptr_t start)
{
	unsigned int i = node_pos(n, start);

	return i < n->nr ? i : n->nr - 1;
}

/* Largest end in the subtree of @n (not empty). */
static inline uintptr_t node_max(const struct mt_node *n)
{
	return key(n, n->nr - 1);
}

/* Move @k slots from @s[@si] to @d[@di] (same kind; may overlap). */
static inline void move_slots(struct mt_node *d, unsigned int di,
		       const struct mt_node *s, unsigned int si, unsigned int k)
{
	if (s->leaf) {
		memmove(&d->ent[di], &s->ent[si], k * sizeof(s->ent[0]));
		return;
	}
	memmove(&d->max[di], &s->max[si], k * sizeof(s->max[0]));
	memmove(&d->child[di], &s->child[si], k * sizeof(s->child[0]));
}

#endif /* ADVSHIM_MAPTABLE_NODE_H */
