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

/* A piece the table does not know: ask the kernel what is at @pos. */
static int resolve_gap(struct walk *w, uintptr_t pos, uintptr_t gap_end,
		       uintptr_t *next)
{
	struct kview_vma v;
	struct shim_file *f = NULL;
	const struct policy_rule *rule = NULL;
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
	if (!v.ino || v.path[0] != '/')
		return add_piece(w, pos, e, w->call.advice);		/* anonymous */
	del = strstr(v.path, " (deleted)");
	shim_rdlock();
	f = files_find(v.dev, v.ino);
	if (f) {
		to = decide_piece(w, f, f->rule, f->path, pos, e);
		shim_unlock();
		return add_piece(w, pos, e, to);
	}
	shim_unlock();
	/* Regular files only (not /dev/zero, sockets, deleted files). */
	if (del || syscall(SYS_stat, v.path, &st) || !S_ISREG(st.st_mode) ||
	    st.st_ino != v.ino || st.st_dev != v.dev)
		return add_piece(w, pos, e, w->call.advice);
	rule = policy_match(shim.policy, v.path);
	shim_wrlock();
	f = files_store(&st, v.path, rule);
	to = decide_piece(w, f, f ? f->rule : rule, f ? f->path : v.path, pos, e);
	shim_unlock();
	return add_piece(w, pos, e, to);
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
		f = n->file;
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
		to = ADV_UNKNOWN;
	} else {
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
