// SPDX-License-Identifier: MIT
/*
 * lathist.c - log-linear latency histogram arithmetic.
 */
#include <string.h>

#include "tools/load/lathist.h"

unsigned int lathist_index(uint64_t us)
{
	unsigned int e;

	if (us < LATHIST_SUB)
		return (unsigned int)us;
	e = 63 - (unsigned int)__builtin_clzll(us);
	if (e > LATHIST_MAX_EXP)
		return LATHIST_NR - 1;
	return (e - LATHIST_SUB_BITS + 1) * LATHIST_SUB +
	       (unsigned int)((us >> (e - LATHIST_SUB_BITS)) & (LATHIST_SUB - 1));
}

uint64_t lathist_lower(unsigned int idx)
{
	unsigned int e, m;

	if (idx < LATHIST_SUB)
		return idx;
	e = idx / LATHIST_SUB + LATHIST_SUB_BITS - 1;
	m = idx % LATHIST_SUB;
	return (uint64_t)(LATHIST_SUB + m) << (e - LATHIST_SUB_BITS);
}

void lathist_add(struct lathist *h, uint64_t us, uint64_t n)
{
	h->b[lathist_index(us)] += n;
	h->count += n;
}

void lathist_merge(struct lathist *dst, const struct lathist *src)
{
	for (unsigned int i = 0; i < LATHIST_NR; i++)
		dst->b[i] += src->b[i];
	dst->count += src->count;
}

uint64_t lathist_quantile(const struct lathist *h, double q)
{
	uint64_t rank, seen = 0;

	if (!h->count)
		return 0;
	if (q < 0)
		q = 0;
	if (q > 1)
		q = 1;
	/* The smallest value with at least ceil(q * count) values <= it. */
	rank = (uint64_t)(q * (double)h->count + 0.999999);
	if (rank < 1)
		rank = 1;
	for (unsigned int i = 0; i < LATHIST_NR; i++) {
		seen += h->b[i];
		if (seen >= rank) {
			uint64_t lo = lathist_lower(i);
			uint64_t hi = i + 1 < LATHIST_NR ?
				lathist_lower(i + 1) : lo * 2;

			return lo + (hi - lo) / 2;
		}
	}
	return lathist_lower(LATHIST_NR - 1);
}
