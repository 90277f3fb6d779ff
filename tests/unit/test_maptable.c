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

/* 100k live ranges stay balanced (height ~ 1.44 log2 n) and findable. */
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
	cr_assert_leq(t.root->height, 25);
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

Test(maptable, random_against_model)
{
	struct maptable t = table();
	struct tfile files[4] = { { 0 } };
	void *model[MODEL_PAGES] = { NULL };
	void *moved[MODEL_PAGES];
	unsigned int seed = 12345;
	size_t a, len, b, nlen, p;
	int step, op;

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
