// SPDX-License-Identifier: MIT
/*
 * watch_guard.c - the mark on each memcg this watcher ages, for the
 * shim's adaptive advice (common/guard.h): put on the first tick a memcg
 * is watched live, refreshed every GUARD_REFRESH_S, removed once the memcg
 * is no longer watched, whenever the watcher cannot age (a dry run,
 * lockdown, lru_gen disabled) and at exit.  A watcher that dies leaves a
 * mark that goes stale in GUARD_STALE_S.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/guard.h"
#include "tools/watch/watch_int.h"

/* Whether a RANDOM stall in the memcgs this watcher sees will be ended. */
static bool ages_live(const struct watch *w)
{
	return w->io.guard && !w->conf.dry_run && !w->no_write &&
	       w->enabled != 0;
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
 * Put or refresh @g's mark.  The first failure of the watcher's life is
 * logged (a sandbox that keeps cgroupfs read-only fails them all alike).
 */
static void mark(struct watch *w, struct guard_entry *g)
{
	struct wevent ev;

	if (g->marked && w->now_ms - g->marked_ms < GUARD_REFRESH_S * 1000)
		return;
	g->marked = true;
	g->marked_ms = w->now_ms;
	if (!w->io.guard(w->io.ctx, g->path, true) || errno == ENOENT ||
	    w->guard_warned)
		return;
	w->guard_warned = true;
	wevent_init(&ev, "error");
	ev.memcg = g->path;
	ev.error = strerror(errno);
	ev.msg = "cannot mark the memcg (" GUARD_XATTR ", needs cgroupfs "
		 "writable there): the shim's adaptive advice will not count "
		 "on this watcher; further failures are not logged";
	watch_emit(w, &ev);
}

void watch_guard_tick(struct watch *w)
{
	struct lruvec_state *lv, *ltmp;
	struct guard_entry *g, *gtmp;

	HASH_ITER(hh, w->guards, g, gtmp)
		g->seen = false;
	if (ages_live(w))
		HASH_ITER(hh, w->lruvecs, lv, ltmp) {
			if (!lv->seen || lv->gone)
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
