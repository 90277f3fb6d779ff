// SPDX-License-Identifier: MIT
/*
 * slab.c - raw-mmap backed size-class allocator (see slab.h).
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#include "shim/page.h"
#include "shim/slab.h"
#include "shim/sys.h"

#define SLAB_MIN_SHIFT	4		/* 16 bytes */
#define SLAB_MAX_SHIFT	12		/* 4 KiB */
#define SLAB_NR_CLASSES	(SLAB_MAX_SHIFT - SLAB_MIN_SHIFT + 1)
#define SLAB_CHUNK	(64 * 1024)

struct free_block {
	struct free_block *next;
};

/* Free lists per class; the current chunk being carved for each class. */
static struct free_block *free_list[SLAB_NR_CLASSES];
static char *carve_pos[SLAB_NR_CLASSES];
static char *carve_end[SLAB_NR_CLASSES];
static size_t mapped_bytes;

static int size_class(size_t size)
{
	int shift = SLAB_MIN_SHIFT;

	while (((size_t)1 << shift) < size)
		shift++;
	return shift - SLAB_MIN_SHIFT;
}

static void *map_pages(size_t size)
{
	void *p = sys_mmap(NULL, size, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		errno = ENOMEM;
		return NULL;
	}
	mapped_bytes += size;
	return p;
}

void *slab_alloc(size_t size)
{
	struct free_block *b;
	size_t bsize;
	int c;

	if (size == 0)
		size = 1;
	if (size > ((size_t)1 << SLAB_MAX_SHIFT))
		return map_pages(page_up(size));
	c = size_class(size);
	bsize = (size_t)1 << (c + SLAB_MIN_SHIFT);
	b = free_list[c];
	if (b) {
		free_list[c] = b->next;
		memset(b, 0, bsize);
		return b;
	}
	if (carve_pos[c] == carve_end[c]) {
		/* Fresh anonymous pages are zero already. */
		carve_pos[c] = map_pages(SLAB_CHUNK);
		if (!carve_pos[c]) {
			carve_end[c] = NULL;
			return NULL;
		}
		carve_end[c] = carve_pos[c] + SLAB_CHUNK;
	}
	b = (struct free_block *)carve_pos[c];
	carve_pos[c] += bsize;
	return b;
}

void slab_free(void *p, size_t size)
{
	struct free_block *b = p;
	int c;

	if (!p)
		return;
	if (size == 0)
		size = 1;
	if (size > ((size_t)1 << SLAB_MAX_SHIFT)) {
		size = page_up(size);
		if (!sys_munmap(p, size))
			mapped_bytes -= size;
		return;
	}
	c = size_class(size);
	b->next = free_list[c];
	free_list[c] = b;
}

size_t slab_bytes_mapped(void)
{
	return mapped_bytes;
}
