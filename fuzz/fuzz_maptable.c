// SPDX-License-Identifier: MIT
/*
 * fuzz_maptable.c - the shim's mapping table against a reference model.
 *
 * The input is a program: one byte picks the address space (low, or at
 * the top of the address space to catch end-of-range overflows) and the
 * tree's fanout (the default, or 3..8 slots so that a few ranges already
 * split and merge nodes), then
 * 5-byte operations map / unmap / mremap / advise-walk / overlaps / clear
 * on a fake address space of NR_PAGES pages.  The model is one file id
 * per page.  After every operation the table
 * must be a valid tree (maptable_check), say for every page exactly what the model says, walk
 * an advise range in the same pieces the shim's advise_range() sees, and
 * hold exactly one file reference per range (get/put callbacks).
 * Nodes come from fuzz/slab_checked.c, so ASan/LSan see every node.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shim/maptable.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define PAGE		4096UL
#define NR_PAGES	48
#define NR_FILES	6

struct fake_file {
	int id;
	long refs;
};

static struct fake_file files[NR_FILES + 1];
static unsigned char model[NR_PAGES];	/* file id, 0: unknown */
static uintptr_t base;

static void fail(const char *what, int page)
{
	fprintf(stderr, "fuzz_maptable: %s (page %d)\n", what, page);
	abort();
}

static void file_get(void *f)
{
	((struct fake_file *)f)->refs++;
}

static void file_put(void *f)
{
	if (--((struct fake_file *)f)->refs < 0)
		fail("file reference count went negative",
		     ((struct fake_file *)f)->id);
}

static uintptr_t addr(unsigned int pg)
{
	return base + (uintptr_t)pg * PAGE;
}

static int file_id(const struct map_node *n)
{
	return n ? ((struct fake_file *)n->file)->id : 0;
}

/* What the table says about page @pg: the file id, or 0. */
static int lookup(const struct maptable *t, unsigned int pg)
{
	const struct map_node *n = maptable_next(t, addr(pg));

	if (n && n->end <= addr(pg))
		fail("maptable_next returned a range ending before addr", pg);
	return n && n->start <= addr(pg) ? file_id(n) : 0;
}

static void verify(const struct maptable *t)
{
	long refs[NR_FILES + 1] = { 0 };
	const struct map_node *n;
	size_t count = 0;
	uintptr_t pos = base;

	if (maptable_check(t))
		fail("maptable_check: tree broken", -1);
	for (unsigned int pg = 0; pg < NR_PAGES; pg++)
		if (lookup(t, pg) != model[pg])
			fail("table and model disagree", (int)pg);
	/* Every range once, in order; one reference each. */
	while ((n = maptable_next(t, pos)) != NULL) {
		if (n->start < pos || n->start >= n->end)
			fail("ranges out of order or empty", -1);
		if (n->start < base || n->end > addr(NR_PAGES))
			fail("range outside the space that was mapped", -1);
		if ((n->start | n->end) & (PAGE - 1))
			fail("range not page aligned", -1);
		refs[file_id(n)]++;
		count++;
		pos = n->end;
	}
	if (count != t->count)
		fail("count does not match the ranges", (int)count);
	for (int f = 1; f <= NR_FILES; f++)
		if (refs[f] != files[f].refs)
			fail("file references do not match ranges", f);
}

/* The pieces advise_range() would see for [s, e), checked page by page. */
static void walk(const struct maptable *t, unsigned int s, unsigned int e)
{
	uintptr_t pos = addr(s), end = addr(e);

	while (pos < end) {
		const struct map_node *n = maptable_next(t, pos);
		uintptr_t pe;
		int id;

		if (n && n->start <= pos) {
			pe = n->end < end ? n->end : end;
			id = file_id(n);
		} else {
			pe = n && n->start < end ? n->start : end;
			id = 0;
		}
		if (pe <= pos)
			fail("walk does not advance", -1);
		for (uintptr_t a = pos; a < pe; a += PAGE)
			if (model[(a - base) / PAGE] != id)
				fail("advise piece has the wrong file",
				     (int)((a - base) / PAGE));
		pos = pe;
	}
}

static void set(unsigned int s, unsigned int len, unsigned char id)
{
	memset(model + s, id, len);
}

static void op_map(struct maptable *t, const uint8_t *o)
{
	unsigned int s = o[1] % NR_PAGES;
	unsigned int len = 1 + o[2] % (NR_PAGES - s);
	unsigned char id = 1 + o[3] % NR_FILES;

	if (maptable_map(t, addr(s), addr(s + len), &files[id])) {
		if (errno != ENOMEM)
			fail("maptable_map failed without ENOMEM", (int)s);
		id = 0;		/* contract: the range is then unknown */
	}
	set(s, len, id);
}

static void op_unmap(struct maptable *t, const uint8_t *o)
{
	unsigned int s = o[1] % NR_PAGES;
	unsigned int len = 1 + o[2] % (NR_PAGES - s);

	maptable_unmap(t, addr(s), addr(s + len));
	set(s, len, 0);
}

static void op_remap(struct maptable *t, const uint8_t *o)
{
	unsigned int old = o[1] % NR_PAGES;
	unsigned int old_len = o[2] % (NR_PAGES - old + 1);	/* 0: dup */
	unsigned int new = o[3] % NR_PAGES;
	unsigned int new_len = 1 + o[4] % (NR_PAGES - new);
	unsigned char id = model[old];
	int r;

	r = maptable_remap(t, addr(old), old_len * PAGE, addr(new),
			   new_len * PAGE);
	if (!id) {
		if (r != 1)
			fail("remap of an unknown range did not return 1",
			     (int)old);
		return;
	}
	if (r == 1)
		fail("remap of a known range returned 1", (int)old);
	set(old, old_len, 0);
	set(new, new_len, r == 0 ? id : 0);
}

static void op_query(struct maptable *t, const uint8_t *o, int overlaps)
{
	unsigned int s = o[1] % NR_PAGES;
	unsigned int len = 1 + o[2] % (NR_PAGES - s);
	int any = 0;

	if (!overlaps) {
		walk(t, s, s + len);
		return;
	}
	for (unsigned int pg = s; pg < s + len; pg++)
		any |= model[pg] != 0;
	if (!maptable_overlaps(t, addr(s), addr(s + len)) != !any)
		fail("maptable_overlaps disagrees with the model", (int)s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct maptable t = { .file_get = file_get, .file_put = file_put };

	if (size < 1)
		return 0;
	t.fanout = (data[0] & 2) ? 3 + (unsigned int)(data[0] >> 2) % 6 : 0;
	base = (data[0] & 1) ?
	       (UINTPTR_MAX - (NR_PAGES + 1) * PAGE + 1) & ~(PAGE - 1) :
	       (uintptr_t)0x7f0000000000;
	memset(model, 0, sizeof(model));
	for (int f = 0; f <= NR_FILES; f++)
		files[f] = (struct fake_file){ .id = f };
	for (size_t i = 1; i + 5 <= size; i += 5) {
		const uint8_t *o = data + i;

		switch (o[0] % 8) {
		case 0: case 1: op_map(&t, o); break;
		case 2: op_unmap(&t, o); break;
		case 3: case 4: op_remap(&t, o); break;
		case 5: op_query(&t, o, 0); break;
		case 6: op_query(&t, o, 1); break;
		case 7:
			if (o[1] == 0xff) {
				maptable_clear(&t);
				memset(model, 0, sizeof(model));
			} else {
				op_query(&t, o, 0);
			}
			break;
		}
		/* The full check is O(pages log n): every 4th op and at the end
		 * (a wrong table stays wrong until overwritten, and the
		 * corpus keeps inputs of every length). */
		if ((i / 5) % 4 == 3)
			verify(&t);
		else if (maptable_check(&t))
			fail("maptable_check: tree broken", -1);
	}
	verify(&t);
	maptable_clear(&t);
	for (int f = 1; f <= NR_FILES; f++)
		if (files[f].refs)
			fail("references left after maptable_clear", f);
	return 0;
}
