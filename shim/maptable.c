// SPDX-License-Identifier: MIT
/*
 * maptable.c - B+tree interval table (see maptable.h).
 *
 * Every leaf is at the same depth and holds ranges sorted by address;
 * an inner node holds, for each child, the largest end found below it
 * (max[i]).  Because ranges never overlap, "first range with end > addr"
 * is: in each inner node the first child with max > addr, in the leaf
 * the first range with end > addr.  Inserting [s, e) follows the same
 * path for addr = s (the range goes just before the first one ending
 * after s).  Only ends steer the descent, so moving a range's start up
 * (a front trim) changes no key.
 *
 * Nodes are 2 KiB slab blocks (80 ranges or 112 children), searched 8
 * keys at a time (maptable_node.h).  A full node splits in two when a
 * range or child is added; a node that falls under a quarter full after a
 * removal is merged with a neighbour, or shares its neighbour's slots if
 * both would not fit in one.  The root may be anything from one range up; an
 * inner root with one child is replaced by it.  Insertion first counts
 * the nodes the splits on its path will need and allocates them, so it
 * fails (ENOMEM) before changing anything.
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "shim/maptable.h"
#include "shim/maptable_node.h"
#include "shim/slab.h"

#define MAX_DEPTH	64	/* > log2(2^64): never reached with fanout >= 3 */

/* Nodes allocated before an insertion changes the tree. */
struct reserve {
	struct mt_node *node[MAX_DEPTH + 1];
	int nr;
};

/* The first range with end > @addr, and (if @leaf) its leaf. */
static struct map_node *lookup_leaf(const struct maptable *t, uintptr_t addr,
				    const struct mt_node **leaf)
{
	struct mt_node *n = t->root;
	unsigned int i;

	if (!n)
		goto none;
	while (!n->leaf) {
		i = node_pos(n, addr);
		if (i == n->nr)
			goto none;
		n = n->child[i];
	}
	i = node_pos(n, addr);
	if (i == n->nr)
		goto none;
	if (leaf)
		*leaf = n;
	return &n->ent[i];
none:
	if (leaf)
		*leaf = NULL;
	return NULL;
}

static struct map_node *lookup(const struct maptable *t, uintptr_t addr)
{
	return lookup_leaf(t, addr, NULL);
}

const struct map_node *maptable_next(const struct maptable *t,
				     uintptr_t addr)
{
	return lookup(t, addr);
}

const struct map_node *maptable_next_leaf(const struct maptable *t,
					  uintptr_t addr,
					  const struct mt_node **leaf)
{
	return lookup_leaf(t, addr, leaf);
}

/* Ranges never overlap: the one containing @addr is the answer wherever
 * it is found, so no check of the leaf's bounds is needed. */
const struct map_node *maptable_leaf_find(const struct mt_node *leaf,
					  uintptr_t addr)
{
	unsigned int i;

	if (!leaf)
		return NULL;
	i = node_pos(leaf, addr);
	if (i < leaf->nr && leaf->ent[i].start <= addr)
		return &leaf->ent[i];
	return NULL;
}

const struct mt_node *maptable_leaf_copy(void *buf, const struct mt_node *leaf)
{
	memcpy(buf, leaf, sizeof(*leaf));
	return buf;
}

const struct map_node *maptable_leaf_ranges(const struct mt_node *leaf,
					    unsigned int *nr)
{
	*nr = leaf->nr;
	return leaf->ent;
}

int maptable_gap(const struct maptable *t, uintptr_t addr, uintptr_t *lo,
		 uintptr_t *hi)
{
	const struct mt_node *n = t->root;
	uintptr_t before = 0;
	unsigned int i;

	if (!n) {
		*lo = 0;
		*hi = UINTPTR_MAX;
		return 1;
	}
	for (;;) {
		i = node_pos(n, addr);
		if (i == n->nr) {
			/* Only at the root: every range ends at or below @addr. */
			*lo = node_max(n);
			*hi = UINTPTR_MAX;
			return 1;
		}
		if (i > 0 && key(n, i - 1) > before)
			before = key(n, i - 1);
		if (n->leaf)
			break;
		n = n->child[i];
	}
	if (n->ent[i].start <= addr)
		return 0;
	*lo = before;
	*hi = n->ent[i].start;
	return 1;
}

int maptable_overlaps(const struct maptable *t, uintptr_t start,
		      uintptr_t end)
{
	const struct map_node *n = lookup(t, start);

	return n && n->start < end;
}

/*
 * Make room in full node @n for a slot going to index *@at: move its upper
 * part to a reserved node so that both halves are balanced once the slot
 * is added.  Returns the new right node; *@into and *@at say where the
 * slot goes now.  The caller adds the slot and refreshes both nodes.
 */
static struct mt_node *split(struct mt_node *n, struct reserve *r,
			     struct mt_node **into, unsigned int *at)
{
	struct mt_node *right = r->node[--r->nr];
	unsigned int half = (n->nr + 2) / 2;	/* left's size afterwards */
	unsigned int keep = *at < half ? half - 1 : half;

	right->leaf = n->leaf;
	move_slots(right, 0, n, keep, n->nr - keep);
	right->nr = n->nr - keep;
	n->nr = keep;
	if (*at >= half) {
		*into = right;
		*at -= keep;
	} else {
		*into = n;
	}
	return right;
}

/* Insert @e under @n; returns @n's new right sibling if @n split. */
static struct mt_node *ins(const struct maptable *t, struct mt_node *n,
			   const struct map_node *e, struct reserve *r)
{
	struct mt_node *sib, *right = NULL, *into = n;
	unsigned int i, at;

	if (n->leaf) {
		at = node_pos(n, e->start);
		if (n->nr == cap(t, n))
			right = split(n, r, &into, &at);
		move_slots(into, at + 1, into, at, into->nr - at);
		into->ent[at] = *e;
		into->nr++;
		goto out;
	}
	i = child_pos(n, e->start);
	sib = ins(t, n->child[i], e, r);
	n->max[i] = node_max(n->child[i]);
	if (sib) {
		at = i + 1;
		if (n->nr == cap(t, n))
			right = split(n, r, &into, &at);
		move_slots(into, at + 1, into, at, into->nr - at);
		into->max[at] = node_max(sib);
		into->child[at] = sib;
		into->nr++;
	}
out:
	refresh(n);
	if (right)
		refresh(right);
	return right;
}

/* Nodes inserting a range at @start takes: the full nodes at the bottom
 * of its path split, and a new root if the root splits too. */
static int nodes_needed(const struct maptable *t, uintptr_t start)
{
	const struct mt_node *n = t->root;
	int run = 0, depth = 0;

	if (!n)
		return 1;
	for (;;) {
		depth++;
		run = n->nr == cap(t, n) ? run + 1 : 0;
		if (n->leaf)
			break;
		n = n->child[child_pos(n, start)];
	}
	return run + (run == depth);
}

/* Add [start, end) (overlapping nothing) with a reference on @file. */
static int insert(struct maptable *t, uintptr_t start, uintptr_t end,
		  void *file)
{
	const struct map_node e = { .start = start, .end = end, .file = file };
	struct reserve r = { .nr = 0 };
	struct mt_node *sib, *root;
	int need = nodes_needed(t, start);

	if (need > MAX_DEPTH) {
		errno = ENOMEM;
		return -1;
	}
	for (; r.nr < need; r.nr++) {
		r.node[r.nr] = slab_alloc(sizeof(struct mt_node));
		if (!r.node[r.nr]) {
			while (r.nr--)
				slab_free(r.node[r.nr], sizeof(struct mt_node));
			errno = ENOMEM;
			return -1;
		}
	}
	if (!t->root) {
		t->root = r.node[--r.nr];
		t->root->leaf = 1;
		refresh(t->root);
	}
	sib = ins(t, t->root, &e, &r);
	if (sib) {
		root = r.node[--r.nr];
		root->leaf = 0;
		root->nr = 2;
		root->child[0] = t->root;
		root->child[1] = sib;
		root->max[0] = node_max(t->root);
		root->max[1] = node_max(sib);
		refresh(root);
		t->root = root;
	}
	t->count++;
	if (file && t->file_get)
		t->file_get(file);
	return 0;
}

/*
 * Child @i of @p fell under its minimum: merge it with a neighbour, or
 * even out the two if they do not fit in one node.  The caller refreshes
 * @p.
 */
static void rebalance(const struct maptable *t, struct mt_node *p,
		      unsigned int i)
{
	unsigned int l = i + 1 < p->nr ? i : i - 1, total, keep, k;
	struct mt_node *a = p->child[l], *b = p->child[l + 1];

	total = a->nr + b->nr;
	if (total <= cap(t, a)) {
		move_slots(a, a->nr, b, 0, b->nr);
		a->nr = total;
		refresh(a);
		slab_free(b, sizeof(*b));
		move_slots(p, l + 1, p, l + 2, p->nr - l - 2);
		p->nr--;
		p->max[l] = node_max(a);
		return;
	}
	keep = total / 2;
	if (a->nr < keep) {
		k = keep - a->nr;
		move_slots(a, a->nr, b, 0, k);
		move_slots(b, 0, b, k, b->nr - k);
	} else {
		k = a->nr - keep;
		move_slots(b, k, b, 0, b->nr);
		move_slots(b, 0, a, keep, k);
	}
	a->nr = keep;
	b->nr = total - keep;
	refresh(a);
	refresh(b);
	p->max[l] = node_max(a);
	p->max[l + 1] = node_max(b);
}

/* Take the range starting at @start out of @n's subtree into *@out. */
static bool del(const struct maptable *t, struct mt_node *n, uintptr_t start,
		struct map_node *out)
{
	unsigned int i;

	if (n->leaf) {
		i = node_pos(n, start);
		if (i == n->nr || n->ent[i].start != start)
			return false;
		*out = n->ent[i];
		move_slots(n, i, n, i + 1, n->nr - i - 1);
		n->nr--;
		refresh(n);
		return true;
	}
	i = node_pos(n, start);
	if (i == n->nr || !del(t, n->child[i], start, out))
		return false;
	if (n->child[i]->nr < min_fill(t, n->child[i]))
		rebalance(t, n, i);
	else
		n->max[i] = node_max(n->child[i]);
	refresh(n);
	return true;
}

static void remove_range(struct maptable *t, uintptr_t start)
{
	struct mt_node *root = t->root;
	struct map_node gone;

	if (!root || !del(t, root, start, &gone))
		return;
	t->count--;
	if (!root->nr) {
		t->root = NULL;
		slab_free(root, sizeof(*root));
	} else if (!root->leaf && root->nr == 1) {
		t->root = root->child[0];
		slab_free(root, sizeof(*root));
	}
	if (gone.file && t->file_put)
		t->file_put(gone.file);
}

/* Lower the end of the range starting at @start (present) to @end. */
static void set_end(struct mt_node *n, uintptr_t start, uintptr_t end)
{
	unsigned int i;

	if (n->leaf) {
		n->ent[node_pos(n, start)].end = end;
		refresh(n);
		return;
	}
	i = node_pos(n, start);
	set_end(n->child[i], start, end);
	n->max[i] = node_max(n->child[i]);
	refresh(n);
}

size_t maptable_unmap(struct maptable *t, uintptr_t start, uintptr_t end)
{
	struct map_node *n;
	uintptr_t s, e;
	size_t touched = 0;

	while (start < end) {
		n = lookup(t, start);
		if (!n || n->start >= end)
			break;
		touched++;
		s = n->start;
		e = n->end;
		if (s < start && e > end) {
			/* Hole punched in the middle: keep both sides (the
			 * tail is forgotten if it cannot get a node). */
			set_end(t->root, s, start);
			insert(t, end, e, n->file);
			break;
		}
		if (s < start) {
			set_end(t->root, s, start);
		} else if (e > end) {
			/* Front trimmed: ends steer the tree, and the new
			 * start stays between its neighbours. */
			n->start = end;
			break;
		} else {
			remove_range(t, s);
		}
	}
	return touched;
}

int maptable_map(struct maptable *t, uintptr_t start, uintptr_t end,
		 void *file)
{
	if (start >= end) {
		errno = EINVAL;
		return -1;
	}
	maptable_unmap(t, start, end);
	return insert(t, start, end, file);
}

int maptable_remap(struct maptable *t, uintptr_t old, size_t old_len,
		   uintptr_t new, size_t new_len)
{
	const struct map_node *n = lookup(t, old);
	void *file;
	int ret;

	if (!n || n->start > old)
		return 1;
	file = n->file;
	/* Hold the file while its last range may be going away. */
	if (file && t->file_get)
		t->file_get(file);
	if (old_len)
		maptable_unmap(t, old, old + old_len);
	ret = new_len ? maptable_map(t, new, new + new_len, file) : 0;
	if (file && t->file_put)
		t->file_put(file);
	return ret;
}

static void clear(struct maptable *t, struct mt_node *n)
{
	unsigned int i;

	for (i = 0; i < n->nr; i++) {
		if (!n->leaf)
			clear(t, n->child[i]);
		else if (n->ent[i].file && t->file_put)
			t->file_put(n->ent[i].file);
	}
	slab_free(n, sizeof(*n));
}

void maptable_clear(struct maptable *t)
{
	if (t->root)
		clear(t, t->root);
	t->root = NULL;
	t->count = 0;
}

struct check_state {
	int leaf_depth;		/* -1 until the first leaf */
	uintptr_t prev_end;
	size_t nr;
};

static int check(const struct maptable *t, const struct mt_node *n,
		 int depth, struct check_state *cs)
{
	unsigned int i, groups = n->leaf ? LEAF_GROUPS : INNER_GROUPS;

	if (!n->nr || n->nr > cap(t, n))
		return -1;
	for (i = n->nr; i < groups * GROUP; i++)
		if (key(n, i) != NO_KEY)
			return -1;
	for (i = 0; i < SUMS; i++)
		if (n->sum[i] != (i < groups ? key(n, i * GROUP + GROUP - 1) : NO_KEY))
			return -1;
	if (n != t->root && n->nr < min_fill(t, n))
		return -1;
	if (n->leaf) {
		if (cs->leaf_depth < 0)
			cs->leaf_depth = depth;
		if (cs->leaf_depth != depth)
			return -1;
		for (i = 0; i < n->nr; i++) {
			if (n->ent[i].start < cs->prev_end ||
			    n->ent[i].start >= n->ent[i].end)
				return -1;
			cs->prev_end = n->ent[i].end;
			cs->nr++;
		}
		return 0;
	}
	if (n == t->root && n->nr < 2)
		return -1;
	for (i = 0; i < n->nr; i++)
		if (check(t, n->child[i], depth + 1, cs) ||
		    n->max[i] != node_max(n->child[i]))
			return -1;
	return 0;
}

int maptable_check(const struct maptable *t)
{
	struct check_state cs = { .leaf_depth = -1 };

	if (!t->root)
		return t->count ? -1 : 0;
	if (check(t, t->root, 1, &cs) || cs.nr != t->count)
		return -1;
	return 0;
}

int maptable_height(const struct maptable *t)
{
	const struct mt_node *n = t->root;
	int h = 0;

	for (; n; h++)
		n = n->leaf ? NULL : n->child[0];
	return h;
}
