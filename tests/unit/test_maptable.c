// SPDX-License-Identifier: MIT
/*
 * test_maptable.c - the shim's address range table: splits, partial
 * unmaps, mremap moves and resizes, overlaps, file references, and a
 * randomised comparison against a page-by-page model.
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>

#include "shim/maptable.h"

#define PG 4096UL

/* Files are counters here: the table must balance every get with a put. */
struct tfile {
	int refs;
};

static void tget(void *f)
{
	((struct tfile *)f)->refs++;
}

static void tput(void *f)
{
	((struct tfile *)f)->refs--;
}

static struct maptable table(void)
{
	struct maptable t = { .file_get = tget, .file_put = tput };

	return t;
}

/* The file at @addr, or NULL. */
static void *file_at(const struct maptable *t, uintptr_t addr)
{
	const struct map_node *n = maptable_next(t, addr);

	return n && n->start <= addr ? n->file : NULL;
}

Test(maptable, insert_lookup_and_gaps)
{
	struct maptable t = table();
	struct tfile a = { 0 }, b = { 0 };

	cr_assert_eq(maptable_map(&t, 10 * PG, 20 * PG, &a), 0);
	cr_assert_eq(maptable_map(&t, 30 * PG, 40 * PG, &b), 0);
	cr_assert_eq(t.count, 2);
	cr_assert_eq(a.refs, 1);
	cr_assert_eq(file_at(&t, 10 * PG), &a);
	cr_assert_eq(file_at(&t, 20 * PG - 1), &a);
	cr_assert_null(file_at(&t, 20 * PG));
	cr_assert_eq(maptable_next(&t, 20 * PG)->start, 30 * PG);
	cr_assert_null(maptable_next(&t, 40 * PG));
	cr_assert(maptable_overlaps(&t, 19 * PG, 31 * PG));
	cr_assert_not(maptable_overlaps(&t, 20 * PG, 30 * PG));
	cr_assert_eq(maptable_map(&t, 5 * PG, 5 * PG, &a), -1);
	cr_assert_eq(maptable_check(&t), 0);
	maptable_clear(&t);
	cr_assert_eq(a.refs, 0);
	cr_assert_eq(b.refs, 0);
}

Test(maptable, unmap_middle_splits)
{
	struct maptable t = table();
	struct tfile a = { 0 };

	maptable_map(&t, 0x100000, 0x200000, &a);
	cr_assert_eq(maptable_unmap(&t, 0x140000, 0x150000), 1);
	cr_assert_eq(t.count, 2);
	cr_assert_eq(a.refs, 2);
	cr_assert_eq(file_at(&t, 0x13f000), &a);
	cr_assert_null(file_at(&t, 0x140000));
	cr_assert_null(file_at(&t, 0x14f000));
	cr_assert_eq(file_at(&t, 0x150000), &a);
	cr_assert_eq(maptable_check(&t), 0);
	maptable_clear(&t);
	cr_assert_eq(a.refs, 0);
}

Test(maptable, unmap_edges_and_spanning)
{
	struct maptable t = table();
	struct tfile a = { 0 }, b = { 0 }, c = { 0 };

	maptable_map(&t, 0 * PG + PG, 10 * PG, &a);
	maptable_map(&t, 10 * PG, 20 * PG, &b);
	maptable_map(&t, 25 * PG, 30 * PG, &c);
	/* Cuts the tail of a, all of b, the head of c. */
	cr_assert_eq(maptable_unmap(&t, 5 * PG, 27 * PG), 3);
	cr_assert_eq(t.count, 2);
	cr_assert_eq(b.refs, 0);
	cr_assert_eq(file_at(&t, 4 * PG), &a);
	cr_assert_null(file_at(&t, 5 * PG));
	cr_assert_null(file_at(&t, 26 * PG));
	cr_assert_eq(file_at(&t, 27 * PG), &c);
	cr_assert_eq(maptable_next(&t, 5 * PG)->start, 27 * PG);
	cr_assert_eq(maptable_unmap(&t, 100 * PG, 200 * PG), 0);
	cr_assert_eq(maptable_check(&t), 0);
	maptable_clear(&t);
	cr_assert_eq(a.refs + c.refs, 0);
}

Test(maptable, map_fixed_replaces_overlaps)
{
	struct maptable t = table();
	struct tfile a = { 0 }, b = { 0 };

	maptable_map(&t, 0, 100 * PG, &a);
	maptable_map(&t, 40 * PG, 50 * PG, &b);
	cr_assert_eq(t.count, 3);
	cr_assert_eq(a.refs, 2);
	cr_assert_eq(file_at(&t, 39 * PG), &a);
	cr_assert_eq(file_at(&t, 40 * PG), &b);
	cr_assert_eq(file_at(&t, 49 * PG), &b);
	cr_assert_eq(file_at(&t, 50 * PG), &a);
	/* A mapping covering everything replaces all three. */
	maptable_map(&t, 0, 200 * PG, &b);
	cr_assert_eq(t.count, 1);
	cr_assert_eq(a.refs, 0);
	cr_assert_eq(b.refs, 1);
	cr_assert_eq(maptable_check(&t), 0);
	maptable_clear(&t);
}

Test(maptable, mremap_move_grow_shrink)
{
	struct maptable t = table();
	struct tfile a = { 0 };

	maptable_map(&t, 10 * PG, 20 * PG, &a);
	/* Grow in place. */
	cr_assert_eq(maptable_remap(&t, 10 * PG, 10 * PG, 10 * PG, 15 * PG), 0);
	cr_assert_eq(file_at(&t, 24 * PG), &a);
	cr_assert_eq(t.count, 1);
	/* Shrink in place. */
	cr_assert_eq(maptable_remap(&t, 10 * PG, 15 * PG, 10 * PG, 5 * PG), 0);
	cr_assert_null(file_at(&t, 15 * PG));
	cr_assert_eq(file_at(&t, 14 * PG), &a);
	/* Move. */
	cr_assert_eq(maptable_remap(&t, 10 * PG, 5 * PG, 100 * PG, 8 * PG), 0);
	cr_assert_null(file_at(&t, 10 * PG));
	cr_assert_eq(file_at(&t, 107 * PG), &a);
	cr_assert_eq(t.count, 1);
	cr_assert_eq(a.refs, 1);
	/* Moving part of a range leaves the rest behind. */
	cr_assert_eq(maptable_remap(&t, 102 * PG, 2 * PG, 300 * PG, 2 * PG), 0);
	cr_assert_eq(t.count, 3);
	cr_assert_eq(file_at(&t, 101 * PG), &a);
	cr_assert_null(file_at(&t, 103 * PG));
	cr_assert_eq(file_at(&t, 104 * PG), &a);
	cr_assert_eq(file_at(&t, 301 * PG), &a);
	/* Unknown source: nothing happens. */
	cr_assert_eq(maptable_remap(&t, 500 * PG, PG, 600 * PG, PG), 1);
	cr_assert_null(file_at(&t, 600 * PG));
	/* old_len 0 duplicates: the source stays. */
	cr_assert_eq(maptable_remap(&t, 300 * PG, 0, 700 * PG, 2 * PG), 0);
	cr_assert_eq(file_at(&t, 300 * PG), &a);
	cr_assert_eq(file_at(&t, 701 * PG), &a);
	cr_assert_eq(maptable_check(&t), 0);
	maptable_clear(&t);
	cr_assert_eq(a.refs, 0);
}

/*
 * 100k live ranges stay shallow and findable: nodes are at least half
 * full after splits, so 3 levels of 2 KiB nodes (80 ranges a leaf, 112
 * children an inner node) hold them.
 */
Test(maptable, hundred_thousand_ranges)
{
	struct maptable t = table();
	struct tfile a = { 0 };
	const uintptr_t n = 100000;
	uintptr_t i;

	for (i = 0; i < n; i++)
		cr_assert_eq(maptable_map(&t, (2 * i + 1) * PG,
					  (2 * i + 2) * PG, &a), 0);
	cr_assert_eq(t.count, n);
	cr_assert_leq(maptable_height(&t), 3);
	cr_assert_eq(maptable_check(&t), 0);
	for (i = 0; i < n; i += 997) {
		cr_assert_eq(file_at(&t, (2 * i + 1) * PG), &a);
		cr_assert_null(file_at(&t, 2 * i * PG));
	}
	for (i = 0; i < n; i += 2)
		maptable_unmap(&t, (2 * i + 1) * PG, (2 * i + 2) * PG);
	cr_assert_eq(t.count, n / 2);
	cr_assert_eq(maptable_check(&t), 0);
	maptable_clear(&t);
	cr_assert_eq(a.refs, 0);
}

/*
 * Random map/unmap/remap against a model holding one file pointer per
 * page: after every step both must agree page by page.
 */
#define MODEL_PAGES 512

static void check_model(const struct maptable *t, void **model)
{
	size_t p;

	for (p = 0; p < MODEL_PAGES; p++)
		cr_assert_eq(file_at(t, p * PG), model[p], "page %zu", p);
	cr_assert_eq(maptable_check(t), 0);
}

/* @fanout 0: the real node size; small ones split and merge all the time. */
static void random_against_model(unsigned int fanout, unsigned int seed)
{
	struct maptable t = table();
	struct tfile files[4] = { { 0 } };
	void *model[MODEL_PAGES] = { NULL };
	void *moved[MODEL_PAGES];
	size_t a, len, b, nlen, p;
	int step, op;

	t.fanout = fanout;

	for (step = 0; step < 4000; step++) {
		op = rand_r(&seed) % 3;
		a = rand_r(&seed) % (MODEL_PAGES - 1);
		len = 1 + rand_r(&seed) % 40;
		if (a + len > MODEL_PAGES)
			len = MODEL_PAGES - a;
		if (op == 0) {
			struct tfile *f = &files[rand_r(&seed) % 4];

			cr_assert_eq(maptable_map(&t, a * PG, (a + len) * PG, f), 0);
			for (p = a; p < a + len; p++)
				model[p] = f;
		} else if (op == 1) {
			maptable_unmap(&t, a * PG, (a + len) * PG);
			for (p = a; p < a + len; p++)
				model[p] = NULL;
		} else {
			/* mremap stays within one mapping: clamp to it. */
			if (!model[a])
				continue;
			for (p = a; p < a + len && model[p] == model[a]; p++)
				;
			len = p - a;
			{
				const struct map_node *n = maptable_next(&t, a * PG);

				if (n->end < (a + len) * PG)
					len = n->end / PG - a;
			}
			b = rand_r(&seed) % (MODEL_PAGES - 1);
			nlen = 1 + rand_r(&seed) % 40;
			if (b + nlen > MODEL_PAGES)
				nlen = MODEL_PAGES - b;
			memcpy(moved, model, sizeof(model));
			for (p = a; p < a + len; p++)
				moved[p] = NULL;
			for (p = b; p < b + nlen; p++)
				moved[p] = model[a];
			cr_assert_eq(maptable_remap(&t, a * PG, len * PG,
						    b * PG, nlen * PG), 0);
			memcpy(model, moved, sizeof(model));
		}
		check_model(&t, model);
	}
	maptable_clear(&t);
	for (p = 0; p < 4; p++)
		cr_assert_eq(files[p].refs, 0);
}

Test(maptable, random_against_model)
{
	random_against_model(0, 12345);
}

/* Tiny nodes: every few steps a split, merge or redistribution, deep trees. */
Test(maptable, random_against_model_small_nodes)
{
	unsigned int fanout;

	for (fanout = 3; fanout <= 6; fanout++)
		random_against_model(fanout, 777 + fanout);
}

/*
 * Ascending, descending and shuffled inserts, then removal in a shuffled
 * order down to an empty table: the tree stays valid after every step of
 * a sample, and nothing (node, reference) is left at the end.
 */
static void fill_and_drain(unsigned int fanout, int order)
{
	struct maptable t = table();
	struct tfile a = { 0 };
	const size_t n = 20000;
	size_t *idx = malloc(n * sizeof(*idx)), i, j, tmp;
	unsigned int seed = 99 + (unsigned int)order;

	cr_assert_not_null(idx);
	t.fanout = fanout;
	for (i = 0; i < n; i++)
		idx[i] = order == 1 ? n - 1 - i : i;
	for (i = n - 1; order == 2 && i > 0; i--) {
		j = (size_t)rand_r(&seed) % (i + 1);
		tmp = idx[i], idx[i] = idx[j], idx[j] = tmp;
	}
	for (i = 0; i < n; i++) {
		cr_assert_eq(maptable_map(&t, (3 * idx[i] + 1) * PG,
					  (3 * idx[i] + 3) * PG, &a), 0);
		if (i % 997 == 0)
			cr_assert_eq(maptable_check(&t), 0);
	}
	cr_assert_eq(t.count, n);
	cr_assert_eq(a.refs, (int)n);
	cr_assert_eq(maptable_check(&t), 0);
	for (i = 0; i < n; i += 101) {
		cr_assert_eq(file_at(&t, (3 * i + 2) * PG), &a);
		cr_assert_null(file_at(&t, 3 * i * PG));
		cr_assert_eq(maptable_next(&t, 3 * i * PG)->start, (3 * i + 1) * PG);
	}
	for (i = n - 1; i > 0; i--) {
		j = (size_t)rand_r(&seed) % (i + 1);
		tmp = idx[i], idx[i] = idx[j], idx[j] = tmp;
	}
	for (i = 0; i < n; i++) {
		cr_assert_eq(maptable_unmap(&t, (3 * idx[i] + 1) * PG,
					    (3 * idx[i] + 3) * PG), 1);
		if (i % 997 == 0)
			cr_assert_eq(maptable_check(&t), 0);
	}
	cr_assert_eq(t.count, 0);
	cr_assert_eq(maptable_height(&t), 0);
	cr_assert_null(maptable_next(&t, 0));
	cr_assert_eq(maptable_check(&t), 0);
	cr_assert_eq(a.refs, 0);
	free(idx);
}

Test(maptable, fill_and_drain)
{
	int order;

	for (order = 0; order < 3; order++) {
		fill_and_drain(0, order);
		fill_and_drain(3, order);
		fill_and_drain(7, order);
	}
}

/* A hole punched in every range of a full tree splits each one in place. */
Test(maptable, punch_holes_small_nodes)
{
	struct maptable t = table();
	struct tfile a = { 0 };
	uintptr_t i;

	t.fanout = 4;
	for (i = 0; i < 500; i++)
		maptable_map(&t, i * 10 * PG, (i * 10 + 8) * PG, &a);
	for (i = 0; i < 500; i++)
		cr_assert_eq(maptable_unmap(&t, (i * 10 + 3) * PG,
					    (i * 10 + 5) * PG), 1);
	cr_assert_eq(t.count, 1000);
	cr_assert_eq(a.refs, 1000);
	cr_assert_eq(maptable_check(&t), 0);
	for (i = 0; i < 500; i++) {
		cr_assert_eq(file_at(&t, (i * 10 + 2) * PG), &a);
		cr_assert_null(file_at(&t, (i * 10 + 4) * PG));
		cr_assert_eq(file_at(&t, (i * 10 + 5) * PG), &a);
		cr_assert_null(file_at(&t, (i * 10 + 8) * PG));
	}
	/* One unmap across everything empties it. */
	cr_assert_eq(maptable_unmap(&t, 0, 5000 * PG), 1000);
	cr_assert_eq(t.count, 0);
	cr_assert_eq(a.refs, 0);
	cr_assert_eq(maptable_check(&t), 0);
}

/*
 * The finger: maptable_next_leaf names the leaf of its answer, and
 * maptable_leaf_find answers from that leaf alone for any address a range
 * in it contains; holes, addresses held by other leaves and a NULL leaf
 * give NULL (the caller then descends).  Checked against maptable_next
 * for every page, with tiny nodes (many leaves) and the real size.
 */
static void finger_matches_descent(unsigned int fanout)
{
	struct maptable t = table();
	struct tfile a = { 0 };
	const struct mt_node *leaf, *other;
	const struct map_node *n, *m;
	uintptr_t i, pg;
	size_t hits = 0, misses = 0;

	t.fanout = fanout;
	for (i = 0; i < 300; i++)		/* 2 pages mapped, 1 hole */
		cr_assert_eq(maptable_map(&t, 3 * i * PG, (3 * i + 2) * PG, &a), 0);
	cr_assert_null(maptable_leaf_find(NULL, 0));
	n = maptable_next_leaf(&t, 450 * PG, &leaf);
	cr_assert_not_null(n);
	cr_assert_not_null(leaf);
	cr_assert_eq(n, maptable_next(&t, 450 * PG));
	for (pg = 0; pg < 900; pg++) {
		m = maptable_leaf_find(leaf, pg * PG);
		n = maptable_next(&t, pg * PG);
		if (m) {
			cr_assert_eq(m, n, "page %zu", (size_t)pg);
			cr_assert(m->start <= pg * PG && pg * PG < m->end);
			hits++;
		} else {
			/* Not in this leaf, or a hole. */
			cr_assert(!n || n->start > pg * PG ||
				  (maptable_next_leaf(&t, pg * PG, &other), other != leaf),
				  "page %zu", (size_t)pg);
			misses++;
		}
	}
	cr_assert_gt(hits, 0);
	cr_assert_gt(misses, 300);		/* at least the holes */
	/* Past the last range: no answer and no leaf. */
	cr_assert_null(maptable_next_leaf(&t, 900 * PG, &leaf));
	cr_assert_null(leaf);
	maptable_clear(&t);
	cr_assert_eq(a.refs, 0);
}

Test(maptable, finger_matches_descent)
{
	finger_matches_descent(0);
	finger_matches_descent(3);
	finger_matches_descent(5);
}

/*
 * The shim's DONTFORK records: bare ranges (no file, no callbacks) whose
 * every range is cut out of the file table in a fork child, splitting
 * the entries it covers only in part.
 */
Test(maptable, bare_ranges_cut_out_of_another_table)
{
	struct maptable t = table(), rec = { 0 };
	struct tfile a = { 0 }, b = { 0 };
	const struct map_node *n;
	uintptr_t pos = 0;

	maptable_map(&t, 10 * PG, 20 * PG, &a);
	maptable_map(&t, 30 * PG, 40 * PG, &b);
	cr_assert_eq(maptable_map(&rec, 12 * PG, 14 * PG, NULL), 0);
	cr_assert_eq(maptable_map(&rec, 25 * PG, 45 * PG, NULL), 0);
	cr_assert_eq(maptable_map(&rec, 13 * PG, 15 * PG, NULL), 0);
	cr_assert_eq(rec.count, 3);
	cr_assert_eq(maptable_check(&rec), 0);
	while ((n = maptable_next(&rec, pos))) {
		maptable_unmap(&t, n->start, n->end);
		pos = n->end;
	}
	cr_assert_eq(file_at(&t, 11 * PG), &a);
	cr_assert_null(file_at(&t, 12 * PG));
	cr_assert_null(file_at(&t, 14 * PG));
	cr_assert_eq(file_at(&t, 15 * PG), &a);
	cr_assert_null(file_at(&t, 30 * PG));
	cr_assert_eq(t.count, 2);
	cr_assert_eq(a.refs, 2);
	cr_assert_eq(b.refs, 0);
	cr_assert_eq(maptable_check(&t), 0);
	maptable_unmap(&rec, 0, 100 * PG);
	cr_assert_eq(rec.count, 0);
	maptable_clear(&rec);
	maptable_clear(&t);
	cr_assert_eq(a.refs, 0);
}

/*
 * A leaf's ranges, and a copy of the leaf that answers like it and that
 * later changes of the table leave alone (what a thread's view keeps).
 */
Test(maptable, leaf_ranges_and_copy)
{
	struct maptable t = table();
	struct tfile a = { 0 };
	const struct mt_node *leaf, *copy;
	const struct map_node *n, *r;
	static _Alignas(64) unsigned char buf[MAPTABLE_NODE_BYTES];
	unsigned int nr, i;
	uintptr_t pg;

	for (pg = 0; pg < 3 * MAPTABLE_LEAF_MAX; pg++)
		cr_assert_eq(maptable_map(&t, 2 * pg * PG, (2 * pg + 1) * PG, &a), 0);
	n = maptable_next_leaf(&t, 100 * PG, &leaf);
	cr_assert_not_null(n);
	r = maptable_leaf_ranges(leaf, &nr);
	cr_assert_gt(nr, 1);
	cr_assert_leq(nr, MAPTABLE_LEAF_MAX);
	cr_assert(n >= r && n < r + nr, "the hit is one of its leaf's ranges");
	for (i = 1; i < nr; i++)
		cr_assert_leq(r[i - 1].end, r[i].start, "in address order");
	copy = maptable_leaf_copy(buf, leaf);
	cr_assert_eq((const void *)copy, (const void *)buf);
	for (i = 0; i < nr; i++)
		cr_assert_eq(maptable_leaf_find(copy, r[i].start)->end, r[i].end);
	cr_assert_null(maptable_leaf_find(copy, r[0].end), "a gap");
	pg = r[1].start;
	/* The table changes; the copy does not. */
	maptable_unmap(&t, 0, 6 * MAPTABLE_LEAF_MAX * PG);
	cr_assert_eq(t.count, 0);
	cr_assert_not_null(maptable_leaf_find(copy, pg));
	r = maptable_leaf_ranges(copy, &i);
	cr_assert_eq(i, nr);
	cr_assert_eq(a.refs, 0);
	maptable_clear(&t);
}

/*
 * maptable_gap against a scan of the ranges, in trees of 1 to 4 levels
 * (fanout 3 and the real one), with holes punched so that the range
 * before an address often sits in another leaf or subtree.
 */
static void gap_against_scan(unsigned int fanout)
{
	enum { NR = 3000 };
	static uintptr_t rs[NR], re[NR];
	struct maptable t = table();
	struct tfile f = { 0 };
	uintptr_t lo, hi, a, want_lo, want_hi;
	unsigned int i, k, nr = 0, trial;
	bool inside;

	t.fanout = fanout;
	srand(fanout * 7 + 1);
	cr_assert_eq(maptable_gap(&t, 5 * PG, &lo, &hi), 1);
	cr_assert(lo == 0 && hi == UINTPTR_MAX);
	for (i = 0, a = 16 * PG; i < NR; i++) {
		a += (rand() % 4) * PG;		/* adjacent ranges too */
		rs[i] = a;
		a += (1 + rand() % 3) * PG;
		re[i] = a;
		cr_assert_eq(maptable_map(&t, rs[i], re[i], &f), 0);
	}
	/* Drop every third range, in the table and in the list. */
	for (i = 0; i < NR; i++) {
		if (i % 3 == 1) {
			maptable_unmap(&t, rs[i], re[i]);
			continue;
		}
		rs[nr] = rs[i];
		re[nr++] = re[i];
	}
	cr_assert_eq(maptable_check(&t), 0);
	for (trial = 0; trial < 20000; trial++) {
		a = rand() % (re[nr - 1] + 8 * PG);
		want_lo = 0;
		want_hi = UINTPTR_MAX;
		inside = false;
		for (k = 0; k < nr; k++) {
			if (re[k] <= a) {
				want_lo = re[k];
			} else {
				inside = rs[k] <= a;
				want_hi = rs[k];
				break;
			}
		}
		if (inside) {
			cr_assert_eq(maptable_gap(&t, a, &lo, &hi), 0,
				     "%#lx is in a range", (unsigned long)a);
			continue;
		}
		cr_assert_eq(maptable_gap(&t, a, &lo, &hi), 1);
		cr_assert(lo == want_lo && hi == want_hi,
			  "gap at %#lx: [%#lx, %#lx), want [%#lx, %#lx)",
			  (unsigned long)a, (unsigned long)lo, (unsigned long)hi,
			  (unsigned long)want_lo, (unsigned long)want_hi);
	}
	cr_assert(maptable_height(&t) >= (fanout ? 4 : 2));
	maptable_clear(&t);
	cr_assert_eq(f.refs, 0);
}

Test(maptable, gap_small_nodes)
{
	gap_against_scan(3);
}

Test(maptable, gap_real_nodes)
{
	gap_against_scan(0);
}
