// SPDX-License-Identifier: MIT
/*
 * mapping.c - mmap, mmap64, munmap, mremap: keep the mapping table in step.
 *
 * Anonymous mappings go straight through without a lock (allocators and
 * JIT heaps make most mmap calls), except MAP_FIXED ones, which may
 * replace a file range the table knows.  A munmap or MAP_FIXED where this
 * thread last found no range, the table unchanged since, looks no further
 * (view_unknown: no lock, no descent of a table of 100k ranges).  The table is updated after a
 * successful mmap/mremap and before munmap (so a concurrent mmap that gets
 * the freed addresses never has its new range removed by us); then, before
 * the addresses are freed, a switch's madvise in flight on a range just
 * removed is let land (adapt_settle, adapt_table.c).  A MAP_FIXED mmap or
 * an mremap replaces or moves ranges before the table learns of it: it
 * holds switches off around its call instead (adapt_replace_begin), and a
 * moved range asked RANDOM gets the group's choice there (remap_readvise).  Every call
 * here but a new anonymous mapping moves vm_gen on after the kernel
 * returned (view_nofile's answers are stamped with it).  errno is what
 * the real call left.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <sys/mman.h>

#include "shim/view.h"

static void apply_on_map(const struct policy_rule *rule, int fd)
{
	unsigned int acts = rule ? rule->on_map : 0;

	/* Raw syscalls: errno is restored by the caller, nothing is logged. */
	if (acts & MAP_ACT_NOREUSE) {
		if (!sys_fadvise(fd, 0, 0, POSIX_FADV_NOREUSE))
			STAT_INC(noreuse_applied);
		else
			STAT_INC(errors);
	}
	if (acts & MAP_ACT_NORMAL) {
		if (!sys_fadvise(fd, 0, 0, POSIX_FADV_NORMAL))
			STAT_INC(normal_applied);
		else
			STAT_INC(errors);
	}
}

/*
 * Record [s, e) -> @f (NULL: a file the cache could not hold, whose range
 * is only forgotten).  shim.lock held for writing.
 */
static void table_record(uintptr_t s, uintptr_t e, struct shim_file *f)
{
	/* A new mapping: inherited by a fork child whatever was there. */
	dontfork_forget(s, e);
	if (!f) {
		maptable_unmap(&shim.table, s, e);
	} else if (maptable_map(&shim.table, s, e, f)) {
		STAT_INC(errors);
	} else {
		STAT_INC(file_maps_total);
		table_changed();
		view_point(s);
		return;
	}
	table_changed();
}

/* Record a fresh file mapping; called with errno saved by the caller. */
static void register_file(void *addr, size_t len, int fd)
{
	uintptr_t s = (uintptr_t)addr, e = s + page_up(len);
	const struct policy_rule *rule = NULL;
	struct file_name name;
	struct shim_file *f;
	struct stat st;

	if (syscall(SYS_fstat, fd, &st) || !S_ISREG(st.st_mode))
		return;
	shim_wrlock();
	f = files_fresh(&st);
	if (!f) {
		/* A new file: its name and rule are found outside the lock. */
		shim_unlock();
		files_name_fd(fd, &name);
		shim_wrlock();
		f = files_store(&st, name.path, name.rule);
	}
	table_record(s, e, f);
	if (f) {
		rule = f->rule;
		shim_log(POLICY_LOG_DEBUG, "mmap %s at %p +%zu (%s)", f->path,
			 addr, len, rule ? rule->name : "no rule");
	}
	shim_unlock();
	if (f && shim.on_map && !kill_poll())
		apply_on_map(rule, fd);
}

/*
 * Forget [@s, @e): a MAP_FIXED anonymous mapping may have replaced known
 * file ranges there, or munmap is about to free them.  Where this thread
 * last found no range and the table has not changed since, nothing is
 * looked at (view_unknown).  True if the table had ranges there.
 * shim_busy raised by the caller; takes shim.lock as needed.
 */
static bool forget_range(uintptr_t s, uintptr_t e)
{
	bool known;

	if (!table_nr() || view_unknown(s, e))
		return false;
	shim_rdlock();
	known = view_overlaps(s, e);
	shim_unlock();
	if (!known)
		return false;
	shim_wrlock();
	maptable_unmap(&shim.table, s, e);
	dontfork_forget(s, e);
	table_changed();
	shim_unlock();
	return true;
}

static void after_mmap(void *ret, size_t len, int flags, int fd)
{
	int saved = errno;

	shim_busy++;
	vm_changed();
	if (!(flags & MAP_ANONYMOUS) && fd >= 0)
		register_file(ret, len, fd);
	else
		forget_range((uintptr_t)ret, (uintptr_t)ret + page_up(len));
	shim_busy--;
	errno = saved;
}

static inline bool wants_mmap(int flags, int fd)
{
	if ((flags & MAP_ANONYMOUS) || fd < 0)
		return (flags & MAP_FIXED) && shim_active();
	return shim_activate();
}

/*
 * mmap and mmap64 alike: the call through @real (call_mmap or
 * call_mmap64, the next definition of the caller's name), the table kept
 * in step around it.
 */
static inline void *map_through(void *(*real)(void *, size_t, int, int, int, off_t),
				void *addr, size_t len, int prot, int flags,
				int fd, off_t off)
{
	bool counted;
	void *ret;

	if (likely(!wants_mmap(flags, fd)))
		return real(addr, len, prot, flags, fd, off);
	counted = (flags & MAP_FIXED) && adapt_replace_begin();
	ret = real(addr, len, prot, flags, fd, off);
	if (ret != MAP_FAILED)
		after_mmap(ret, len, flags, fd);
	adapt_replace_end(counted);
	return ret;
}

SHIM_EXPORT void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	return map_through(call_mmap, addr, len, prot, flags, fd, off);
}

SHIM_EXPORT void *mmap64(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	return map_through(call_mmap64, addr, len, prot, flags, fd, off);
}

/* The real munmap, then the address space's generation moves on. */
static int munmap_changed(void *addr, size_t len)
{
	int r = call_munmap(addr, len);

	vm_changed();
	return r;
}

SHIM_EXPORT int munmap(void *addr, size_t len)
{
	uintptr_t s = (uintptr_t)addr, e;
	int saved;

	/* Invalid arguments: the kernel refuses, the table must not change. */
	if (!shim_active() || !page_aligned(s) || !len || s + len < s ||
	    !table_nr()) {
		if (likely(!vm_watched()))
			return call_munmap(addr, len);
		return munmap_changed(addr, len);
	}
	e = s + page_up(len);
	saved = errno;
	shim_busy++;
	/* A switch that found the range still there lands first. */
	if (forget_range(s, e))
		adapt_settle();
	shim_busy--;
	errno = saved;
	return munmap_changed(addr, len);
}

/*
 * mremap: the old range leaves the table before the call (as in munmap:
 * once the kernel frees those addresses another thread may map and
 * register something there, which we must not touch), holding a reference
 * on its file; after the call the file is recorded at the new place, or,
 * if the call failed, at the old place again (still mapped then, so nobody
 * else can have taken it).  MREMAP_DONTUNMAP and old_len 0 (duplicating a
 * shared mapping) leave the old range mapped and in the table.
 */
struct remap {
	uintptr_t old;
	uintptr_t old_end;	/* old + old_len in pages */
	size_t old_len, new_len;
	bool keep_old;		/* the old range stays mapped */
	bool dontfork;		/* VM_DONTCOPY moves with the mapping */
	bool readvise;		/* an adaptive file's, asked RANDOM */
	void *file;		/* the old range's file, a reference held */
};

/*
 * The tagged file word the moved range gets: that of the range holding
 * @n->start, with the tag of every range of the same file in [@n->start,
 * @end) merged: a read hint on part of a mapping cut it in pieces
 * (advise.c), and the kernel moves them as one VMA when their flags did
 * not differ.  Pieces asked differently give ASKED_MIXED (a switch leaves
 * the range alone) when one of them was asked RANDOM, else ASKED_OTHER.
 * Write lock held.
 */
static void *moved_word(const struct map_node *n, uintptr_t end)
{
	uintptr_t w = node_word(n), f = w & ~ASKED_MASK, tag = w & ASKED_MASK;
	bool random = tag == ASKED_RANDOM || tag == ASKED_MIXED, differ = false;

	while ((n = maptable_next(&shim.table, n->end)) && n->start < end &&
	       (node_word(n) & ~ASKED_MASK) == f) {
		differ |= (node_word(n) & ASKED_MASK) != tag;
		random |= node_asked(n) == ASKED_RANDOM ||
			  node_asked(n) == ASKED_MIXED;
	}
	if (differ)
		tag = random ? ASKED_MIXED : ASKED_OTHER;
	return (void *)(f | tag);
}

/* Before the call: take the old range out (write lock taken here). */
static void remap_before(struct remap *m)
{
	const struct map_node *n;
	size_t len = m->old_len ? m->old_len : m->new_len;

	shim_wrlock();
	n = maptable_next(&shim.table, m->old);
	if (n && n->start <= m->old) {
		m->file = moved_word(n, m->old_end);
		files_get(m->file);
		m->readvise = ((uintptr_t)m->file & ASKED_MASK) == ASKED_RANDOM &&
			      policy_rule_adaptive(node_file(n)->rule);
		m->dontfork = dontfork_overlaps(m->old, m->old + page_up(len));
		if (!m->keep_old) {
			maptable_unmap(&shim.table, m->old, m->old_end);
			table_changed();
		}
	}
	shim_unlock();
	if (m->file && !m->keep_old)
		adapt_settle();		/* as in munmap */
}

/* After the call returned @ret: record the outcome (write lock here). */
static void remap_after(const struct remap *m, void *ret)
{
	uintptr_t r = (uintptr_t)ret, r_end = r + page_up(m->new_len);

	shim_wrlock();
	if (ret == MAP_FAILED) {
		if (m->file && !m->keep_old &&
		    maptable_map(&shim.table, m->old, m->old_end, m->file))
			STAT_INC(errors);
	} else if (m->file) {
		if (maptable_map(&shim.table, r, r_end, m->file))
			STAT_INC(errors);
		if (!m->keep_old)
			dontfork_forget(m->old, m->old_end);
		if (m->dontfork)
			dontfork_moved(r, r_end);
	} else {
		/* Not a file range we know; whatever it landed on is gone. */
		maptable_unmap(&shim.table, r, r_end);
	}
	if (m->file)
		files_put(m->file);
	table_changed();
	shim_unlock();
}

/*
 * After a successful move of a range asked RANDOM of an adaptive file
 * (switches still held off: adapt.replacing): issue the group's choice
 * on its new place.  A switch whose walk had passed the new place and
 * not yet reached the old one when the range left the table never sees
 * it (the walk goes up the address space), and the kernel moved the
 * VMA's old flags: without this the range would keep the choice before
 * that switch.  The choice is read after replacing was counted, so it
 * is that of every switch whose walk is under way; a switch published
 * later walks after replacing clears and finds the range at its new
 * place.  Raw system call; errno is restored by the caller.
 */
static void remap_readvise(const struct remap *m, void *ret)
{
	if (m->readvise && ret != MAP_FAILED && adapt_decided())
		sys_madvise(ret, page_up(m->new_len),
			    adapt_random_code(MADV_RANDOM));
}

SHIM_EXPORT void *mremap(void *old, size_t old_len, size_t new_len, int flags, ...)
{
	struct remap m = {
		.old = (uintptr_t)old,
		.old_end = (uintptr_t)old + page_up(old_len),
		.old_len = old_len,
		.new_len = new_len,
		.keep_old = !old_len || (flags & MREMAP_DONTUNMAP),
	};
	void *new_addr = NULL, *ret;
	bool counted;
	int saved;
	va_list ap;

	if (flags & MREMAP_FIXED) {
		va_start(ap, flags);
		new_addr = va_arg(ap, void *);
		va_end(ap);
	}
	if (!shim_active() || !table_nr()) {
		ret = call_mremap(old, old_len, new_len, flags, new_addr);
		vm_changed();
		return ret;
	}
	saved = errno;
	shim_busy++;
	/* Held off for every move: see remap_readvise. */
	counted = adapt_replace_begin();
	remap_before(&m);
	errno = saved;
	ret = call_mremap(old, old_len, new_len, flags, new_addr);
	saved = errno;
	vm_changed();
	remap_after(&m, ret);
	remap_readvise(&m, ret);
	adapt_replace_end(counted);
	shim_busy--;
	errno = saved;
	return ret;
}

SHIM_SELF(mmap);
SHIM_SELF(mmap64);
SHIM_SELF(munmap);
SHIM_SELF(mremap);
