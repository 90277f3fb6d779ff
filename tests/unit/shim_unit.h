/* SPDX-License-Identifier: MIT */
/*
 * shim_unit.h - what the shim's unit tests share (shim_unit.c).
 *
 * The tests link the shim's own objects (everything but the dlsym
 * interposer), so the test program's mmap, munmap, mremap, madvise,
 * posix_madvise and posix_fadvise are the shim's, resolving the next
 * definitions (libc's) exactly as under LD_PRELOAD.  A constructor that
 * runs before the shim's points ADVSHIM_CONFIG at the policy below, whose
 * rules pick an action by file name:
 *
 *   keep-*   RANDOM kept
 *   skip-*   RANDOM and SEQUENTIAL not issued at all
 *   adapt-*  random = "adaptive" (the sampler samples once a minute:
 *            the first decision, in the first RANDOM call, is the one
 *            that counts; without a memcg limit it is normal)
 *   seq-*    RANDOM kept, SEQUENTIAL rewritten to normal
 *   other    RANDOM rewritten to normal (the default policy's rule),
 *            posix_fadvise RANDOM too
 *
 * Verdicts come from the kernel (VmFlags in /proc/self/smaps), the shim's
 * table and file cache, and its counters.
 */
#ifndef ADVSHIM_TEST_SHIM_UNIT_H
#define ADVSHIM_TEST_SHIM_UNIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "shim/calls.h"

#define PG 4096L

/* The test's own directory (created by unit_init, removed by unit_fini). */
extern char unit_dir[64];

/*
 * unit_init, unit_fini - per-test setup and teardown (criterion .init and
 * .fini): a fresh directory for the test's files; checks the shim is
 * active with the tests' policy.
 */
void unit_init(void);
void unit_fini(void);

/*
 * unit_file - create @name in unit_dir, @pages pages long (sparse), and
 * return an O_RDWR descriptor; the path goes to @path (size 256) if
 * non-NULL.  Fails the test on error.
 */
int unit_file(const char *name, long pages, char *path);

/* unit_reserve - @pages of PROT_NONE address space to map into. */
char *unit_reserve(long pages);

/*
 * unit_map - map @pages pages of @fd at offset @off_pg (pages) at @at
 * (MAP_FIXED) or anywhere (@at NULL), shared, through the shim's mmap.
 */
char *unit_map(char *at, int fd, long pages, long off_pg);

/* rr_at, sr_at - 1 if the page at @addr has VmFlags rr (sr), else 0. */
int rr_at(const void *addr);
int sr_at(const void *addr);

/* The file the shim's table has at @addr (read lock taken here), or NULL. */
struct shim_file *table_file_at(const void *addr);

/* The table range containing @addr, copied into *@out; false if none. */
bool table_range_at(const void *addr, struct map_node *out);

/*
 * Counter snapshot: STAT(x) is field x of the process's counters now, its
 * threads' slots added (as a reader sees it: advshim_stats_fold).
 */
#define STAT(x) (stat_snapshot().x)
struct advshim_stats stat_snapshot(void);

#endif /* ADVSHIM_TEST_SHIM_UNIT_H */
