// SPDX-License-Identifier: MIT
/*
 * test_shim_dontfork.c - dontfork.c: MADV_DONTFORK over known file ranges
 * is recorded, MADV_DOFORK, munmap, a new mapping and mremap keep the
 * records in step, and a fork child's table loses exactly the recorded
 * ranges (all of it when a record was lost).  Children report through
 * their exit status.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/unit/shim_unit.h"

TestSuite(dontfork, .init = unit_init, .fini = unit_fini);

static bool recorded(const char *p, long pages)
{
	bool r;

	shim_rdlock();
	r = dontfork_overlaps((uintptr_t)p, (uintptr_t)p + pages * PG);
	shim_unlock();
	return r;
}

/*
 * Fork; the child exits with a bit per page of [p, p + pages): set if
 * its table still has a range there.
 */
static int child_table_bits(const char *p, long pages)
{
	int status, bits = 0;
	pid_t pid = fork();
	long i;

	cr_assert_geq(pid, 0);
	if (!pid) {
		for (i = 0; i < pages; i++)
			if (table_file_at(p + i * PG))
				bits |= 1 << i;
		_exit(bits);
	}
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFEXITED(status));
	return WEXITSTATUS(status);
}

Test(dontfork, recorded_then_dropped_in_the_child)
{
	char *p = unit_map(NULL, unit_file("rw-a", 4, NULL), 4, 0);

	cr_assert_not(recorded(p, 4));
	cr_assert_eq(madvise(p + PG, 2 * PG, MADV_DONTFORK), 0);
	cr_assert(recorded(p + PG, 2));
	cr_assert_not(recorded(p, 1));
	cr_assert_not(recorded(p + 3 * PG, 1));
	/* The child has pages 0 and 3 only; the parent keeps all four. */
	cr_assert_eq(child_table_bits(p, 4), 0x9);
	cr_assert_not_null(table_file_at(p + PG));
	cr_assert_not_null(table_file_at(p + 2 * PG));
}

Test(dontfork, dofork_removes_the_record)
{
	char *p = unit_map(NULL, unit_file("rw-a", 4, NULL), 4, 0);

	cr_assert_eq(madvise(p, 4 * PG, MADV_DONTFORK), 0);
	cr_assert_eq(madvise(p, 2 * PG, MADV_DOFORK), 0);
	cr_assert_not(recorded(p, 2));
	cr_assert(recorded(p + 2 * PG, 2));
	cr_assert_eq(child_table_bits(p, 4), 0x3);
}

Test(dontfork, failed_dofork_keeps_the_record)
{
	char *p = unit_map(NULL, unit_file("rw-a", 4, NULL), 4, 0);

	cr_assert_eq(madvise(p, 4 * PG, MADV_DONTFORK), 0);
	/* Unaligned: the kernel refuses, the record must stay. */
	cr_assert_eq(madvise(p + 1, PG, MADV_DOFORK), -1);
	cr_assert(recorded(p, 4));
}

Test(dontfork, anonymous_memory_not_recorded)
{
	char *a = mmap(NULL, 4 * PG, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);

	cr_assert_neq(a, MAP_FAILED);
	cr_assert_eq(madvise(a, 4 * PG, MADV_DONTFORK), 0);
	cr_assert_not(recorded(a, 4));
}

Test(dontfork, unmap_and_new_mapping_forget_records)
{
	int fd = unit_file("rw-a", 4, NULL);
	char *p = unit_map(NULL, fd, 4, 0);

	cr_assert_eq(madvise(p, 4 * PG, MADV_DONTFORK), 0);
	cr_assert_eq(munmap(p, PG), 0);
	cr_assert_not(recorded(p, 1));
	cr_assert(recorded(p + PG, 3));
	/* A new mapping over the rest is inherited by a child again. */
	unit_map(p + PG, fd, 3, 0);
	cr_assert_not(recorded(p + PG, 3));
	cr_assert_eq(child_table_bits(p + PG, 3), 0x7);
}

Test(dontfork, mremap_moves_the_record)
{
	char *p = unit_map(NULL, unit_file("rw-a", 4, NULL), 4, 0);
	char *to = unit_reserve(4);

	cr_assert_eq(madvise(p, 4 * PG, MADV_DONTFORK), 0);
	cr_assert_eq(mremap(p, 4 * PG, 4 * PG, MREMAP_MAYMOVE | MREMAP_FIXED, to),
		     to);
	cr_assert_not(recorded(p, 4));
	cr_assert(recorded(to, 4));
	cr_assert_eq(child_table_bits(to, 4), 0);
}

/* A record that could not be stored: the child drops its whole table. */
Test(dontfork, lost_record_drops_everything_in_the_child)
{
	char *p = unit_map(NULL, unit_file("rw-a", 4, NULL), 4, 0);
	int status;
	pid_t pid;

	shim_wrlock();
	shim.dontfork_lost = true;
	shim_unlock();
	cr_assert(recorded(p, 1), "lost records count as everywhere");
	pid = fork();
	cr_assert_geq(pid, 0);
	if (!pid)
		_exit(table_nr() == 0 && !shim.dontfork_lost ? 0 : 1);
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFEXITED(status));
	cr_assert_eq(WEXITSTATUS(status), 0);
	cr_assert_not_null(table_file_at(p), "the parent keeps its table");
}

/*
 * In the child, advice on anonymous memory mapped where a DONTFORK range
 * was is its own.  (The child's fork handler maps its stats page first,
 * and the kernel may put it there: the child takes a page still free.)
 */
Test(dontfork, child_anonymous_memory_there_keeps_its_advice)
{
	char *p = unit_map(NULL, unit_file("rw-a", 16, NULL), 16, 0);
	int status, i;
	char *q;
	pid_t pid;

	cr_assert_eq(madvise(p, 16 * PG, MADV_DONTFORK), 0);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (!pid) {
		for (i = 0; i < 16; i++) {
			q = mmap(p + i * PG, PG, PROT_READ, MAP_PRIVATE |
				 MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
			if (q == p + i * PG)
				break;
		}
		if (i == 16)
			_exit(100 + errno);
		if (madvise(q, PG, MADV_RANDOM))
			_exit(3);
		_exit(rr_at(q) ? 0 : 1);
	}
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFEXITED(status));
	cr_assert_eq(WEXITSTATUS(status), 0, "child status %d", WEXITSTATUS(status));
}
