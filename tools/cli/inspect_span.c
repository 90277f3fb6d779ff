// SPDX-License-Identifier: MIT
/*
 * inspect_span.c - the bytes of a file that a process maps, counted once.
 *
 * A JVM maps some files more than once (an OpenSearch node maps each .vec
 * and .vex twice), and advice splits one mapping into several VMAs; the
 * file offsets of its VMAs, merged, give what it maps of the file.
 */
#include <errno.h>
#include <stdlib.h>

#include "tools/cli/inspect.h"

int inspect_span_add(struct inspect_span *s, uint64_t lo, uint64_t hi)
{
	struct inspect_range *v;
	size_t cap;

	if (hi <= lo)
		return 0;
	if (s->n == s->cap) {
		cap = s->cap ? s->cap * 2 : 4;
		v = realloc(s->v, cap * sizeof(*v));
		if (!v) {
			errno = ENOMEM;
			return -1;
		}
		s->v = v;
		s->cap = cap;
	}
	s->v[s->n].lo = lo;
	s->v[s->n].hi = hi;
	s->n++;
	return 0;
}

static int by_lo(const void *a, const void *b)
{
	const struct inspect_range *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

uint64_t inspect_span_total(struct inspect_span *s)
{
	uint64_t total = 0, lo, hi;
	size_t i;

	if (!s->n)
		return 0;
	qsort(s->v, s->n, sizeof(*s->v), by_lo);
	lo = s->v[0].lo;
	hi = s->v[0].hi;
	for (i = 1; i < s->n; i++) {
		if (s->v[i].lo > hi) {
			total += hi - lo;
			lo = s->v[i].lo;
		}
		if (s->v[i].hi > hi)
			hi = s->v[i].hi;
	}
	return total + (hi - lo);
}

void inspect_span_free(struct inspect_span *s)
{
	free(s->v);
	s->v = NULL;
	s->n = s->cap = 0;
}
