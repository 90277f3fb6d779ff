/* SPDX-License-Identifier: MIT */
/*
 * real.h - the next definitions of the interposed names (real.c): libc's,
 * or raw system calls with libc's contract until they are resolved.
 * Included by shim.h.
 */
#ifndef ADVSHIM_REAL_H
#define ADVSHIM_REAL_H

#include <stddef.h>
#include <sys/types.h>

#include "shim/sys.h"

/*
 * real_resolve - look up the next definition of every interposed name
 * (dlsym(RTLD_NEXT)); a name not found keeps its raw system call.  Called
 * by shim_init; no lock, never fails visibly.
 */
void real_resolve(void) SHIM_HIDDEN;

/*
 * real_dlsym_get - the real dlsym (libc's, found with dlvsym), resolved on
 * first use and cached in advshim_real_dlsym; NULL if it cannot be found.
 * No lock, any thread, from the sanitizers' early dlsym calls too.
 */
void *real_dlsym_get(void) SHIM_HIDDEN;
extern void *advshim_real_dlsym SHIM_HIDDEN;

/*
 * call_mmap ... call_madvise - the next definition of the name, or before
 * it is resolved the raw system call with libc's contract: the result of
 * the call, -1 or MAP_FAILED with errno set on failure.  No lock.
 * call_madvise and call_posix_madvise are inline (below): they end every
 * intercepted advice call, most of them passed on unexamined.
 */
void *call_mmap(void *addr, size_t len, int prot, int flags, int fd,
		off_t off) SHIM_HIDDEN;
void *call_mmap64(void *addr, size_t len, int prot, int flags, int fd,
		  off_t off) SHIM_HIDDEN;
int call_munmap(void *addr, size_t len) SHIM_HIDDEN;
void *call_mremap(void *old, size_t old_len, size_t new_len, int flags,
		  void *new_addr) SHIM_HIDDEN;

/*
 * call_posix_madvise, call_posix_fadvise, call_posix_fadvise64 - likewise,
 * with the posix contract: 0 or an error number, errno never changed
 * (posix_madvise(POSIX_MADV_DONTNEED) is glibc's no-op before resolution).
 */
int call_posix_fadvise(int fd, off_t off, off_t len, int advice) SHIM_HIDDEN;
int call_posix_fadvise64(int fd, off_t off, off_t len, int advice) SHIM_HIDDEN;

typedef int (*madvise_fn)(void *, size_t, int);

/* The next madvise and posix_madvise; NULL until real_resolve(). */
extern struct shim_real_advise {
	madvise_fn madvise, posix_madvise;
} shim_real_advise SHIM_HIDDEN;

/* madvise_raw, posix_madvise_raw - the calls before resolution (real.c). */
int madvise_raw(void *addr, size_t len, int advice) SHIM_HIDDEN;
int posix_madvise_raw(void *addr, size_t len, int advice) SHIM_HIDDEN;

static inline int call_madvise(void *addr, size_t len, int advice)
{
	madvise_fn f = __atomic_load_n(&shim_real_advise.madvise,
				       __ATOMIC_ACQUIRE);

	return likely(f) ? f(addr, len, advice) : madvise_raw(addr, len, advice);
}

static inline int call_posix_madvise(void *addr, size_t len, int advice)
{
	madvise_fn f = __atomic_load_n(&shim_real_advise.posix_madvise,
				       __ATOMIC_ACQUIRE);

	return likely(f) ? f(addr, len, advice) :
			   posix_madvise_raw(addr, len, advice);
}

#endif /* ADVSHIM_REAL_H */
