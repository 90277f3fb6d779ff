/* SPDX-License-Identifier: MIT */
/*
 * sys.h - raw system calls for the shim.
 *
 * The shim must work before libc's symbols are resolved, while re-entered
 * from an allocator and inside fork handlers, so everything below goes
 * straight to syscall(2).  These helpers follow the kernel convention
 * (return value or -1 with errno set, as syscall(2) does); callers that
 * must not disturb errno save and restore it themselves.
 */
#ifndef ADVSHIM_SYS_H
#define ADVSHIM_SYS_H

#include <stddef.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

#define SHIM_HIDDEN __attribute__((visibility("hidden")))

static inline void *sys_mmap(void *addr, size_t len, int prot, int flags,
			     int fd, off_t off)
{
	return (void *)syscall(SYS_mmap, addr, len, prot, flags, fd, off);
}

static inline int sys_munmap(void *addr, size_t len)
{
	return (int)syscall(SYS_munmap, addr, len);
}

static inline void *sys_mremap(void *old, size_t old_len, size_t new_len,
			       int flags, void *new_addr)
{
	return (void *)syscall(SYS_mremap, old, old_len, new_len, flags,
			       new_addr);
}

static inline int sys_madvise(void *addr, size_t len, int advice)
{
	return (int)syscall(SYS_madvise, addr, len, advice);
}

static inline int sys_fadvise(int fd, off_t off, off_t len, int advice)
{
	return (int)syscall(SYS_fadvise64, fd, off, len, advice);
}

static inline ssize_t sys_write(int fd, const void *buf, size_t len)
{
	return syscall(SYS_write, fd, buf, len);
}

static inline int sys_close(int fd)
{
	return (int)syscall(SYS_close, fd);
}

#endif /* ADVSHIM_SYS_H */
