// SPDX-License-Identifier: MIT
/*
 * grow.c - room for one more element at the end of a malloc'd array.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "common/grow.h"

void *grow_array(void *arr, size_t nr, size_t *cap, size_t size, size_t first)
{
	size_t want;
	void *p;

	if (nr < *cap)
		return arr;
	want = *cap ? *cap * 2 : first;
	if (!want || want > SIZE_MAX / size) {
		errno = ENOMEM;
		return NULL;
	}
	p = realloc(arr, want * size);
	if (p)
		*cap = want;
	return p;
}
