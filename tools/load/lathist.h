/* SPDX-License-Identifier: MIT */
/*
 * lathist.h - fixed-size log-linear latency histograms (any unit; advshim-load
 * counts nanoseconds).
 *
 * 16 buckets per power of two (<= 6.25% relative error), values up to
 * 2^40 units; anything larger lands in the last bucket.  A histogram is a
 * plain array, so one interval costs a few KiB however long the run is.
 * No locks: a histogram belongs to one thread, and a merge into another
 * needs the caller's own exclusion.  Nothing here can fail.
 */
#ifndef ADVSHIM_LOAD_LATHIST_H
#define ADVSHIM_LOAD_LATHIST_H

#include <stdint.h>

#define LATHIST_SUB_BITS 4
#define LATHIST_SUB (1u << LATHIST_SUB_BITS)
#define LATHIST_MAX_EXP 40
#define LATHIST_NR ((LATHIST_MAX_EXP - LATHIST_SUB_BITS + 1) * LATHIST_SUB + LATHIST_SUB)

struct lathist {
	uint64_t b[LATHIST_NR];
	uint64_t count;
};

/* lathist_index - the bucket of @us (always < LATHIST_NR). */
unsigned int lathist_index(uint64_t us);

/* lathist_lower - the smallest value that falls in bucket @idx. */
uint64_t lathist_lower(unsigned int idx);

/* lathist_add - count @n values of @us. */
void lathist_add(struct lathist *h, uint64_t us, uint64_t n);

/* lathist_merge - add every bucket of @src to @dst. */
void lathist_merge(struct lathist *dst, const struct lathist *src);

/*
 * lathist_quantile - the value below which a fraction @q (0..1) of the
 * counted values lie, reported as the middle of its bucket; 0 when empty.
 */
uint64_t lathist_quantile(const struct lathist *h, double q);

#endif /* ADVSHIM_LOAD_LATHIST_H */
