// SPDX-License-Identifier: MIT
/*
 * wrapnext.c - libwrapnext.so: a second preloaded library that wraps libc
 * functions the usual way, through dlsym(RTLD_NEXT, ...).  It wraps one
 * name the shim interposes (madvise) and one it does not (close).  With
 * the shim preloaded before or after it, both chains must reach libc: if
 * the shim's dlsym resolved RTLD_NEXT relative to itself, the order
 * "shim:wrapnext" would hand wrapnext its own functions and loop.
 * Calls are counted in wrapnext_calls (the test program reads it).
 */
#include <dlfcn.h>
#include <stddef.h>
#include <unistd.h>

int wrapnext_calls;
int madvise(void *addr, size_t len, int advice);

int madvise(void *addr, size_t len, int advice)
{
	static int (*next)(void *, size_t, int);
	static int depth;
	int r;

	if (!next)
		next = (int (*)(void *, size_t, int))dlsym(RTLD_NEXT, "madvise");
	if (++depth > 4)	/* a loop would recurse: report it, not crash */
		_exit(99);
	__atomic_fetch_add(&wrapnext_calls, 1, __ATOMIC_RELAXED);
	r = next(addr, len, advice);
	depth--;
	return r;
}

int close(int fd)
{
	static int (*next)(int);
	static int depth;
	int r;

	if (!next)
		next = (int (*)(int))dlsym(RTLD_NEXT, "close");
	if (++depth > 4)
		_exit(98);
	__atomic_fetch_add(&wrapnext_calls, 1, __ATOMIC_RELAXED);
	r = next(fd);
	depth--;
	return r;
}
