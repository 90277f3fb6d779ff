// SPDX-License-Identifier: MIT
/*
 * test_shim_mapping.c - mapping.c keeps the table in step with the
 * kernel: mmap of files (and anonymous MAP_FIXED over them), munmap of
 * parts, and mremap: grow, shrink, move, MREMAP_FIXED, MREMAP_DONTUNMAP,
 * old_len 0, a failing call, and a range the table does not know.
 * After each, the table says which file is where, the file entry counts
 * its ranges, and advice on the new place is decided from the table (no
 * kernel-view lookup) with the file's rule.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "shim/view.h"
#include "tests/unit/shim_unit.h"

TestSuite(mapping, .init = unit_init, .fini = unit_fini);

/* Advise [p, p + pages) RANDOM; the table must know it: no fallback. */
static void advised_from_table(char *p, long pages, int want_rr)
{
	uint64_t fb = STAT(fallbacks);
	long i;

	cr_assert_eq(posix_madvise(p, pages * PG, POSIX_MADV_RANDOM), 0);
	for (i = 0; i < pages; i++)
		cr_assert_eq(rr_at(p + i * PG), want_rr, "page %ld", i);
	cr_assert_eq(STAT(fallbacks), fb, "the range was not in the table");
}

Test(mapping, mmap_records_and_munmap_forgets)
{
	int fd = unit_file("rw-a", 8, NULL);
	uint64_t total = STAT(file_maps_total);
	char *p = unit_map(NULL, fd, 8, 0);
	struct shim_file *f = table_file_at(p);
	struct map_node n;

	cr_assert_not_null(f);
	cr_assert_str_eq(f->rule->name, "other");
	cr_assert_eq(f->refs, 1);
	cr_assert_eq(STAT(file_maps_total), total + 1);
	cr_assert(table_range_at(p, &n));
	cr_assert_eq(n.start, (uintptr_t)p);
	cr_assert_eq(n.end, (uintptr_t)p + 8 * PG);
	/* A hole punched in the middle splits the range in two. */
	cr_assert_eq(munmap(p + 3 * PG, 2 * PG), 0);
	cr_assert_null(table_file_at(p + 3 * PG));
	cr_assert_null(table_file_at(p + 4 * PG));
	cr_assert_eq(table_file_at(p + 5 * PG), f);
	cr_assert_eq(f->refs, 2);
	cr_assert_eq(munmap(p, 8 * PG), 0);
	cr_assert_null(table_file_at(p));
	cr_assert_null(table_file_at(p + 7 * PG));
	cr_assert_eq(f->refs, 0);
}

Test(mapping, anonymous_map_fixed_replaces_a_file_range)
{
	int fd = unit_file("rw-a", 4, NULL);
	char *p = unit_map(NULL, fd, 4, 0);

	cr_assert_neq(mmap(p + PG, PG, PROT_READ,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0), MAP_FAILED);
	cr_assert_not_null(table_file_at(p));
	cr_assert_null(table_file_at(p + PG));
	cr_assert_not_null(table_file_at(p + 2 * PG));
	/* The anonymous page keeps RANDOM, the file pages do not get it. */
	cr_assert_eq(posix_madvise(p, 4 * PG, POSIX_MADV_RANDOM), 0);
	cr_assert_eq(rr_at(p), 0);
	cr_assert_eq(rr_at(p + PG), 1);
	cr_assert_eq(rr_at(p + 2 * PG), 0);
}

Test(mapping, map_fixed_file_over_another_file)
{
	char *p = unit_map(NULL, unit_file("rw-a", 4, NULL), 4, 0);
	struct shim_file *a = table_file_at(p);

	unit_map(p + PG, unit_file("keep-b", 2, NULL), 2, 0);
	cr_assert_eq(table_file_at(p), a);
	cr_assert_str_eq(table_file_at(p + PG)->rule->name, "keep");
	cr_assert_eq(table_file_at(p + 3 * PG), a);
	cr_assert_eq(a->refs, 2);
	advised_from_table(p + PG, 2, 1);
	advised_from_table(p + 3 * PG, 1, 0);
}

Test(mapping, mremap_grow)
{
	int fd = unit_file("rw-a", 16, NULL);
	char *p = unit_map(NULL, fd, 4, 0);
	struct shim_file *f = table_file_at(p);
	char *q = mremap(p, 4 * PG, 12 * PG, MREMAP_MAYMOVE);
	struct map_node n;

	cr_assert_neq(q, MAP_FAILED);
	cr_assert(table_range_at(q, &n));
	cr_assert_eq(n.start, (uintptr_t)q);
	cr_assert_eq(n.end, (uintptr_t)q + 12 * PG);
	cr_assert_eq(node_file(&n), f);
	cr_assert_eq(f->refs, 1);
	if (q != p)
		cr_assert_null(table_file_at(p));
	advised_from_table(q, 12, 0);
}

Test(mapping, mremap_shrink)
{
	int fd = unit_file("keep-a", 8, NULL);
	char *p = unit_map(NULL, fd, 8, 0);
	struct map_node n;

	cr_assert_eq(mremap(p, 8 * PG, 3 * PG, 0), p);
	cr_assert(table_range_at(p, &n));
	cr_assert_eq(n.end, (uintptr_t)p + 3 * PG);
	cr_assert_null(table_file_at(p + 3 * PG));
	cr_assert_eq(node_file(&n)->refs, 1);
	advised_from_table(p, 3, 1);
}

Test(mapping, mremap_fixed_moves)
{
	int fd = unit_file("rw-a", 6, NULL);
	char *p = unit_map(NULL, fd, 4, 0);
	char *to = unit_reserve(6);
	struct shim_file *f = table_file_at(p);
	char *q = mremap(p, 4 * PG, 6 * PG, MREMAP_MAYMOVE | MREMAP_FIXED, to);

	cr_assert_eq(q, to);
	cr_assert_null(table_file_at(p));
	cr_assert_eq(table_file_at(q), f);
	cr_assert_eq(table_file_at(q + 5 * PG), f);
	cr_assert_eq(f->refs, 1);
	advised_from_table(q, 4, 0);
}

Test(mapping, mremap_dontunmap_keeps_the_old_range)
{
	int fd = unit_file("rw-a", 4, NULL);
	char *p = unit_map(NULL, fd, 4, 0);
	struct shim_file *f = table_file_at(p);
	char *q = mremap(p, 4 * PG, 4 * PG, MREMAP_MAYMOVE | MREMAP_DONTUNMAP);

	if (q == MAP_FAILED && errno == EINVAL)
		cr_skip_test("MREMAP_DONTUNMAP on a shared file mapping needs Linux 5.13");
	cr_assert_neq(q, MAP_FAILED);
	cr_assert_neq(q, p);
	cr_assert_eq(table_file_at(p), f);
	cr_assert_eq(table_file_at(q), f);
	cr_assert_eq(f->refs, 2);
	advised_from_table(q, 4, 0);
	advised_from_table(p, 4, 0);
}

Test(mapping, mremap_old_len_zero_duplicates)
{
	int fd = unit_file("keep-a", 4, NULL);
	char *p = unit_map(NULL, fd, 4, 0);
	struct shim_file *f = table_file_at(p);
	char *q = mremap(p, 0, 2 * PG, MREMAP_MAYMOVE);
	struct map_node n;

	cr_assert_neq(q, MAP_FAILED, "mremap: %s", strerror(errno));
	cr_assert(table_range_at(p, &n));
	cr_assert_eq(n.end, (uintptr_t)p + 4 * PG, "the old range is whole");
	cr_assert(table_range_at(q, &n));
	cr_assert_eq(node_file(&n), f);
	cr_assert_eq(n.start, (uintptr_t)q);
	cr_assert_eq(n.end, (uintptr_t)q + 2 * PG);
	cr_assert_eq(f->refs, 2);
	advised_from_table(q, 2, 1);
}

Test(mapping, mremap_failure_restores_the_range)
{
	int fd = unit_file("rw-a", 5, NULL);
	char *p = unit_map(unit_reserve(5), fd, 4, 0);
	struct shim_file *f = table_file_at(p);

	/* Growing in place into the reserved page, without MAYMOVE. */
	errno = 0;
	cr_assert_eq(mremap(p, 4 * PG, 5 * PG, 0), MAP_FAILED);
	cr_assert_eq(errno, ENOMEM);
	cr_assert_eq(table_file_at(p), f);
	cr_assert_eq(table_file_at(p + 3 * PG), f);
	cr_assert_eq(f->refs, 1);
	/* Invalid: new length 0. */
	cr_assert_eq(mremap(p, 4 * PG, 0, MREMAP_MAYMOVE), MAP_FAILED);
	cr_assert_eq(errno, EINVAL);
	cr_assert_eq(table_file_at(p), f);
	advised_from_table(p, 4, 0);
}

/* An anonymous mapping moved over a file range: the file range is gone. */
Test(mapping, mremap_unknown_range_over_a_file)
{
	int fd = unit_file("keep-a", 4, NULL);
	char *p = unit_map(NULL, fd, 4, 0);
	char *anon = mmap(NULL, 2 * PG, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS,
			  -1, 0);

	cr_assert_neq(anon, MAP_FAILED);
	cr_assert_eq(mremap(anon, 2 * PG, 2 * PG, MREMAP_MAYMOVE | MREMAP_FIXED,
			    p + PG), p + PG);
	cr_assert_not_null(table_file_at(p));
	cr_assert_null(table_file_at(p + PG));
	cr_assert_null(table_file_at(p + 2 * PG));
	cr_assert_not_null(table_file_at(p + 3 * PG));
	/* RANDOM on the anonymous part stays RANDOM (not the file's rule). */
	cr_assert_eq(posix_madvise(p + PG, 2 * PG, POSIX_MADV_RANDOM), 0);
	cr_assert_eq(rr_at(p + PG), 1);
}

/* Mapping and unmapping raise no error and never leave stale ranges. */
Test(mapping, table_size_follows)
{
	int fd = unit_file("rw-a", 1, NULL);
	size_t live = table_nr();
	char *p[16];
	int i;

	for (i = 0; i < 16; i++)
		p[i] = unit_map(NULL, fd, 1, 0);
	cr_assert_eq(table_nr(), live + 16);
	cr_assert_eq(STAT(file_maps_live), live + 16);
	for (i = 0; i < 16; i++)
		cr_assert_eq(munmap(p[i], PG), 0);
	cr_assert_eq(table_nr(), live);
	cr_assert_eq(STAT(errors), 0);
}

/*
 * munmap and an anonymous MAP_FIXED skip the lock where this thread last
 * found no range (view_unknown): a file mapped into that stretch
 * afterwards must still leave the table when unmapped or overlaid.
 */
Test(mapping, munmap_in_a_stretch_learnt_free)
{
	int fd = unit_file("rw-a", 4, NULL);
	char *keep = unit_map(NULL, fd, 1, 0);
	char *p = mmap(NULL, 8 * PG, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	size_t live;

	cr_assert_neq(p, MAP_FAILED);
	cr_assert_not_null(table_file_at(keep));
	/* Learnt: no range in p's stretch; the second call skips the lock. */
	cr_assert_eq(munmap(p + 6 * PG, PG), 0);
	cr_assert(shim_view.gap_start <= (uintptr_t)p + 6 * PG &&
		  (uintptr_t)p + 7 * PG <= shim_view.gap_end);
	cr_assert_eq(munmap(p + 7 * PG, PG), 0);
	live = table_nr();
	unit_map(p, fd, 4, 0);
	cr_assert_not_null(table_file_at(p));
	cr_assert_eq(table_nr(), live + 1);
	cr_assert_eq(munmap(p, 2 * PG), 0);
	cr_assert_null(table_file_at(p));
	cr_assert_null(table_file_at(p + PG));
	cr_assert_not_null(table_file_at(p + 2 * PG));
	cr_assert_neq(mmap(p + 2 * PG, 2 * PG, PROT_READ,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0), MAP_FAILED);
	cr_assert_null(table_file_at(p + 2 * PG));
	cr_assert_null(table_file_at(p + 3 * PG));
	cr_assert_eq(table_nr(), live);
	cr_assert_not_null(table_file_at(keep));
	cr_assert_eq(munmap(p, 6 * PG), 0);
}
