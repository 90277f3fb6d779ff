/* SPDX-License-Identifier: MIT */
/*
 * page.h - the base page size, from one place.
 *
 * The kernel refuses madvise, munmap and mremap addresses that are not
 * page aligned and rounds lengths up to whole pages; the shim's range
 * walk, its table and its allocator round the same way, with these
 * helpers only.
 *
 * x86_64, the one architecture the shim is built, tested and measured on,
 * has 4 KiB base pages: a compile-time constant.  Elsewhere (the Debian
 * package is linux-any; arm64 and ppc64 kernels may use 16 or 64 KiB
 * pages) the size comes from the auxiliary vector (AT_PAGESZ), read on
 * first use.  That path, like dlsym.c's non-x86_64 fallback, is not built
 * or run by any test here.
 */
#ifndef ADVSHIM_PAGE_H
#define ADVSHIM_PAGE_H

#include <stdbool.h>
#include <stdint.h>
#if !defined(__x86_64__)
#include <sys/auxv.h>
#endif

/* page_size - the base page size in bytes; no lock, never fails. */
static inline uintptr_t page_size(void)
{
#if defined(__x86_64__)
	return 4096;
#else
	static uintptr_t size;	/* one copy per file: harmless */
	uintptr_t v = __atomic_load_n(&size, __ATOMIC_RELAXED);

	if (!v) {
		v = (uintptr_t)getauxval(AT_PAGESZ);
		if (!v || (v & (v - 1)))
			v = 4096;
		__atomic_store_n(&size, v, __ATOMIC_RELAXED);
	}
	return v;
#endif
}

/*
 * page_up - @len rounded up to whole pages, as the kernel's PAGE_ALIGN:
 * wraps to a small value for lengths within a page of UINTPTR_MAX (the
 * callers compare the end with the start to catch that).
 */
static inline uintptr_t page_up(uintptr_t len)
{
	return (len + page_size() - 1) & ~(page_size() - 1);
}

/* page_aligned - true if @addr is on a page boundary. */
static inline bool page_aligned(uintptr_t addr)
{
	return !(addr & (page_size() - 1));
}

#endif /* ADVSHIM_PAGE_H */
