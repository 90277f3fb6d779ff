// SPDX-License-Identifier: MIT
/*
 * advise.c - apply madvise-family advice to a range, piece by piece.
 *
 * A range may cover part of one mapping, several mappings, and gaps.  It
 * is cut at mapping boundaries; each piece gets its file's action (keep,
 * rewrite, skip).  Pieces the table does not know are looked up in the
 * kernel's view (kview.c): file-backed ones get their file's action,
 * anonymous memory and holes keep the caller's advice.  Adjacent pieces
 * with the same resulting advice are merged, so a range nothing changes
 * is issued as one call with the caller's exact arguments.
 *
 * Errors, like the kernel: pieces are issued in address order; a hole
 * (ENOMEM) is remembered and the walk continues, any other error stops it
 * and is returned; ENOMEM is returned at the end if a hole was seen.
 * Skipped pieces issue nothing and count as success.
 *
 * errno: posix_madvise's next definition never changes it; madvise's
 * changes it only when a piece fails, and then the walk returns an error
 * the caller stores in errno anyway.  Only the kernel-view path (its own
 * open, ioctl, stat) saves and restores it, so the common path makes no
 * __errno_location calls.
 */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include "shim/view.h"

struct pending {
	uintptr_t start, end;
	int advice;		/* ADV_SKIP: issue nothing */
};

struct walk {
	struct adv_call call;	/* the caller's advice, for decide() */
	void *addr;		/* the caller's arguments */
	size_t len;
	bool posix;
	struct pending cur;
	bool saw_hole;
	bool adapt_waited;	/* adapt_first() was called once */
	uintptr_t split_tried;	/* 1 + the piece start last cut (or not) */
};

/* Issue one merged piece; returns 0 or an error number. */
static int issue(struct walk *w, const struct pending *p)
{
	void *a = (void *)p->start;
	size_t l = p->end - p->start;
	int r;

	if (p->advice == ADV_SKIP)
		return 0;
	if (a == w->addr && p->advice == w->call.advice &&
	    p->end == (uintptr_t)w->addr + page_up(w->len))
		l = w->len;	/* exactly the caller's call */
	if (w->posix)
		return call_posix_madvise(a, l, p->advice);
	r = call_madvise(a, l, p->advice);
	return r ? errno : 0;
}

static int flush(struct walk *w)
{
	int r;

	if (w->cur.start == w->cur.end)
		return 0;
	r = issue(w, &w->cur);
	w->cur.start = w->cur.end;
	if (r == ENOMEM) {
		w->saw_hole = true;
		return 0;
	}
	return r;
}

/* Add [s, e) with @advice; returns 0 or the error that stops the walk. */
static int add_piece(struct walk *w, uintptr_t s, uintptr_t e, int advice)
{
	int r;

	if (w->cur.end == s && w->cur.advice == advice &&
	    w->cur.start != w->cur.end) {
		w->cur.end = e;
		return 0;
	}
	r = flush(w);
	w->cur.start = s;
	w->cur.end = e;
	w->cur.advice = advice;
	return r;
}

/*
 * The advice to issue for the piece [s, e) of a file (@f: its cache
 * entry, or NULL when it has none), counted and logged.  shim.lock held
 * (either mode) when @f is non-NULL.
 */
static int decide_piece(struct walk *w, struct shim_file *f,
			const struct policy_rule *rule, const char *path,
			uintptr_t s, uintptr_t e)
{
	return decide(&w->call, f, rule, path, (long long)s, (long long)(e - s));
}

/*
 * A file piece [@s, @e) the table did not know (mapped before the shim
 * loaded, or by a raw system call) whose read hint the adaptive advice
 * tracks: record it in the table, so that it is tagged, counted in the
 * group's need and re-advised by switches like any other range.  The
 * write lock held; true if it was recorded.
 */
static bool adopt(struct shim_file *f, uintptr_t s, uintptr_t e,
		  enum adv_kind kind)
{
	if (!adapt_tracks(f->rule, kind) ||
	    maptable_overlaps(&shim.table, s, e) ||
	    maptable_map(&shim.table, s, e, f))
		return false;
	table_changed();
	return true;
}

/* A piece the table does not know: ask the kernel what is at @pos. */
static int resolve_gap(struct walk *w, uintptr_t pos, uintptr_t gap_end,
		       uintptr_t *next)
{
	struct kview_vma v;
	struct shim_file *f = NULL;
	const struct policy_rule *rule = NULL;
	unsigned long gen = vm_watch();
	struct stat st;
	uintptr_t e;
	char *del;
	int to;

	if (kview_query(pos, &v) || v.start >= gap_end) {
		*next = gap_end;	/* a hole: the kernel says ENOMEM */
		return add_piece(w, pos, gap_end, w->call.advice);
	}
	if (v.start > pos) {
		*next = v.start;
		return add_piece(w, pos, v.start, w->call.advice);
	}
	e = v.end < gap_end ? v.end : gap_end;
	*next = e;
	shim_log(POLICY_LOG_DEBUG, "kernel view: %#lx-%#lx %s", (unsigned long)v.start,
		 (unsigned long)v.end, v.path[0] ? v.path : "[anonymous]");
	if (!v.ino || v.path[0] != '/') {
		view_learn_nofile(v.start, v.end, gen);		/* anonymous */
		return add_piece(w, pos, e, w->call.advice);
	}
	del = strstr(v.path, " (deleted)");
	shim_rdlock();
	f = files_find(v.dev, v.ino);
	if (f && !adapt_tracks(f->rule, w->call.kind)) {
		to = decide_piece(w, f, f->rule, f->path, pos, e);
		shim_unlock();
		return add_piece(w, pos, e, to);
	}
	shim_unlock();
	/* Regular files only (not /dev/zero, sockets, deleted files). */
	if (del || syscall(SYS_stat, v.path, &st) || !S_ISREG(st.st_mode) ||
	    st.st_ino != v.ino || st.st_dev != v.dev) {
		view_learn_nofile(v.start, v.end, gen);
		return add_piece(w, pos, e, w->call.advice);
	}
	rule = policy_match(shim.policy, v.path);
	shim_wrlock();
	f = files_store(&st, v.path, rule);
	if (f && adopt(f, pos, e, w->call.kind)) {
		shim_unlock();
		*next = pos;		/* now a table range: walk it again */
		return 0;
	}
	to = decide_piece(w, f, f ? f->rule : rule, f ? f->path : v.path, pos, e);
	shim_unlock();
	return add_piece(w, pos, e, to);
}

/* Issue one adaptive piece on its own; 0 or the error stopping the walk. */
static int issue_alone(struct walk *w, uintptr_t s, uintptr_t e, int advice)
{
	int r = issue(w, &(struct pending){ s, e, advice });

	w->cur.start = w->cur.end = e;
	if (r == ENOMEM) {
		w->saw_hole = true;
		return 0;
	}
	return r;
}

/*
 * Cut the range holding [@s, @e) so that the piece becomes a range of its
 * own, as the kernel splits the VMA when a read hint covers part of it:
 * the piece then carries its own asked tag, and a switch re-advises
 * exactly the ranges asked RANDOM.  Takes the write lock; cuts only while
 * that range is still @f's (@f is compared, never used: the read lock was
 * dropped) and still larger than the piece.  The parts left keep their
 * tag.  On ENOMEM the piece has left the table (maptable_map) and the
 * walk meets it as a gap, which adopt() records again if it can.
 */
static void split_piece(const struct shim_file *f, uintptr_t s, uintptr_t e)
{
	const struct map_node *n;

	shim_wrlock();
	n = maptable_next(&shim.table, s);
	if (n && n->start <= s && e <= n->end && node_file(n) == f &&
	    (n->start < s || e < n->end)) {
		(void)maptable_map(&shim.table, s, e, (void *)f);
		table_changed();
	}
	shim_unlock();
}

/*
 * Issue the adaptive piece [@s, @e) as @to with no lock held (the rule in
 * shim.h): first let a switch's madvise in flight land (adapt_settle: it
 * may have read the range's old tag), then issue; when @to is the group's
 * choice (@chosen; @gen: the generation read after the tag, before the
 * choice), re-check: if the generation moved and the choice now calls for
 * other advice, issue that (counted) and check again.  Each round needs a
 * switch published during the previous call, so the rounds are bounded by
 * the sampler's switches (one per sample at most, max_per_min a minute).
 */
static int adaptive_issue(struct walk *w, uintptr_t s, uintptr_t e, int to,
			  bool chosen, unsigned long gen)
{
	unsigned long now;
	int r, again;

	adapt_settle();
	for (;;) {
		r = issue_alone(w, s, e, to);
		if (!chosen || r)
			return r;
		now = table_gen();
		if (likely(now == gen))
			return 0;
		gen = now;
		again = adapt_random_code(w->call.advice);
		if (again == to)
			return 0;
		decide_count(w->call.advice, again);
		to = again;
	}
}

/*
 * A read hint (NORMAL, RANDOM, SEQUENTIAL) on the piece [@pos, @e) of
 * range @n, a file under random = "adaptive" (shim.lock held for reading,
 * @n from view_find; released here).  The range's tag records it, then
 * the generation and the advice are read, the lock is released and the
 * piece is issued at once, alone (adaptive_issue; adapt_table.c explains
 * the races): RANDOM as the group's choice (or as the caller's when the
 * range is asked RANDOM only in part, which happens only when cutting it
 * failed: no switch touches it), the others as the rule says.  Pending
 * pieces go first, and before the group's first decision a RANDOM piece
 * triggers it (or waits for it); a piece that covers part of its range
 * has the range cut first (once per piece and call): all without the read
 * lock, then the piece is looked up again (*next = @pos).  Returns 0 or
 * the error that stops the walk.
 */
static int adaptive_piece(struct walk *w, const struct map_node *n,
			  uintptr_t pos, uintptr_t e, uintptr_t *next)
{
	struct shim_file *f = node_file(n);
	bool random = w->call.kind == ADV_RANDOM, chosen;
	struct adapt_seed seed;
	unsigned long gen;
	int to, r;

	if (w->cur.start != w->cur.end ||
	    (random && !adapt_decided() && !w->adapt_waited)) {
		seed = (struct adapt_seed){ f->key.dev, f->key.ino,
					    (uint64_t)f->size, e - pos };
		shim_unlock();
		*next = pos;
		r = flush(w);
		if (!r && random && !adapt_decided() && !w->adapt_waited) {
			w->adapt_waited = true;
			adapt_first(&seed);
		}
		return r;
	}
	if ((pos > n->start || e < n->end) && w->split_tried != pos + 1) {
		shim_unlock();
		w->split_tried = pos + 1;
		split_piece(f, pos, e);
		*next = pos;
		return 0;
	}
	adapt_ask(n, pos, e, w->call.kind);
	view_learn(n);
	/* After the tag, before the choice (adapt_table.c, top). */
	gen = table_gen();
	/* A range asked RANDOM only in part keeps the caller's advice. */
	chosen = random && node_asked(n) == ASKED_RANDOM;
	if (random) {
		to = chosen ? adapt_random_code(w->call.advice) :
			      w->call.advice;
		decide_count(w->call.advice, to);
		decide_adaptive_log(&w->call, f, to, pos, e - pos);
	} else {
		to = decide(&w->call, f, f->rule, f->path, (long long)pos,
			    (long long)(e - pos));
	}
	shim_unlock();
	*next = e;
	r = adaptive_issue(w, pos, e, to, chosen, gen);
	adapt_maybe_restart();
	return r;
}

/* The next piece starting at @pos; sets *next past it. */
static int next_piece(struct walk *w, uintptr_t pos, uintptr_t end,
		      uintptr_t *next)
{
	const struct map_node *n;
	struct shim_file *f;
	uintptr_t e;
	int to, saved, r;

	shim_rdlock();
	n = view_find(pos);
	if (n && n->start <= pos) {
		e = n->end < end ? n->end : end;
		f = node_file(n);
		if (unlikely(adapt_tracks(f->rule, w->call.kind)))
			return adaptive_piece(w, n, pos, e, next);
		to = decide_piece(w, f, f->rule, f->path, pos, e);
		view_learn(n);
		shim_unlock();
		*next = e;
		return add_piece(w, pos, e, to);
	}
	e = n && n->start < end ? n->start : end;
	shim_unlock();
	/* The kernel-view path makes system calls of its own. */
	saved = errno;
	r = resolve_gap(w, pos, e, next);
	errno = saved;
	return r;
}

int advise_known(void *addr, size_t len, int advice, enum adv_kind kind)
{
	uintptr_t pos = (uintptr_t)addr, end = pos + page_up(len);
	bool quiet;
	int to;

	if (!page_aligned(pos) || !len || end <= pos)
		return ADV_UNKNOWN;	/* advise_range passes it on as it is */
	shim_busy++;
	if (!view_code(pos, end, kind, &to, &quiet)) {
		/* Memory the kernel said holds no file: as it came, uncounted. */
		to = shim.log_level < POLICY_LOG_DEBUG &&
		     view_nofile(pos, end) ? advice : ADV_UNKNOWN;
	} else if (likely(to > ADV_UNKNOWN)) {	/* not ADV_ADAPT either */
		if (to == ADV_KEEP)
			to = advice;
		if (to != advice && !quiet)
			to = ADV_UNKNOWN;	/* to be logged, under the lock */
		else
			decide_count(advice, to);
	}
	shim_busy--;
	return to;
}

int advise_range(void *addr, size_t len, int advice, enum adv_kind kind,
		 bool posix)
{
	struct walk w = {
		.call = {
			.api = posix ? "posix_madvise" : "madvise",
			.family = ADV_FAMILY_MADVISE,
			.kind = kind,
			.advice = advice,
			.fd = -1,
		},
		.addr = addr, .len = len, .posix = posix,
	};
	uintptr_t pos = (uintptr_t)addr, end = pos + page_up(len), next;
	int r;

	/* What the kernel rejects or ignores as a whole goes as it came. */
	if (!page_aligned(pos) || !len || end <= pos)
		return issue(&w, &(struct pending){ pos, end, advice });
	shim_busy++;
	w.cur.start = w.cur.end = pos;
	w.cur.advice = advice;
	r = 0;
	while (pos < end && !r) {
		r = next_piece(&w, pos, end, &next);
		pos = next;
	}
	if (!r)
		r = flush(&w);
	if (!r && w.saw_hole)
		r = ENOMEM;
	shim_busy--;
	return r;
}
