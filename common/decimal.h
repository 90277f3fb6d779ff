/* SPDX-License-Identifier: MIT */
/*
 * decimal.h - the unsigned decimal numbers of kernel text, for the parsers
 * in common/ (no locale, no errno, no sign, no leading spaces: the kernel
 * prints none of those where these are used).
 */
#ifndef ADVSHIM_COMMON_DECIMAL_H
#define ADVSHIM_COMMON_DECIMAL_H

#include <stddef.h>
#include <stdint.h>

/*
 * decimal_u64 - read the digits at [@p, @end) into *out.  Returns the
 * first byte after them, or NULL when there is no digit at @p or the
 * value does not fit 64 bits (*out untouched then).  Takes no lock.
 */
static inline const char *decimal_u64(const char *p, const char *end,
				      uint64_t *out)
{
	const char *start = p;
	uint64_t v = 0;

	for (; p < end && *p >= '0' && *p <= '9'; p++) {
		unsigned int d = (unsigned int)(*p - '0');

		if (v > (UINT64_MAX - d) / 10)
			return NULL;
		v = v * 10 + d;
	}
	if (p == start)
		return NULL;
	*out = v;
	return p;
}

/*
 * decimal_u64_all - decimal_u64() that must consume all of [@p, @end).
 * Returns 0, or -1 (*out untouched).
 */
static inline int decimal_u64_all(const char *p, const char *end,
				  uint64_t *out)
{
	uint64_t v = 0;

	if (decimal_u64(p, end, &v) != end)
		return -1;
	*out = v;
	return 0;
}

#endif /* ADVSHIM_COMMON_DECIMAL_H */
