/* SPDX-License-Identifier: MIT */
/*
 * sampler.h - what the adaptive advice's sampler (sampler.c) and its walks
 * over the mapping table (adapt_table.c) share.  Private to those two.
 *
 * Locking: the walks take shim.lock for reading one leaf at a time (at
 * most MAPTABLE_LEAF_MAX ranges) and never the write lock; the apply walk
 * issues its madvise calls with no lock held (shim.h's protocol,
 * adapt_table.c).  The snapshot and its buffers, and a switch's walk,
 * belong to the one thread that samples at a time (the first decision's
 * caller, then the sampler thread; a failed start's caller when none
 * runs): adapt.issuing's odd/even count assumes one walk at a time.
 */
#ifndef ADVSHIM_SAMPLER_H
#define ADVSHIM_SAMPLER_H

#include "shim/calls.h"

#define ADAPT_WINDOWS		64	/* mincore windows per sample */
#define ADAPT_WINDOW_PAGES	4	/* pages per window */
#define ADAPT_PATH_MAX		512	/* longer paths: size not re-read */

/* The group's files and ranges, as one sample sees them. */
struct adapt_snap {
	uint64_t need;		/* sum over files of min(size, bytes asked) */
	uint64_t bytes;		/* bytes of ranges asked RANDOM */
	uint64_t nr_ranges;	/* ranges asked RANDOM */
	uint64_t nr_mixed;	/* adaptive ranges asked MIXED (left alone) */
	unsigned int nr_files;	/* in files[] */
	unsigned int nr_more;	/* files beyond files[] (counted in need) */
	struct advshim_adapt_file files[ADVSHIM_ADAPT_FILES];
	char path[ADVSHIM_ADAPT_FILES][ADAPT_PATH_MAX];	/* "": unknown */
	unsigned int nr_win;
	uintptr_t win[ADAPT_WINDOWS];	/* page-aligned window starts */
	unsigned int win_pages[ADAPT_WINDOWS];
};

/*
 * adapt_snapshot - walk the table: the ranges of adaptive files asked
 * RANDOM, summed per file (need caps each file at its size), and up to
 * ADAPT_WINDOWS windows spread evenly over them (@prev_bytes: the bytes of
 * the previous sample, where the windows go; 0: the first ranges).  @seed
 * (may be NULL): a piece being decided that is not tagged yet, counted
 * as if it were.  Each file's size is its size now (stat of its path,
 * without the lock, when the path still names the same file; else the
 * size it had when the shim named it): a file growing under its mapping
 * (LMDB's data file inside a 1 GiB map) is needed as large as it is.
 * Takes shim.lock for reading, a leaf at a time.
 */
void adapt_snapshot(struct adapt_snap *s, const struct adapt_seed *seed,
		    uint64_t prev_bytes) SHIM_HIDDEN;

/*
 * adapt_resident - the share of @s's windows in the page cache (mincore;
 * an unmapped window counts as not resident), applied to s->need.  No
 * lock: a range unmapped since the snapshot only makes one sample off.
 */
uint64_t adapt_resident(const struct adapt_snap *s) SHIM_HIDDEN;

/* What a switch did. */
struct adapt_applied {
	uint64_t ranges;	/* re-advised */
	uint64_t mixed;		/* asked MIXED: left alone */
	uint64_t errors;	/* madvise failed (the range keeps its advice) */
};

/*
 * adapt_apply - give every range of an adaptive file asked RANDOM the
 * advice of choice @c (MADV_NORMAL, or MADV_RANDOM back), range by range:
 * adapt.issuing made odd, the next such range found (its tag read) under
 * the read lock, the lock released, its madvise issued, adapt.issuing
 * made even (an application's call on the same range is ordered against
 * it: adapt_table.c).  Call after publishing @c (the choice store and
 * gen_bump() first), from the one sampling thread.  errno preserved.
 */
void adapt_apply(enum adapt_choice c, struct adapt_applied *out) SHIM_HIDDEN;

#endif /* ADVSHIM_SAMPLER_H */
