/* SPDX-License-Identifier: MIT */
/*
 * slab.h - the shim's private allocator.
 *
 * Interposed mmap() may be called from inside malloc (jemalloc, tcmalloc,
 * HotSpot), so the shim never calls malloc on its hot paths.  Memory comes
 * from raw mmap in 64 KiB chunks carved into power-of-two size classes
 * (16 B .. 4 KiB) with a free list each; bigger blocks are mapped directly
 * (whole pages, page.h).  Chunks are never returned to the kernel.
 *
 * Locking: none inside.  The shim calls these only with shim.lock held
 * for writing (protocol in shim/shim.h): the mapping table's nodes and
 * the file cache's entries, paths and hash buckets.  Unit tests and the
 * fuzzer call them from one thread (the fuzzer links fuzz/slab_checked.c
 * instead, a malloc-backed version the sanitizers can see).
 */
#ifndef ADVSHIM_SLAB_H
#define ADVSHIM_SLAB_H

#include <stddef.h>

/*
 * slab_alloc - @size zeroed bytes (a 0 size counts as 1), or NULL with
 * errno = ENOMEM when the kernel refuses a chunk.
 * slab_free - give back a block (NULL: nothing); @size must be the size it
 * was allocated with (callers always know it: nodes are fixed size,
 * uthash passes it).  Never fails.
 */
void *slab_alloc(size_t size);
void slab_free(void *p, size_t size);

/* slab_bytes_mapped - bytes obtained from the kernel so far (stats, tests). */
size_t slab_bytes_mapped(void);

#endif /* ADVSHIM_SLAB_H */
