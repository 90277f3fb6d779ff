// SPDX-License-Identifier: MIT
/*
 * slab_checked.c - shim/slab.h on top of malloc, for the fuzzers only.
 *
 * The shim's real slab carves raw mmap chunks, which AddressSanitizer and
 * LeakSanitizer cannot see into: a use-after-free or a leaked node in the
 * mapping table would go unnoticed.  This version gives every block its
 * own malloc (so ASan catches any misuse and LSan any node never freed)
 * and checks the contract that slab_free() gets the allocation's size.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "shim/slab.h"

struct hdr {
	size_t size;
	size_t magic;
};

#define SLAB_MAGIC ((size_t)0xad5a1bad5a1bUL)

static size_t bytes;

void *slab_alloc(size_t size)
{
	struct hdr *h = calloc(1, sizeof(*h) + size);

	if (!h) {
		errno = ENOMEM;
		return NULL;
	}
	h->size = size;
	h->magic = SLAB_MAGIC;
	bytes += size;
	return h + 1;
}

void slab_free(void *p, size_t size)
{
	struct hdr *h;

	if (!p)
		return;
	h = (struct hdr *)p - 1;
	if (h->magic != SLAB_MAGIC || h->size != size) {
		fprintf(stderr, "slab_free(%p, %zu): block of %zu bytes, magic %zx\n",
			p, size, h->size, h->magic);
		abort();
	}
	h->magic = 0;
	bytes -= size;
	free(h);
}

size_t slab_bytes_mapped(void)
{
	return bytes;
}
