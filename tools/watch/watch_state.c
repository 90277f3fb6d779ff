// SPDX-License-Identifier: MIT
/*
 * watch_state.c - the watcher's state tables (per memcg x node, per
 * memcg) and its events: the bottom of tools/watch (see watch_state.h).
 */
#include "tools/watch/watch_state.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- events ---- */

/* The events struct watch_counts counts, and where. */
static const struct {
	const char *event;
	size_t off;
} counted[] = {
	{ "thrash", offsetof(struct watch_counts, thrash) },
	{ "age", offsetof(struct watch_counts, age) },
	{ "would_age", offsetof(struct watch_counts, would_age) },
	{ "age_failed", offsetof(struct watch_counts, age_failed) },
	{ "healthy", offsetof(struct watch_counts, healthy) },
	{ "idle", offsetof(struct watch_counts, idle) },
	{ "vanished", offsetof(struct watch_counts, vanished) },
	{ "error", offsetof(struct watch_counts, error) },
};

static void count_event(struct watch *w, const char *event)
{
	size_t i;

	for (i = 0; i < sizeof(counted) / sizeof(counted[0]); i++)
		if (!strcmp(event, counted[i].event))
			(*(unsigned long *)((char *)&w->counts +
					    counted[i].off))++;
}

void watch_emit(struct watch *w, struct wevent *ev)
{
	count_event(w, ev->event);
	wlog_emit(w->log, w->now_ms, ev);
}

void watch_emit_global(struct watch *w, const char *event, const char *msg,
		       const char *error)
{
	struct wevent ev;

	wevent_init(&ev, event);
	ev.msg = msg;
	ev.error = error;
	watch_emit(w, &ev);
}

void watch_lv_event(struct wevent *ev, const char *event,
		    const struct lruvec_state *lv)
{
	wevent_init(ev, event);
	ev->memcg = lv->path;
	ev->has_id = true;
	ev->id = lv->id;
	ev->node = lv->nid;
	ev->has_seq = true;
	ev->max_seq = lv->max_seq;
}

void watch_mark_gone(struct watch *w, struct lruvec_state *lv,
		     const char *msg)
{
	struct wevent ev;

	watch_lv_event(&ev, "vanished", lv);
	ev.msg = msg;
	watch_emit(w, &ev);
	lv->gone = true;
}

/* ---- state tables ---- */

void watch_lv_free(struct watch *w, struct lruvec_state *lv)
{
	HASH_DEL(w->lruvecs, lv);
	free(lv->key);
	free(lv);
}

struct lruvec_state *watch_lv_get(struct watch *w, const char *path, int nid,
				  uint64_t id)
{
	struct lruvec_state *lv;
	char buf[512], *key = buf;
	int n = snprintf(buf, sizeof(buf), "%d:%s", nid, path);

	/* the common case looks up without allocating */
	if (n < 0)
		return NULL;
	if ((size_t)n >= sizeof(buf) && asprintf(&key, "%d:%s", nid, path) < 0)
		return NULL;
	HASH_FIND_STR(w->lruvecs, key, lv);
	if (lv || !(lv = calloc(1, sizeof(*lv)))) {
		if (key != buf)
			free(key);
		return lv;
	}
	if (key == buf)
		key = strdup(buf);
	if (!key) {
		free(lv);
		return NULL;
	}
	lv->key = key;
	lv->path = key + (strchr(key, ':') - key) + 1;
	lv->nid = nid;
	lv->id = id;
	det_init(&lv->det);
	HASH_ADD_KEYPTR(hh, w->lruvecs, lv->key, strlen(lv->key), lv);
	return lv;
}

bool watch_is_target(struct watch *w, const char *path)
{
	size_t i;

	if (!w->conf.nr_cgroups)
		return true;
	for (i = 0; i < w->conf.nr_cgroups; i++) {
		if (!strcmp(w->conf.cgroups[i], path)) {
			w->target_seen[i] = true;
			return true;
		}
	}
	return false;
}

const struct watch_counts *watch_counts(const struct watch *w)
{
	return &w->counts;
}

void watch_state_free(struct watch *w)
{
	struct lruvec_state *lv, *tmp;

	HASH_ITER(hh, w->lruvecs, lv, tmp)
		watch_lv_free(w, lv);
	lrugen_snap_free(&w->snap);
	lrugen_snap_free(&w->fresh);
}
