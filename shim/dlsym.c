// SPDX-License-Identifier: MIT
/*
 * dlsym.c - make dlsym() hand out the shim's functions.
 *
 * The JDK's FFM defaultLookup() (Lucene's route to posix_madvise) calls
 * dlsym(handle of libsyslookup.so, name); a handle lookup searches only that
 * object's dependencies and never sees LD_PRELOAD objects.  So for the
 * interposed names dlsym returns the shim's function whenever the lookup
 * would find something (RTLD_DEFAULT or a handle).
 *
 * Everything else must resolve exactly as without the shim.  glibc
 * resolves RTLD_NEXT (and the namespace of RTLD_DEFAULT) from the
 * caller's return address, so a C wrapper calling the real dlsym would
 * make every RTLD_NEXT lookup relative to libadvshim.so.  On x86_64 the
 * exported dlsym is an assembly trampoline (dlsym_x86_64.S): it asks
 * advshim_dlsym_decide() and, when that says "not ours", tail-jumps to
 * the real dlsym with the caller's return address still on the stack.
 * RTLD_NEXT lookups of interposed names are forwarded too: they already
 * find the shim when it comes next, and a library after the shim that
 * wraps mmap must get libc's, not ours (else it would loop).
 *
 * Other architectures get a C fallback that emulates RTLD_NEXT by walking
 * the link maps after the caller's object (no symbol versions: a lookup
 * finds a symbol's default version).  It is compiled only there, and no
 * build or test of this project runs on another architecture: untested.
 * The same holds for page.h's run-time page size.
 */
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <string.h>
#include <sys/mman.h>
#include <fcntl.h>

#include "shim/shim.h"

extern __typeof(mmap) shim_mmap_self;
extern __typeof(mmap64) shim_mmap64_self;
extern __typeof(munmap) shim_munmap_self;
extern __typeof(mremap) shim_mremap_self;
extern __typeof(madvise) shim_madvise_self;
extern __typeof(posix_madvise) shim_posix_madvise_self;
extern __typeof(posix_fadvise) shim_posix_fadvise_self;
extern __typeof(posix_fadvise64) shim_posix_fadvise64_self;

static const struct {
	const char *name;
	void *fn;
} interposed[] = {
	{ "mmap", (void *)shim_mmap_self },
	{ "mmap64", (void *)shim_mmap64_self },
	{ "munmap", (void *)shim_munmap_self },
	{ "mremap", (void *)shim_mremap_self },
	{ "madvise", (void *)shim_madvise_self },
	{ "posix_madvise", (void *)shim_posix_madvise_self },
	{ "posix_fadvise", (void *)shim_posix_fadvise_self },
	{ "posix_fadvise64", (void *)shim_posix_fadvise64_self },
};

/*
 * Not strcmp: sanitizer runtimes call dlsym while initialising, before
 * their own strcmp interceptor can forward anywhere.
 */
static bool same_name(const char *a, const char *b)
{
	while (*a && *a == *b) {
		a++;
		b++;
	}
	return *a == *b;
}

static void *interposed_fn(const char *name)
{
	size_t i;

	/* Cheap reject: every interposed name starts with 'm' or 'p'. */
	if (!name || (name[0] != 'm' && name[0] != 'p'))
		return NULL;
	for (i = 0; i < sizeof(interposed) / sizeof(interposed[0]); i++)
		if (same_name(name, interposed[i].name))
			return interposed[i].fn;
	return NULL;
}

void *advshim_dlsym_decide(void *handle, const char *name) SHIM_HIDDEN;

/*
 * advshim_dlsym_decide - the shim's function to return for this lookup,
 * or NULL: then the real dlsym must answer (the caller's return address
 * intact).  Also makes sure the real dlsym is resolved.  errno untouched.
 */
void *advshim_dlsym_decide(void *handle, const char *name)
{
	void *(*real)(void *, const char *);
	void *fn;
	int saved;

	/* Fast path, most lookups: resolved already and not our name. */
	if (likely(__atomic_load_n(&advshim_real_dlsym, __ATOMIC_ACQUIRE)) &&
	    (!name || (name[0] != 'm' && name[0] != 'p') || handle == RTLD_NEXT))
		return NULL;
	saved = errno;
	real = real_dlsym_get();
	fn = interposed_fn(name);
	if (!fn || handle == RTLD_NEXT || !real)
		fn = NULL;
	else if (handle != RTLD_DEFAULT && !real(handle, name))
		fn = NULL;	/* not in that scope: let dlsym say so */
	errno = saved;
	return fn;
}

#if !defined(__x86_64__)
/* Portable fallback, untested: see the comment at the top. */
static void *next_after(const void *caller, const char *name)
{
	void *(*real)(void *, const char *) = real_dlsym_get();
	struct link_map *lm = NULL;
	Dl_info info, where;
	void *h, *sym;

	if (!dladdr1(caller, &info, (void **)&lm, RTLD_DL_LINKMAP) || !lm)
		return real(RTLD_NEXT, name);
	for (lm = lm->l_next; lm; lm = lm->l_next) {
		h = dlopen(lm->l_name[0] ? lm->l_name : NULL,
			   RTLD_LAZY | RTLD_NOLOAD);
		if (!h)
			continue;
		sym = real(h, name);
		dlclose(h);
		if (sym && dladdr(sym, &where) &&
		    where.dli_fbase == (void *)lm->l_addr)
			return sym;
	}
	return NULL;
}

SHIM_EXPORT void *dlsym(void *handle, const char *name)
{
	void *fn = advshim_dlsym_decide(handle, name);
	void *(*real)(void *, const char *) = real_dlsym_get();

	if (fn)
		return fn;
	if (handle == RTLD_NEXT)
		return next_after(__builtin_return_address(0), name);
	return real ? real(handle, name) : NULL;
}
#endif
