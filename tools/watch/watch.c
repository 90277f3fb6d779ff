// SPDX-License-Identifier: MIT
/*
 * watch.c - the watcher's state (a table per memcg x node, one per memcg),
 * its events, and the tick that runs the steps of the other watch_*.c:
 * read lru_gen, collect samples, refault rates, lru_gen_full counters,
 * decide per memcg x node and act, then forget what vanished.
 */
#include "tools/watch/watch.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "tools/watch/watch_int.h"

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
	ev->refaults_per_s = lv->sample.refaults_per_s;
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

static void params_from_conf(struct watch *w)
{
	w->params = w->conf.det;
	w->params.activations_meaningful = w->rules.activations_meaningful;
}

static int copy_conf(struct watch *w, const struct watch_conf *conf)
{
	struct watch_conf c = *conf;
	bool *seen = NULL, *warned = NULL;

	c.cgroups = NULL;
	c.nr_cgroups = 0;
	if (watch_conf_set_cgroups(&c, conf->cgroups, conf->nr_cgroups))
		return -1;
	if (c.nr_cgroups) {
		seen = calloc(c.nr_cgroups, sizeof(bool));
		warned = calloc(c.nr_cgroups, sizeof(bool));
		if (!seen || !warned) {
			free(seen);
			free(warned);
			watch_conf_free(&c);
			return -1;
		}
	}
	watch_conf_free(&w->conf);
	free(w->target_seen);
	free(w->target_warned);
	w->conf = c;
	w->target_seen = seen;
	w->target_warned = warned;
	params_from_conf(w);
	return 0;
}

struct watch *watch_new(const struct watch_conf *conf,
			const struct kver_rules *rules, bool cgroup_v1,
			const struct watch_io *io, struct wlog *log)
{
	struct watch *w = calloc(1, sizeof(*w));

	if (!w)
		return NULL;
	w->rules = *rules;
	w->cgroup_v1 = cgroup_v1;
	w->io = *io;
	w->log = log;
	w->enabled = -2;
	if (copy_conf(w, conf)) {
		free(w);
		return NULL;
	}
	return w;
}

int watch_set_conf(struct watch *w, const struct watch_conf *conf)
{
	return copy_conf(w, conf);
}

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

struct memcg_state *watch_mc_get(struct watch *w, const char *path)
{
	struct memcg_state *mc;

	HASH_FIND_STR(w->memcgs, path, mc);
	if (mc)
		return mc;
	mc = calloc(1, sizeof(*mc));
	if (!mc)
		return NULL;
	mc->path = strdup(path);
	if (!mc->path) {
		free(mc);
		return NULL;
	}
	mc->refaults_per_s = -1;
	mc->activations_per_s = -1;
	HASH_ADD_KEYPTR(hh, w->memcgs, mc->path, strlen(mc->path), mc);
	return mc;
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

/* ---- the tick ---- */

static bool check_enabled(struct watch *w)
{
	int en = w->io.read_enabled(w->io.ctx);
	struct lruvec_state *lv, *tmp;

	if (en == 0) {
		if (w->enabled != 0)
			watch_emit_global(w, "idle", "lru_gen is disabled "
				    "(kernel/mm/lru_gen/enabled has bit 0x1 "
				    "clear; 'echo y' to it enables it): idling",
				    NULL);
		w->enabled = 0;
		/* history from before is meaningless afterwards */
		HASH_ITER(hh, w->lruvecs, lv, tmp)
			watch_lv_free(w, lv);
		return false;
	}
	if (w->enabled == 0)
		watch_emit_global(w, "start", "lru_gen enabled again: watching",
			    NULL);
	w->enabled = en;
	return true;
}

static void decide(struct watch *w, struct lruvec_state *lv)
{
	struct det_out out;
	struct wevent ev;

	watch_check_pending(w, lv);
	det_step(&lv->det, &w->params, &lv->sample, &out);
	if (out.thrashing) {
		watch_lv_event(&ev, "thrash", lv);
		ev.streak = (int)out.streak;
		ev.msg = out.verdict == DET_AGE ? out.why :
			 det_verdict_name(out.verdict);
		watch_emit(w, &ev);
	} else if (lv->was_thrashing || out.episode_ended) {
		watch_lv_event(&ev, "healthy", lv);
		ev.msg = out.why;
		watch_emit(w, &ev);
	}
	lv->was_thrashing = out.thrashing;
	if (out.verdict == DET_AGE)
		watch_act(w, lv);
}

static void sweep(struct watch *w)
{
	struct lruvec_state *lv, *tmp;
	struct memcg_state *mc, *mtmp;
	size_t i;

	HASH_ITER(hh, w->lruvecs, lv, tmp) {
		if (!lv->seen && !lv->gone)
			watch_mark_gone(w, lv, "memcg no longer in lru_gen");
		if (!lv->seen || lv->gone)
			watch_lv_free(w, lv);
	}
	HASH_ITER(hh, w->memcgs, mc, mtmp) {
		if (mc->seen) {
			mc->seen = false;
			continue;
		}
		HASH_DEL(w->memcgs, mc);
		free(mc->path);
		free(mc);
	}
	for (i = 0; i < w->conf.nr_cgroups; i++) {
		struct wevent ev;

		if (w->target_seen[i] || w->target_warned[i])
			continue;
		w->target_warned[i] = true;
		wevent_init(&ev, "error");
		ev.memcg = w->conf.cgroups[i];
		ev.msg = "watched cgroup is not in lru_gen (yet); will keep "
			 "looking";
		watch_emit(w, &ev);
	}
}

int watch_tick(struct watch *w, uint64_t now_ms)
{
	struct lruvec_state *lv, *tmp;

	w->now_ms = now_ms;
	w->counts.polls++;
	if (!check_enabled(w))
		return 1;
	if (watch_read_main(w))
		return 0;
	HASH_ITER(hh, w->lruvecs, lv, tmp) {
		lv->seen = false;
		lv->gone = false;
		lv->candidate = false;
	}
	watch_collect(w);
	watch_rates(w);
	watch_full_counters(w);
	HASH_ITER(hh, w->lruvecs, lv, tmp)
		if (lv->seen && !lv->gone)
			decide(w, lv);
	sweep(w);
	return 0;
}

const struct watch_counts *watch_counts(const struct watch *w)
{
	return &w->counts;
}

void watch_free(struct watch *w)
{
	struct lruvec_state *lv, *tmp;
	struct memcg_state *mc, *mtmp;

	if (!w)
		return;
	HASH_ITER(hh, w->lruvecs, lv, tmp)
		watch_lv_free(w, lv);
	HASH_ITER(hh, w->memcgs, mc, mtmp) {
		HASH_DEL(w->memcgs, mc);
		free(mc->path);
		free(mc);
	}
	lrugen_snap_free(&w->snap);
	lrugen_snap_free(&w->fresh);
	lrugen_snap_free(&w->full);
	watch_conf_free(&w->conf);
	free(w->target_seen);
	free(w->target_warned);
	free(w);
}
