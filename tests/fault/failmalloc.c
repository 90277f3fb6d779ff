// SPDX-License-Identifier: MIT
/*
 * failmalloc.c - libadvshim-failmalloc.so: a preloaded allocator that fails.
 *
 * Loaded before libadvshim.so.  FAULT_MALLOC=always makes every malloc,
 * calloc, realloc, memalign, posix_memalign, aligned_alloc and valloc fail
 * with ENOMEM from the first allocation on (so the shim's own
 * initialisation, the policy parse, meets it); failmalloc_arm() arms it
 * later (advshim-fault-calls --arm-malloc, after the shim has initialised).
 * free() always works (glibc's __libc_free).
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <malloc.h>
#include <string.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
extern void __libc_free(void *);

/* -1: not decided yet.  Decided at the first allocation, not in a
 * constructor: the shim's constructor may run before ours. */
static int armed = -1;

static int is_armed(void)
{
	if (armed < 0) {
		const char *m = getenv("FAULT_MALLOC");

		armed = m && !strcmp(m, "always");
	}
	return armed;
}

/* Called by the test program right before its first intercepted call. */
void failmalloc_arm(void);
void failmalloc_arm(void)
{
	armed = 1;
}

#define FAIL_IF_ARMED() do { if (is_armed()) { errno = ENOMEM; return NULL; } } while (0)

void *malloc(size_t n)
{
	FAIL_IF_ARMED();
	return __libc_malloc(n);
}

void *calloc(size_t n, size_t m)
{
	FAIL_IF_ARMED();
	return __libc_calloc(n, m);
}

void *realloc(void *p, size_t n)
{
	FAIL_IF_ARMED();
	return __libc_realloc(p, n);
}

void *memalign(size_t a, size_t n)
{
	FAIL_IF_ARMED();
	return __libc_memalign(a, n);
}

void *aligned_alloc(size_t a, size_t n)
{
	FAIL_IF_ARMED();
	return __libc_memalign(a, n);
}

void *valloc(size_t n)
{
	FAIL_IF_ARMED();
	return __libc_memalign(4096, n);
}

int posix_memalign(void **out, size_t a, size_t n)
{
	void *p;

	if (is_armed())
		return ENOMEM;
	p = __libc_memalign(a, n);
	if (!p)
		return ENOMEM;
	*out = p;
	return 0;
}

void free(void *p)
{
	__libc_free(p);
}
