// SPDX-License-Identifier: MIT
/*
 * test_shim_advise.c - advise.c's range cutting, through the shim's real
 * madvise and posix_madvise: a range over part of a mapping, over several
 * mappings with different rules, over anonymous memory, holes and
 * mappings the table never saw; error contracts; the per-thread view that
 * decides known ranges without the lock (view.c).  The kernel's VmFlags
 * say what was really issued.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "shim/view.h"
#include "tests/unit/shim_unit.h"

TestSuite(advise, .init = unit_init, .fini = unit_fini);

/* rr on pages [0, n) of @p as a string of 0/1, e.g. "0011110". */
static const char *rr_map(const char *p, int n)
{
	static char s[64];
	int i;

	for (i = 0; i < n && i < 63; i++)
		s[i] = (char)('0' + rr_at(p + i * PG));
	s[i] = '\0';
	return s;
}

Test(advise, part_of_one_mapping_rewritten)
{
	int fd = unit_file("data", 8, NULL);
	char *p = unit_map(NULL, fd, 8, 0);
	uint64_t rw = STAT(rewritten);

	cr_assert_eq(posix_madvise(p + 2 * PG, 4 * PG, POSIX_MADV_RANDOM), 0);
	cr_assert_str_eq(rr_map(p, 8), "00000000");
	cr_assert_eq(STAT(rewritten), rw + 1);
}

Test(advise, part_of_one_mapping_kept_exactly)
{
	int fd = unit_file("keep-data", 8, NULL);
	char *p = unit_map(NULL, fd, 8, 0);
	uint64_t kept = STAT(kept);

	/* Not a whole number of pages: the kernel rounds, as without us. */
	cr_assert_eq(posix_madvise(p + 2 * PG, 3 * PG + 1, POSIX_MADV_RANDOM), 0);
	cr_assert_str_eq(rr_map(p, 8), "00111100");
	cr_assert_eq(STAT(kept), kept + 1);
}

/* keep | rewrite | skip side by side, advised as one range. */
static char *three_files(void)
{
	char *p = unit_reserve(12);

	unit_map(p, unit_file("keep-a", 4, NULL), 4, 0);
	unit_map(p + 4 * PG, unit_file("rw-b", 4, NULL), 4, 0);
	unit_map(p + 8 * PG, unit_file("skip-c", 4, NULL), 4, 0);
	return p;
}

Test(advise, several_mappings_each_its_rule)
{
	char *p = three_files();
	uint64_t kept = STAT(kept), rw = STAT(rewritten), sk = STAT(skipped);

	cr_assert_eq(madvise(p, 12 * PG, MADV_RANDOM), 0);
	cr_assert_str_eq(rr_map(p, 12), "111100000000");
	cr_assert_eq(STAT(kept), kept + 1);
	cr_assert_eq(STAT(rewritten), rw + 1);
	cr_assert_eq(STAT(skipped), sk + 1);
}

Test(advise, several_mappings_sequential)
{
	char *p = unit_reserve(8);

	unit_map(p, unit_file("seq-a", 4, NULL), 4, 0);
	unit_map(p + 4 * PG, unit_file("keep-b", 4, NULL), 4, 0);
	cr_assert_eq(posix_madvise(p, 8 * PG, POSIX_MADV_SEQUENTIAL), 0);
	cr_assert_eq(sr_at(p), 0);		/* seq- rewrites to normal */
	cr_assert_eq(sr_at(p + 4 * PG), 1);	/* keep- keeps SEQUENTIAL */
}

Test(advise, range_starting_inside_a_mapping)
{
	char *p = three_files();

	/* From the middle of keep-a into the middle of rw-b. */
	cr_assert_eq(posix_madvise(p + 2 * PG, 4 * PG, POSIX_MADV_RANDOM), 0);
	cr_assert_str_eq(rr_map(p, 12), "001100000000");
}

/* file | anonymous | file: the anonymous part keeps the caller's advice. */
Test(advise, anonymous_piece_keeps_the_advice)
{
	char *p = unit_reserve(10);

	unit_map(p, unit_file("rw-a", 4, NULL), 4, 0);
	cr_assert_neq(mmap(p + 4 * PG, 2 * PG, PROT_READ,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0), MAP_FAILED);
	unit_map(p + 6 * PG, unit_file("rw-b", 4, NULL), 4, 0);
	cr_assert_eq(posix_madvise(p, 10 * PG, POSIX_MADV_RANDOM), 0);
	cr_assert_str_eq(rr_map(p, 10), "0000110000");
}

/* A hole: ENOMEM as from the kernel, and the pieces after it still done. */
Test(advise, hole_gives_enomem_and_the_rest_is_done)
{
	char *p = unit_reserve(9);
	char *q = unit_reserve(9);
	int kfd = unit_file("keep-a", 4, NULL);

	unit_map(p, unit_file("rw-a", 4, NULL), 4, 0);
	cr_assert_eq(munmap(p + 4 * PG, PG), 0);
	unit_map(p + 5 * PG, kfd, 4, 0);
	errno = 777;
	cr_assert_eq(posix_madvise(p, 9 * PG, POSIX_MADV_RANDOM), ENOMEM);
	cr_assert_eq(errno, 777, "posix_madvise changed errno");
	cr_assert_str_eq(rr_map(p, 9), "000001111");
	/* The kernel itself, on the same layout: the same verdict. */
	unit_map(q, unit_file("keep-b", 4, NULL), 4, 0);
	cr_assert_eq(munmap(q + 4 * PG, PG), 0);
	unit_map(q + 5 * PG, kfd, 4, 0);
	cr_assert_eq(syscall(SYS_madvise, q, 9 * PG, MADV_RANDOM), -1);
	cr_assert_eq(errno, ENOMEM);
	cr_assert_str_eq(rr_map(q, 9), "111101111");
	errno = 0;
	cr_assert_eq(madvise(p, 9 * PG, MADV_RANDOM), -1);
	cr_assert_eq(errno, ENOMEM);
}

/* After a hole, a piece issued with other advice is still issued. */
Test(advise, hole_then_a_rewrite)
{
	char *p = unit_reserve(9);

	unit_map(p, unit_file("keep-a", 4, NULL), 4, 0);
	cr_assert_eq(munmap(p + 4 * PG, PG), 0);
	unit_map(p + 5 * PG, unit_file("rw-b", 4, NULL), 4, 0);
	/* rr set behind the shim's back: the NORMAL the shim issues clears it. */
	cr_assert_eq(syscall(SYS_madvise, p + 5 * PG, 4 * PG, MADV_RANDOM), 0);
	cr_assert_str_eq(rr_map(p, 9), "000001111");
	cr_assert_eq(madvise(p, 9 * PG, MADV_RANDOM), -1);
	cr_assert_eq(errno, ENOMEM);
	cr_assert_str_eq(rr_map(p, 9), "111100000");
}

Test(advise, whole_range_unmapped)
{
	char *p = unit_reserve(4);

	cr_assert_eq(munmap(p, 4 * PG), 0);
	cr_assert_eq(posix_madvise(p, 4 * PG, POSIX_MADV_RANDOM), ENOMEM);
}

/* Mapped behind the shim's back: the kernel's view names the file. */
Test(advise, unknown_mapping_resolved_by_the_kernel_view)
{
	int fd = unit_file("rw-raw", 4, NULL);
	char *p = (char *)syscall(SYS_mmap, NULL, 4 * PG, PROT_READ, MAP_SHARED,
				  fd, 0);
	uint64_t fb = STAT(fallbacks), rw = STAT(rewritten);
	struct stat st;

	cr_assert_neq(p, MAP_FAILED);
	cr_assert_null(table_file_at(p));
	cr_assert_eq(posix_madvise(p, 4 * PG, POSIX_MADV_RANDOM), 0);
	cr_assert_eq(rr_map(p, 4)[0], '0');
	cr_assert_eq(STAT(fallbacks), fb + 1);
	cr_assert_eq(STAT(rewritten), rw + 1);
	/* The file is cached now; the range is still not in the table. */
	cr_assert_eq(fstat(fd, &st), 0);
	shim_rdlock();
	cr_assert_not_null(files_find(st.st_dev, st.st_ino));
	shim_unlock();
	cr_assert_null(table_file_at(p));
	cr_assert_eq(posix_madvise(p, 4 * PG, POSIX_MADV_RANDOM), 0);
	cr_assert_eq(STAT(fallbacks), fb + 2);
}

Test(advise, unknown_mapping_of_a_keep_file)
{
	int fd = unit_file("keep-raw", 4, NULL);
	char *p = (char *)syscall(SYS_mmap, NULL, 4 * PG, PROT_READ, MAP_SHARED,
				  fd, 0);

	cr_assert_eq(posix_madvise(p, 4 * PG, POSIX_MADV_RANDOM), 0);
	cr_assert_str_eq(rr_map(p, 4), "1111");
}

Test(advise, error_contracts)
{
	int fd = unit_file("rw-a", 4, NULL);
	char *p = unit_map(NULL, fd, 4, 0);
	uint64_t calls = STAT(calls[ADV_FAMILY_MADVISE][ADV_RANDOM]);

	/* Unaligned: what the kernel refuses goes to it as it came. */
	errno = 777;
	cr_assert_eq(posix_madvise(p + 1, PG, POSIX_MADV_RANDOM), EINVAL);
	cr_assert_eq(errno, 777);
	cr_assert_eq(madvise(p + 1, PG, MADV_RANDOM), -1);
	cr_assert_eq(errno, EINVAL);
	/* Length 0 succeeds, as in the kernel. */
	cr_assert_eq(madvise(p, 0, MADV_RANDOM), 0);
	cr_assert_eq(STAT(calls[ADV_FAMILY_MADVISE][ADV_RANDOM]), calls + 3);
}

Test(advise, advice_no_rule_acts_on_is_passed_and_counted)
{
	int fd = unit_file("keep-a", 4, NULL);
	char *p = unit_map(NULL, fd, 4, 0);
	uint64_t passed = STAT(passed[ADV_FAMILY_MADVISE][ADV_WILLNEED]);
	uint64_t calls = STAT(calls[ADV_FAMILY_MADVISE][ADV_WILLNEED]);

	cr_assert_eq(posix_madvise(p, 4 * PG, POSIX_MADV_WILLNEED), 0);
	cr_assert_eq(madvise(p, 4 * PG, MADV_WILLNEED), 0);
	cr_assert_eq(STAT(passed[ADV_FAMILY_MADVISE][ADV_WILLNEED]), passed + 2);
	cr_assert_eq(STAT(calls[ADV_FAMILY_MADVISE][ADV_WILLNEED]), calls);
}

/*
 * The view: a second lookup in the same leaf learns an extent; calls
 * inside it are then decided without the lock (advise_known), until the
 * table changes.
 */
Test(advise, view_learns_known_ranges)
{
	/*
	 * A ninth page stays reserved: what the kernel maps right above
	 * could be a file of the same rule (criterion's arena), which would
	 * join the extent.
	 */
	char *p = unit_reserve(9);
	int kind = ADV_RANDOM;
	uint64_t rw;

	unit_map(p, unit_file("rw-a", 4, NULL), 4, 0);
	unit_map(p + 4 * PG, unit_file("rw-b", 4, NULL), 4, 0);
	cr_assert_eq(advise_known(p, PG, MADV_RANDOM, kind), ADV_UNKNOWN);
	cr_assert_eq(posix_madvise(p, PG, POSIX_MADV_RANDOM), 0);
	cr_assert_eq(posix_madvise(p + PG, PG, POSIX_MADV_RANDOM), 0);
	/* Both files have the same rule: one extent over both mappings. */
	rw = STAT(rewritten);
	cr_assert_eq(advise_known(p + 5 * PG, 3 * PG, MADV_RANDOM, kind),
		     MADV_NORMAL);
	cr_assert_eq(STAT(rewritten), rw + 1);
	cr_assert_eq(advise_known(p, 8 * PG, MADV_SEQUENTIAL, ADV_SEQUENTIAL),
		     MADV_SEQUENTIAL);
	/* Past the extent: the locked walk. */
	cr_assert_eq(advise_known(p, 9 * PG, MADV_RANDOM, kind), ADV_UNKNOWN);
	/* Any table change makes the view stale. */
	cr_assert_eq(munmap(p + 7 * PG, PG), 0);
	cr_assert_eq(advise_known(p, PG, MADV_RANDOM, kind), ADV_UNKNOWN);
	cr_assert_eq(posix_madvise(p, 7 * PG, POSIX_MADV_RANDOM), 0);
	cr_assert_str_eq(rr_map(p, 7), "0000000");
}

Test(advise, view_keeps_rules_apart)
{
	char *p = three_files();

	cr_assert_eq(madvise(p, PG, MADV_RANDOM), 0);
	cr_assert_eq(madvise(p + PG, PG, MADV_RANDOM), 0);
	/* keep-a is its own extent: rw-b next to it decides otherwise. */
	cr_assert_eq(advise_known(p, 4 * PG, MADV_RANDOM, ADV_RANDOM), MADV_RANDOM);
	cr_assert_eq(advise_known(p, 5 * PG, MADV_RANDOM, ADV_RANDOM), ADV_UNKNOWN);
	cr_assert_eq(madvise(p + 8 * PG, PG, MADV_RANDOM), 0);
	cr_assert_eq(advise_known(p + 8 * PG, 4 * PG, MADV_RANDOM, ADV_RANDOM),
		     ADV_SKIP);
	/* Through the interposer: a skip issues nothing and succeeds. */
	cr_assert_eq(madvise(p + 9 * PG, 3 * PG, MADV_RANDOM), 0);
	cr_assert_str_eq(rr_map(p, 12), "110000000000");
}

/* A first rewrite still to be logged is not decided without the lock. */
Test(advise, view_leaves_the_first_rewrite_to_the_log)
{
	int fd = unit_file("rw-a", 4, NULL);
	char *p = unit_map(NULL, fd, 4, 0);
	struct shim_file *f = table_file_at(p);
	int level = shim.log_level;

	cr_assert_not_null(f);
	shim.log_level = POLICY_LOG_INFO;	/* this test process only */
	/* SEQUENTIAL: examined (other rules act on it), kept for this file. */
	cr_assert_eq(madvise(p, PG, MADV_SEQUENTIAL), 0);
	cr_assert_eq(madvise(p, PG, MADV_SEQUENTIAL), 0);	/* learnt, loud */
	cr_assert_eq(advise_known(p, PG, MADV_SEQUENTIAL, ADV_SEQUENTIAL),
		     MADV_SEQUENTIAL);
	cr_assert_eq(advise_known(p, PG, MADV_RANDOM, ADV_RANDOM), ADV_UNKNOWN);
	cr_assert_eq(__atomic_load_n(&f->logged, __ATOMIC_RELAXED), 0);
	cr_assert_eq(madvise(p, PG, MADV_RANDOM), 0);	/* logs, relearns */
	cr_assert_eq(__atomic_load_n(&f->logged, __ATOMIC_RELAXED), 1);
	cr_assert_eq(advise_known(p, PG, MADV_RANDOM, ADV_RANDOM), MADV_NORMAL);
	shim.log_level = POLICY_LOG_DEBUG;	/* every call logged: locked */
	cr_assert_eq(advise_known(p, PG, MADV_RANDOM, ADV_RANDOM), ADV_UNKNOWN);
	shim.log_level = level;
}
