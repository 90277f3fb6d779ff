// SPDX-License-Identifier: MIT
/*
 * adapt_table.c - the adaptive advice's side of the mapping table: the
 * `asked` tag of each range (what the application last advised on it),
 * the walks a sample and a switch make over the table.
 *
 * The rule (shim.h's lock protocol; docs/adaptive.md, "The sampler in
 * the shim"): no madvise of the adaptive advice runs under shim.lock.
 * Each side announces, then checks the other's announcement, all with
 * sequentially consistent atomics, so that of two racing parties at least
 * one sees the other:
 *  - an application's read hint on an adaptive range (advise.c) sets the
 *    range's tag (a compare-and-swap under the read lock, adapt_ask), then
 *    reads the generation G and the published choice, releases the lock,
 *    waits out a switch's madvise in flight (adapt_settle), issues its
 *    call and, when its advice is the choice, re-reads the generation: if
 *    it moved and the choice now calls for other advice it issues that
 *    and checks again;
 *  - a switch publishes the choice, then bumps the generation (sampler.c),
 *    then for each range: adds one to adapt.issuing (odd: in flight),
 *    finds under the read lock the next range asked RANDOM (its tag read
 *    then), releases the lock, issues its madvise, adds one again (even).
 *
 * Races, and why each ends with what the application last asked:
 *  - The application's RANDOM on a range asked RANDOM against a switch
 *    from C0 to C1.  Either the switch's bump comes after the call's
 *    re-check (then its tag read, later still, finds the tag: the switch
 *    re-advises the range after the call returned, and C1 lands last), or
 *    the re-check sees the generation move: the choice it reads then is
 *    the one of the last switch published, or of a switch whose walk is
 *    still to visit the range; issued again if it differs.  A call whose
 *    choice read came after the publish issues C1 itself.  Without the
 *    re-check: the call reads C0, the switch publishes C1 and re-advises,
 *    then the call's C0 lands and the range keeps C0 until the next
 *    switch (stress/adapt_race.sh, mode window, shows it).  The rounds of
 *    re-checking are bounded: each needs a switch published during the
 *    previous call, and the sampler switches at most once per sample and
 *    max_per_min times a minute.  Any other change of the generation (a
 *    table change elsewhere) only costs the load: no call is repeated
 *    unless the choice differs.
 *  - The application's other hint (NORMAL, SEQUENTIAL, a part: the tag
 *    becomes OTHER or MIXED) on a range a switch has just found asked
 *    RANDOM, its madvise not yet issued.  The switch's odd add precedes
 *    its tag read; the call's tag store precedes its read of adapt.issuing:
 *    if the switch read the old tag, the call sees the odd count and waits
 *    until that madvise returned (adapt_wait_issued: one madvise, which
 *    only flips VMA flags under the mm's mmap_lock), then lands last.
 *    Any later tag read of a switch sees the new tag and skips the range.
 *  - A call the thread's view decides without any lock (adapt_known.h):
 *    RANDOM on ranges asked RANDOM, no tag change.  The view's stamp is
 *    the generation; the call re-checks it after its system call and, if
 *    it moved, is redone through the locked path above.  If it did not
 *    move, the bump of any switch comes later and so does its walk.
 *  - munmap and mremap: they take the range out of the table under the
 *    write lock before their system call (mapping.c), then adapt_settle.
 *    A switch whose read lock came after that removal does not find the
 *    range; one whose read lock came before had already made issuing odd,
 *    and the unmapping call waits until its madvise returned.  So the
 *    switch's madvise never lands on addresses the kernel has freed, and
 *    a range mapped there later (then inserted under the write lock) is
 *    found, if at all, by a later tag read, with its own tag.
 *    mremap: the moved range keeps its tag, as the VMA keeps its flags;
 *    every mremap is counted in adapt.replacing (below), and a move of a
 *    range asked RANDOM issues the published choice on the new place
 *    before it uncounts itself (mapping.c, remap_readvise): a switch's
 *    walk goes up the address space, so a range moved from above its
 *    position to below it while it waited would otherwise never be
 *    visited and keep the choice before that switch (the stress run's
 *    "1 ranges keep a stale choice").
 *  - A MAP_FIXED mmap (or an MREMAP_FIXED move) over a live range: the
 *    kernel replaces the range before the table learns of it (mapping.c
 *    updates the table after the call), so the call counts itself in
 *    adapt.replacing first, waits out a switch's madvise in flight, and
 *    uncounts itself after its table update; a switch, after its odd add,
 *    finds no range while the count is non-zero and waits for it to
 *    clear.  Of the call's add and the switch's add, whichever comes
 *    second sees the first: the call waits for the madvise (which lands
 *    on the old mapping), or the switch waits for the table update (and
 *    then finds the new range, with its own tag).  A call waits for one
 *    madvise at most; a switch waits for the MAP_FIXED calls in flight
 *    (a steady stream of them from many threads delays the switch, never
 *    the application).  Left open: a program unmapping or
 *    mapping behind the shim's back (raw system calls) can have the one
 *    madvise a switch had in flight land on its new mapping: one read
 *    hint, the same risk the kernel-view fallback runs.
 *  - fork during a switch: the prepare handler takes the write lock, so
 *    no tag is read then, but a madvise may be in flight or the walk cut
 *    between two ranges; the child's handler makes issuing even and
 *    clears adapt.replacing (neither the sampler nor the other threads
 *    are in the child), and the child's new sampler re-applies its first
 *    decision to every range.
 */
#include <errno.h>
#include <sched.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "shim/sampler.h"
#include "shim/view.h"

void adapt_ask(const struct map_node *n, uintptr_t s, uintptr_t e,
	       enum adv_kind kind)
{
	void *w, *to_w;
	enum map_asked old, to;
	bool whole = s <= n->start && e >= n->end;

	/* Other callers tag under the read lock too: compare and swap. */
	w = __atomic_load_n(&n->file, __ATOMIC_RELAXED);
	do {
		old = (enum map_asked)((uintptr_t)w & ASKED_MASK);
		if (kind == ADV_RANDOM)
			to = whole || old == ASKED_RANDOM ? ASKED_RANDOM :
							    ASKED_MIXED;
		else if (whole)
			to = ASKED_OTHER;
		else
			to = old == ASKED_RANDOM || old == ASKED_MIXED ?
			     ASKED_MIXED : ASKED_OTHER;
		if (to == old)
			return;
		to_w = (void *)(((uintptr_t)w & ~ASKED_MASK) | to);
	} while (!__atomic_compare_exchange_n((void **)&n->file, &w, to_w,
					      false, __ATOMIC_SEQ_CST,
					      __ATOMIC_SEQ_CST));
	gen_bump();
}

void adapt_wait_issued(unsigned long seen)
{
	while (__atomic_load_n(&shim.adapt.issuing, __ATOMIC_SEQ_CST) == seen)
		sched_yield();
}

void adapt_replace_done(void)
{
	unsigned long v = __atomic_load_n(&shim.adapt.replacing,
					  __ATOMIC_RELAXED);

	/* Never below 0: a fork child (from a handler) cleared the count. */
	while (v && !__atomic_compare_exchange_n(&shim.adapt.replacing, &v,
						 v - 1, false, __ATOMIC_SEQ_CST,
						 __ATOMIC_RELAXED))
		;
}

/* The range is of a file under random = "adaptive". */
static bool adaptive_range(const struct map_node *n)
{
	return policy_rule_adaptive(node_file(n)->rule);
}

/*
 * Walk the table a leaf at a time under the read lock, calling @visit on
 * every range; the lock is dropped between leaves and the walk resumes
 * after the last range seen, so writers wait for one leaf at most.
 */
static void walk(void (*visit)(const struct map_node *, void *), void *arg)
{
	const struct map_node *n, *r;
	const struct mt_node *leaf;
	uintptr_t pos = 0;
	unsigned int nr, i;

	for (;;) {
		shim_rdlock();
		n = maptable_next_leaf(&shim.table, pos, &leaf);
		if (!n) {
			shim_unlock();
			return;
		}
		r = maptable_leaf_ranges(leaf, &nr);
		for (i = (unsigned int)(n - r); i < nr; i++)
			visit(&r[i], arg);
		pos = r[nr - 1].end;
		shim_unlock();
	}
}

static void slot_path(struct adapt_snap *s, unsigned int i, const char *path)
{
	size_t n = path ? strlen(path) : 0;

	if (n >= ADAPT_PATH_MAX)
		n = 0;
	if (n)
		memcpy(s->path[i], path, n);
	s->path[i][n] = '\0';
}

/*
 * The slot of file (@dev, @ino) in @s, added if there is room, with @path
 * (may be NULL) to read its size again later; or NULL.
 */
static struct advshim_adapt_file *file_slot(struct adapt_snap *s, dev_t dev,
					    ino_t ino, uint64_t size,
					    const char *path)
{
	struct advshim_adapt_file *f;
	unsigned int i;

	for (i = 0; i < s->nr_files; i++) {
		f = &s->files[i];
		if (f->dev != (uint64_t)dev || f->ino != (uint64_t)ino)
			continue;
		if (!s->path[i][0])
			slot_path(s, i, path);
		return f;
	}
	if (s->nr_files == ADVSHIM_ADAPT_FILES)
		return NULL;
	slot_path(s, s->nr_files, path);
	f = &s->files[s->nr_files++];
	*f = (struct advshim_adapt_file){ .dev = dev, .ino = ino, .size = size };
	return f;
}

struct snap_walk {
	struct adapt_snap *s;
	uint64_t step;		/* bytes between windows; 0: one per range */
	uint64_t next;		/* offset of the next window */
};

/* Windows falling in [s, e), which starts at offset s->bytes. */
static void add_windows(struct snap_walk *sw, uintptr_t s, uintptr_t e)
{
	struct adapt_snap *sn = sw->s;
	uintptr_t pg = page_size(), win = ADAPT_WINDOW_PAGES * pg, at;
	uint64_t len = e - s, pages = len / pg, off;

	while (sn->nr_win < ADAPT_WINDOWS && pages &&
	       (sw->step ? sw->next < sn->bytes + len : sw->next == 0)) {
		off = sw->step && sw->next > sn->bytes ? sw->next - sn->bytes : 0;
		at = s + (off & ~(pg - 1));
		if (at + win > e)
			at = pages > ADAPT_WINDOW_PAGES ? e - win : s;
		sn->win[sn->nr_win] = at;
		sn->win_pages[sn->nr_win++] = pages < ADAPT_WINDOW_PAGES ?
			(unsigned int)pages : ADAPT_WINDOW_PAGES;
		if (!sw->step)
			break;		/* one per range */
		sw->next += sw->step;
	}
}

static void snap_visit(const struct map_node *n, void *arg)
{
	struct snap_walk *sw = arg;
	struct adapt_snap *s = sw->s;
	struct shim_file *f = node_file(n);
	struct advshim_adapt_file *slot;
	uint64_t len = n->end - n->start;

	if (!policy_rule_adaptive(f->rule))
		return;
	if (node_asked(n) == ASKED_MIXED)
		s->nr_mixed++;
	if (node_asked(n) != ASKED_RANDOM)
		return;
	add_windows(sw, n->start, n->end);
	s->bytes += len;
	s->nr_ranges++;
	slot = file_slot(s, f->key.dev, f->key.ino, (uint64_t)f->size, f->path);
	if (slot)
		slot->asked_bytes += len;
	else
		s->need += len;	/* beyond the slots: not capped */
	if (!slot)
		s->nr_more++;
}

/* @f's size now, if @path (no lock held) still names that file. */
static void size_now(struct advshim_adapt_file *f, const char *path)
{
	struct stat st;
	int saved = errno;

	if (path[0] && !syscall(SYS_stat, path, &st) &&
	    (uint64_t)st.st_dev == f->dev && (uint64_t)st.st_ino == f->ino &&
	    st.st_size >= 0)
		f->size = (uint64_t)st.st_size;
	errno = saved;
}

void adapt_snapshot(struct adapt_snap *s, const struct adapt_seed *seed,
		    uint64_t prev_bytes)
{
	struct snap_walk sw = { .s = s };
	struct advshim_adapt_file *f;
	unsigned int i;

	*s = (struct adapt_snap){ 0 };
	if (prev_bytes) {
		sw.step = prev_bytes / ADAPT_WINDOWS;
		sw.next = sw.step / 2;
		if (!sw.step)
			sw.step = 1;
	}
	if (seed) {
		f = file_slot(s, seed->dev, seed->ino, seed->size, NULL);
		f->asked_bytes = seed->bytes;
		s->bytes = seed->bytes;
		s->nr_ranges = 1;
	}
	walk(snap_visit, &sw);
	for (i = 0; i < s->nr_files; i++) {
		f = &s->files[i];
		size_now(f, s->path[i]);
		s->need += f->asked_bytes < f->size || !f->size ?
			   f->asked_bytes : f->size;
	}
}

uint64_t adapt_resident(const struct adapt_snap *s)
{
	unsigned char vec[ADAPT_WINDOW_PAGES];
	uint64_t in = 0, all = 0;
	unsigned int i, p;
	int saved = errno;

	for (i = 0; i < s->nr_win; i++) {
		all += s->win_pages[i];
		if (syscall(SYS_mincore, s->win[i],
			    (size_t)s->win_pages[i] * page_size(), vec))
			continue;	/* unmapped since: not resident */
		for (p = 0; p < s->win_pages[i]; p++)
			in += vec[p] & 1;
	}
	errno = saved;
	if (!all)
		return 0;
	return (uint64_t)((unsigned __int128)s->need * in / all);
}

enum next_asked { NA_FOUND, NA_LEAF, NA_END };

/*
 * The first range at or after *@pos in one leaf that is an adaptive
 * file's asked RANDOM (its tag read now, under the read lock taken here:
 * a range unmapped, moved or re-tagged since is not returned), as
 * [*@s, *@e); ranges asked MIXED passed on the way are counted.  Sets
 * *@pos past what was looked at.  NA_LEAF: none in that leaf; NA_END:
 * none left.
 */
static enum next_asked next_asked(uintptr_t *pos, uintptr_t *s, uintptr_t *e,
				  struct adapt_applied *out)
{
	const struct map_node *n, *r;
	const struct mt_node *leaf;
	enum next_asked k = NA_LEAF;
	unsigned int nr, i;
	uintptr_t w;

	shim_rdlock();
	n = maptable_next_leaf(&shim.table, *pos, &leaf);
	if (!n) {
		shim_unlock();
		return NA_END;
	}
	r = maptable_leaf_ranges(leaf, &nr);
	*pos = r[nr - 1].end;
	for (i = (unsigned int)(n - r); i < nr; i++) {
		if (!adaptive_range(&r[i]))
			continue;
		/* Ordered after the `issuing` add (adapt_table.c, top). */
		w = (uintptr_t)__atomic_load_n(&r[i].file, __ATOMIC_SEQ_CST);
		if ((w & ASKED_MASK) == ASKED_MIXED) {
			out->mixed++;
		} else if ((w & ASKED_MASK) == ASKED_RANDOM) {
			*s = r[i].start;
			*e = *pos = r[i].end;
			k = NA_FOUND;
			break;
		}
	}
	shim_unlock();
	return k;
}

void adapt_apply(enum adapt_choice c, struct adapt_applied *out)
{
	int advice = c == ADAPT_NORMAL ? MADV_NORMAL : MADV_RANDOM;
	int saved = errno;
	enum next_asked k;
	uintptr_t pos = 0, s, e;

	*out = (struct adapt_applied){ 0 };
	do {
		/* Odd from before the tag is read until its madvise returned. */
		__atomic_fetch_add(&shim.adapt.issuing, 1, __ATOMIC_SEQ_CST);
		if (__atomic_load_n(&shim.adapt.replacing, __ATOMIC_SEQ_CST))
			k = NA_LEAF;	/* a MAP_FIXED call's turn: wait */
		else
			k = next_asked(&pos, &s, &e, out);
		if (k == NA_FOUND) {
			if (sys_madvise((void *)s, e - s, advice))
				out->errors++;
			else
				out->ranges++;
		}
		__atomic_fetch_add(&shim.adapt.issuing, 1, __ATOMIC_SEQ_CST);
		while (__atomic_load_n(&shim.adapt.replacing, __ATOMIC_SEQ_CST))
			sched_yield();
	} while (k != NA_END);
	errno = saved;
}
