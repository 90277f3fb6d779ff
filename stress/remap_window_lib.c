// SPDX-License-Identifier: MIT
/*
 * remap_window_lib.c - libadvshim-remapwindow.so, preloaded AFTER
 * libadvshim.so: the shim's "real" mremap (dlsym(RTLD_NEXT)) becomes this
 * one, which does the syscall and then, before returning to the shim,
 * calls the test program's remap_window_hook(old, old_len).  That opens,
 * deterministically, the window a concurrent thread can only hit by luck:
 * after the kernel moved the mapping, before the shim updated its table.
 */
#include <dlfcn.h>
#include <stdarg.h>
#include <stddef.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

void *mremap(void *old, size_t old_len, size_t new_len, int flags, ...)
{
	void (*hook)(void *, size_t);
	void *new_addr;
	long r;
	va_list ap;

	/* The fifth argument exists only with MREMAP_FIXED. */
	va_start(ap, flags);
	new_addr = flags & MREMAP_FIXED ? va_arg(ap, void *) : NULL;
	va_end(ap);
	r = syscall(SYS_mremap, old, old_len, new_len, flags, new_addr);
	if (r == -1)
		return MAP_FAILED;
	hook = (void (*)(void *, size_t))dlsym(RTLD_DEFAULT, "remap_window_hook");
	if (hook)
		hook(old, old_len);
	return (void *)r;
}
