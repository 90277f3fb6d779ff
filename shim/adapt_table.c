// SPDX-License-Identifier: MIT
/*
 * adapt_table.c - the adaptive advice's side of the mapping table: the
 * `asked` tag of each range (what the application last advised on it),
 * the walks a sample and a switch make over the table, and the re-check
 * after a call decided without the lock.
 *
 * Races with the application, and what orders each (the design is in
 * docs/adaptive.md, "The sampler in the shim"):
 *
 *  - Its own madvise/posix_madvise on a range while a switch re-advises
 *    it.  Both hold shim.lock for reading, which does not exclude
 *    readers, so adapt.mu does: an application's call on an adaptive
 *    range sets the tag, reads the published choice and issues its
 *    madvise with adapt.mu held (advise.c), and the switch checks the tag
 *    and issues its madvise with adapt.mu held, range by range.  The
 *    switch publishes the new choice before it walks.  Either the
 *    application's call comes first (then the walk, later, finds the tag
 *    and re-advises), or after the walk's visit of that range: then it
 *    took adapt.mu after the walk released it there, so it reads the new
 *    choice.  A range mapped after the walk passed its address was
 *    inserted under the write lock after the walk's read lock on that
 *    leaf was released, so its first call also reads the new choice.
 *    Without adapt.mu: the application reads C0, the switch publishes C1
 *    and re-advises, then the application's C0 lands and the range keeps
 *    C0 until the next switch.
 *  - A call the thread's view decides without any lock (adapt_known):
 *    the view's extent was learnt at a generation; publishing a choice
 *    bumps the generation before the walk, so a call that read the old
 *    choice is re-checked after its system call: if the
 *    generation moved it is redone under the lock with the current
 *    choice; if not, the call landed before the bump, hence before the
 *    walk's madvise on that range, which wins.
 *  - munmap and mmap over a range: they take the write lock, so they
 *    cannot run while a walk holds the read lock on its leaf; a range
 *    unmapped between two leaves is simply not found.  Only a program
 *    unmapping with a raw system call (behind the shim's back) and
 *    mapping something else there could have that VMA re-advised: one
 *    VMA's read hint, the same risk the kernel-view fallback runs.
 *  - mremap: takes the write lock; the moved range keeps its tag, as the
 *    VMA keeps its flags.
 *  - fork during a switch: the prepare handler takes the write lock and
 *    adapt.mu, so it waits for the leaf being re-advised; the child's new
 *    sampler re-applies its first decision to every range.
 */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "shim/sampler.h"
#include "shim/view.h"

void adapt_ask(const struct map_node *n, uintptr_t s, uintptr_t e,
	       enum adv_kind kind)
{
	uintptr_t w = node_word(n);
	enum map_asked old = (enum map_asked)(w & ASKED_MASK), to;
	bool whole = s <= n->start && e >= n->end;

	if (kind == ADV_RANDOM)
		to = whole || old == ASKED_RANDOM ? ASKED_RANDOM : ASKED_MIXED;
	else if (whole)
		to = ASKED_OTHER;
	else
		to = old == ASKED_RANDOM || old == ASKED_MIXED ? ASKED_MIXED :
							   ASKED_OTHER;
	if (to == old)
		return;
	/* Written with the read lock held: only adapt.mu excludes writers. */
	__atomic_store_n((void **)&n->file, (void *)((w & ~ASKED_MASK) | to),
			 __ATOMIC_RELAXED);
	gen_bump();
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

struct apply_walk {
	int advice;
	struct adapt_applied *out;
};

static void apply_visit(const struct map_node *n, void *arg)
{
	struct apply_walk *aw = arg;

	if (!adaptive_range(n))
		return;
	pthread_mutex_lock(&shim.adapt.mu);
	switch (node_asked(n)) {
	case ASKED_RANDOM:
		if (sys_madvise((void *)n->start, n->end - n->start, aw->advice))
			aw->out->errors++;
		else
			aw->out->ranges++;
		break;
	case ASKED_MIXED:
		aw->out->mixed++;
		break;
	default:
		break;
	}
	pthread_mutex_unlock(&shim.adapt.mu);
}

void adapt_apply(enum adapt_choice c, struct adapt_applied *out)
{
	struct apply_walk aw = {
		.advice = c == ADAPT_NORMAL ? MADV_NORMAL : MADV_RANDOM,
		.out = out,
	};
	int saved = errno;

	*out = (struct adapt_applied){ 0 };
	walk(apply_visit, &aw);
	errno = saved;
}
