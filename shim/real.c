// SPDX-License-Identifier: MIT
/*
 * real.c - the definitions the shim forwards to.
 *
 * Each interposer forwards to the next definition of its name (libc's, or
 * another preloaded library's that comes after the shim), found with
 * dlsym(RTLD_NEXT) once init runs.  Until then, and if a name cannot be
 * resolved, the call goes to the raw system call with libc's contract
 * reproduced: mmap/munmap/mremap/madvise return -1/MAP_FAILED and set
 * errno; posix_madvise/posix_fadvise return the error number and leave
 * errno alone; posix_madvise(POSIX_MADV_DONTNEED) is a successful no-op as
 * in glibc (it must not discard data, which MADV_DONTNEED would).
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <sys/mman.h>

#include "shim/shim.h"

typedef void *(*mmap_fn)(void *, size_t, int, int, int, off_t);
typedef int (*munmap_fn)(void *, size_t);
typedef void *(*mremap_fn)(void *, size_t, size_t, int, ...);
typedef int (*fadvise_fn)(int, off_t, off_t, int);
typedef void *(*dlsym_fn)(void *, const char *);

static struct {
	mmap_fn mmap, mmap64;
	munmap_fn munmap;
	mremap_fn mremap;
	fadvise_fn posix_fadvise, posix_fadvise64;
} real;

struct shim_real_advise shim_real_advise;

/* The real dlsym; used by the dlsym trampoline too (dlsym_x86_64.S). */
void *advshim_real_dlsym SHIM_HIDDEN;

#define LOAD(f)		__atomic_load_n(&real.f, __ATOMIC_ACQUIRE)
#define STORE(f, v)	__atomic_store_n(&real.f, (v), __ATOMIC_RELEASE)

void *real_dlsym_get(void)
{
	void *f = __atomic_load_n(&advshim_real_dlsym, __ATOMIC_ACQUIRE);

	if (f)
		return f;
	/*
	 * dlvsym is not interposed, and called from here RTLD_NEXT means
	 * "after libadvshim.so".  glibc 2.34 moved dlsym into libc.
	 */
	f = dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.34");
	if (!f)
		f = dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.2.5");
	if (f)
		__atomic_store_n(&advshim_real_dlsym, f, __ATOMIC_RELEASE);
	return f;
}

void real_resolve(void)
{
	dlsym_fn next = (dlsym_fn)real_dlsym_get();

	if (!next)
		return;
	STORE(mmap, (mmap_fn)next(RTLD_NEXT, "mmap"));
	STORE(mmap64, (mmap_fn)next(RTLD_NEXT, "mmap64"));
	STORE(munmap, (munmap_fn)next(RTLD_NEXT, "munmap"));
	STORE(mremap, (mremap_fn)next(RTLD_NEXT, "mremap"));
	__atomic_store_n(&shim_real_advise.madvise,
			 (madvise_fn)next(RTLD_NEXT, "madvise"), __ATOMIC_RELEASE);
	__atomic_store_n(&shim_real_advise.posix_madvise,
			 (madvise_fn)next(RTLD_NEXT, "posix_madvise"),
			 __ATOMIC_RELEASE);
	STORE(posix_fadvise, (fadvise_fn)next(RTLD_NEXT, "posix_fadvise"));
	STORE(posix_fadvise64, (fadvise_fn)next(RTLD_NEXT, "posix_fadvise64"));
}

void *call_mmap(void *addr, size_t len, int prot, int flags, int fd,
		off_t off)
{
	mmap_fn f = LOAD(mmap);

	return f ? f(addr, len, prot, flags, fd, off) :
		   sys_mmap(addr, len, prot, flags, fd, off);
}

void *call_mmap64(void *addr, size_t len, int prot, int flags, int fd,
		  off_t off)
{
	mmap_fn f = LOAD(mmap64);

	return f ? f(addr, len, prot, flags, fd, off) :
		   sys_mmap(addr, len, prot, flags, fd, off);
}

int call_munmap(void *addr, size_t len)
{
	munmap_fn f = LOAD(munmap);

	return f ? f(addr, len) : sys_munmap(addr, len);
}

void *call_mremap(void *old, size_t old_len, size_t new_len, int flags,
		  void *new_addr)
{
	mremap_fn f = LOAD(mremap);

	return f ? f(old, old_len, new_len, flags, new_addr) :
		   sys_mremap(old, old_len, new_len, flags, new_addr);
}

int madvise_raw(void *addr, size_t len, int advice)
{
	return sys_madvise(addr, len, advice);
}

/* posix_madvise before resolution: glibc's contract, errno untouched. */
int posix_madvise_raw(void *addr, size_t len, int advice)
{
	int saved = errno, ret;

	if (advice == POSIX_MADV_DONTNEED)
		return 0;
	ret = sys_madvise(addr, len, advice) ? errno : 0;
	errno = saved;
	return ret;
}

static __attribute__((noinline)) int fadvise_raw(int fd, off_t off,
						 off_t len, int advice)
{
	int saved = errno, ret;

	ret = sys_fadvise(fd, off, len, advice) ? errno : 0;
	errno = saved;
	return ret;
}

int call_posix_fadvise(int fd, off_t off, off_t len, int advice)
{
	fadvise_fn f = LOAD(posix_fadvise);

	return f ? f(fd, off, len, advice) : fadvise_raw(fd, off, len, advice);
}

int call_posix_fadvise64(int fd, off_t off, off_t len, int advice)
{
	fadvise_fn f = LOAD(posix_fadvise64);

	return f ? f(fd, off, len, advice) : fadvise_raw(fd, off, len, advice);
}
