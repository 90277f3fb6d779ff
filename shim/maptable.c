// SPDX-License-Identifier: MIT
/*
 * maptable.c - AVL interval table (see maptable.h).
 */
#include <errno.h>

#include "shim/maptable.h"
#include "shim/slab.h"

static int height(const struct map_node *n)
{
	return n ? n->height : 0;
}

static void update(struct map_node *n)
{
	int hl = height(n->left), hr = height(n->right);

	n->height = (hl > hr ? hl : hr) + 1;
}

static struct map_node *rotate_right(struct map_node *n)
{
	struct map_node *l = n->left;

	n->left = l->right;
	l->right = n;
	update(n);
	update(l);
	return l;
}

static struct map_node *rotate_left(struct map_node *n)
{
	struct map_node *r = n->right;

	n->right = r->left;
	r->left = n;
	update(n);
	update(r);
	return r;
}

static struct map_node *balance(struct map_node *n)
{
	int bf;

	update(n);
	bf = height(n->left) - height(n->right);
	if (bf > 1) {
		if (height(n->left->left) < height(n->left->right))
			n->left = rotate_left(n->left);
		return rotate_right(n);
	}
	if (bf < -1) {
		if (height(n->right->right) < height(n->right->left))
			n->right = rotate_right(n->right);
		return rotate_left(n);
	}
	return n;
}

/* Insert @node (its start is not yet in the tree). */
static struct map_node *insert(struct map_node *root, struct map_node *node)
{
	if (!root)
		return node;
	if (node->start < root->start)
		root->left = insert(root->left, node);
	else
		root->right = insert(root->right, node);
	return balance(root);
}

/* Detach the minimum of @root into *min; returns the new subtree. */
static struct map_node *detach_min(struct map_node *root,
				   struct map_node **min)
{
	if (!root->left) {
		*min = root;
		return root->right;
	}
	root->left = detach_min(root->left, min);
	return balance(root);
}

/* Remove the node whose start is @start; it is returned in *out. */
static struct map_node *erase(struct map_node *root, uintptr_t start,
			      struct map_node **out)
{
	struct map_node *succ;

	if (!root)
		return NULL;
	if (start < root->start) {
		root->left = erase(root->left, start, out);
	} else if (start > root->start) {
		root->right = erase(root->right, start, out);
	} else {
		*out = root;
		if (!root->right)
			return root->left;
		root->right = detach_min(root->right, &succ);
		succ->left = root->left;
		succ->right = root->right;
		return balance(succ);
	}
	return balance(root);
}

const struct map_node *maptable_next(const struct maptable *t,
				     uintptr_t addr)
{
	const struct map_node *n = t->root, *best = NULL;

	while (n) {
		if (n->end > addr) {
			best = n;
			n = n->left;
		} else {
			n = n->right;
		}
	}
	return best;
}

int maptable_overlaps(const struct maptable *t, uintptr_t start,
		      uintptr_t end)
{
	const struct map_node *n = maptable_next(t, start);

	return n && n->start < end;
}

static struct map_node *new_node(struct maptable *t, uintptr_t start,
				 uintptr_t end, void *file)
{
	struct map_node *n = slab_alloc(sizeof(*n));

	if (!n)
		return NULL;
	n->start = start;
	n->end = end;
	n->file = file;
	n->height = 1;
	if (file && t->file_get)
		t->file_get(file);
	return n;
}

static void drop_node(struct maptable *t, struct map_node *n)
{
	if (n->file && t->file_put)
		t->file_put(n->file);
	slab_free(n, sizeof(*n));
}

static void remove_node(struct maptable *t, uintptr_t start)
{
	struct map_node *gone = NULL;

	t->root = erase(t->root, start, &gone);
	if (gone) {
		t->count--;
		drop_node(t, gone);
	}
}

size_t maptable_unmap(struct maptable *t, uintptr_t start, uintptr_t end)
{
	struct map_node *n, *tail;
	size_t touched = 0;

	while (start < end) {
		n = (struct map_node *)maptable_next(t, start);
		if (!n || n->start >= end)
			break;
		touched++;
		if (n->start < start && n->end > end) {
			/* Hole punched in the middle: keep both sides. */
			tail = new_node(t, end, n->end, n->file);
			n->end = start;
			if (tail) {
				t->root = insert(t->root, tail);
				t->count++;
			}
			break;
		}
		if (n->start < start) {
			n->end = start;		/* key unchanged */
		} else if (n->end > end) {
			/*
			 * Front trimmed: the new key stays between the
			 * previous range (ends <= start) and the next one
			 * (starts >= n->end), so the order holds in place.
			 */
			n->start = end;
			break;
		} else {
			remove_node(t, n->start);
		}
	}
	return touched;
}

int maptable_map(struct maptable *t, uintptr_t start, uintptr_t end,
		 void *file)
{
	struct map_node *n;

	if (start >= end) {
		errno = EINVAL;
		return -1;
	}
	maptable_unmap(t, start, end);
	n = new_node(t, start, end, file);
	if (!n)
		return -1;
	t->root = insert(t->root, n);
	t->count++;
	return 0;
}

int maptable_remap(struct maptable *t, uintptr_t old, size_t old_len,
		   uintptr_t new, size_t new_len)
{
	const struct map_node *n = maptable_next(t, old);
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

static void clear(struct maptable *t, struct map_node *n)
{
	if (!n)
		return;
	clear(t, n->left);
	clear(t, n->right);
	drop_node(t, n);
}

void maptable_clear(struct maptable *t)
{
	clear(t, t->root);
	t->root = NULL;
	t->count = 0;
}

/* Returns the height, or -1; *prev_end walks the in-order sequence. */
static int check(const struct map_node *n, uintptr_t *prev_end, size_t *nr)
{
	int hl, hr;

	if (!n)
		return 0;
	hl = check(n->left, prev_end, nr);
	if (hl < 0 || n->start < *prev_end || n->start >= n->end)
		return -1;
	*prev_end = n->end;
	(*nr)++;
	hr = check(n->right, prev_end, nr);
	if (hr < 0 || hl - hr > 1 || hr - hl > 1)
		return -1;
	if (n->height != (hl > hr ? hl : hr) + 1)
		return -1;
	return n->height;
}

int maptable_check(const struct maptable *t)
{
	uintptr_t prev_end = 0;
	size_t nr = 0;

	if (check(t->root, &prev_end, &nr) < 0 || nr != t->count)
		return -1;
	return 0;
}
