// SPDX-License-Identifier: MIT
/*
 * watch_guard.c - the mark on each memcg this watcher ages, for the
 * shim's adaptive advice (common/guard.h): put on the first tick a memcg
 * is watched live, refreshed every GUARD_REFRESH_S and put again at the
 * next tick where it went missing (the memcg re-created at its path,
 * another watcher's exit), removed once the memcg
 * is no longer watched, whenever the watcher cannot age it (a dry run,
 * lockdown, lru_gen disabled, no lru_gen_full, a non-root memcg of
 * cgroup v1 on 7.0+) and at exit.  None while interval_ms is above
 * GUARD_MAX_INTERVAL_MS (the mark would go stale between ticks).  A
 * watcher that dies leaves a mark that goes stale in GUARD_STALE_S.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/guard.h"
#include "tools/watch/watch_int.h"

/*
 * Whether a RANDOM stall in the memcgs this watcher sees will be ended:
 * it writes (no dry run, no lockdown, lru_gen enabled) and its detector
 * has the counters it judges by (lru_gen_full).
 */
static bool ages_live(const struct watch *w)
{
	return w->io.guard && !w->conf.dry_run && !w->no_write &&
	       w->enabled != 0 && !w->no_full;
}

/* The first of the watcher's life; further ones are not logged. */
static void warn_once(struct watch *w, const char *memcg, const char *error,
		      const char *msg)
{
	struct wevent ev;

	if (w->guard_warned)
		return;
	w->guard_warned = true;
	wevent_init(&ev, "error");
	ev.memcg = memcg;
	ev.error = error;
	ev.msg = msg;
	watch_emit(w, &ev);
}

static struct guard_entry *entry_get(struct watch *w, const char *path)
{
	struct guard_entry *g;

	HASH_FIND_STR(w->guards, path, g);
	if (g || !(g = calloc(1, sizeof(*g))))
		return g;
	if (!(g->path = strdup(path))) {
		free(g);
		return NULL;
	}
	HASH_ADD_KEYPTR(hh, w->guards, g->path, strlen(g->path), g);
	return g;
}

/* Forget @g, removing its mark (a memcg already gone has none to remove). */
static void entry_drop(struct watch *w, struct guard_entry *g)
{
	if (g->marked && w->io.guard)
		w->io.guard(w->io.ctx, g->path, false);
	HASH_DEL(w->guards, g);
	free(g->path);
	free(g);
}

/*
 * Whether @g's mark, put less than GUARD_REFRESH_S ago, is gone: the
 * memcg was re-created at its path (a new directory), or another watcher
 * of it exited.  One getxattr a watched memcg a poll; not asked after a
 * failed put (a read-only cgroupfs would fail every poll alike).
 */
static bool mark_gone(struct watch *w, const struct guard_entry *g)
{
	return !g->failed && w->io.guard_there &&
	       w->io.guard_there(w->io.ctx, g->path) == 0;
}

/*
 * Put or refresh @g's mark.  The first failure of the watcher's life is
 * logged (a sandbox that keeps cgroupfs read-only fails them all alike).
 */
static void mark(struct watch *w, struct guard_entry *g)
{
	if (g->marked && w->now_ms - g->marked_ms < GUARD_REFRESH_S * 1000 &&
	    !mark_gone(w, g))
		return;
	g->marked = true;
	g->marked_ms = w->now_ms;
	g->failed = false;
	if (!w->io.guard(w->io.ctx, g->path, true) || errno == ENOENT)
		return;
	g->failed = true;
	warn_once(w, g->path, strerror(errno), "cannot mark the memcg ("
		  GUARD_XATTR ", needs cgroupfs writable there): the shim's "
		  "adaptive advice will not count on this watcher; further "
		  "failures are not logged");
}

_Static_assert(GUARD_MAX_INTERVAL_MS == 20000, "can_mark()'s message");

/* Whether the marks can be kept fresh; says once why not. */
static bool can_mark(struct watch *w)
{
	if (!ages_live(w))
		return false;
	if (w->conf.interval_ms <= GUARD_MAX_INTERVAL_MS)
		return true;
	warn_once(w, NULL, NULL, "interval_ms above 20000: a mark ("
		  GUARD_XATTR ") would go stale between polls, so none is "
		  "put; the shim's adaptive advice will not count on this "
		  "watcher");
	return false;
}

void watch_guard_tick(struct watch *w)
{
	struct lruvec_state *lv, *ltmp;
	struct guard_entry *g, *gtmp;

	HASH_ITER(hh, w->guards, g, gtmp)
		g->seen = false;
	if (can_mark(w))
		HASH_ITER(hh, w->lruvecs, lv, ltmp) {
			if (!lv->seen || lv->gone || !watch_can_age(w, lv->path))
				continue;
			g = entry_get(w, lv->path);
			if (g && !g->seen) {
				g->seen = true;
				mark(w, g);
			}
		}
	HASH_ITER(hh, w->guards, g, gtmp)
		if (!g->seen)
			entry_drop(w, g);
}

void watch_guard_clear(struct watch *w)
{
	struct guard_entry *g, *gtmp;

	HASH_ITER(hh, w->guards, g, gtmp)
		entry_drop(w, g);
}
