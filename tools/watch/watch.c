// SPDX-License-Identifier: MIT
/*
 * watch.c - the top of the watcher: its lifetime (new, settings, free) and
 * the tick that runs the steps of watch_read.c and watch_act.c over the
 * state of watch_state.c: read lru_gen_full, collect a sample per memcg x
 * node, decide for each and act, then forget what vanished.
 */
#include "tools/watch/watch.h"

#include <stdlib.h>
#include <string.h>

#include "tools/watch/watch_int.h"

/* ---- lifetime ---- */

static void params_from_conf(struct watch *w)
{
	w->params = w->conf.det;
	w->params.fault_to_max_seq = w->rules.fault_to_max_seq;
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
		watch_guard_tick(w);	/* cannot age: the marks go */
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
	struct det_out *out = &lv->out;
	const char *event = NULL;
	struct wevent ev;

	watch_check_pending(w, lv);
	det_step(&lv->det, &w->params, &lv->sample, out);
	if (out->thrashing)
		event = "thrash";
	else if (out->episode_ended)
		event = "healthy";
	else if (w->conf.log_decisions)
		event = "decision";
	if (event) {
		watch_lv_event(&ev, event, lv);
		ev.det = out;
		ev.file_min_seq = lv->sample.file_min_seq;
		ev.msg = out->why;
		watch_emit(w, &ev);
	}
	if (out->verdict == DET_AGE)
		watch_act(w, lv, out->steps);
}

static void sweep(struct watch *w)
{
	struct lruvec_state *lv, *tmp;
	size_t i;

	HASH_ITER(hh, w->lruvecs, lv, tmp) {
		if (!lv->seen && !lv->gone)
			watch_mark_gone(w, lv, "memcg no longer in lru_gen");
		if (!lv->seen || lv->gone)
			watch_lv_free(w, lv);
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
	}
	watch_collect(w);
	HASH_ITER(hh, w->lruvecs, lv, tmp)
		if (lv->seen && !lv->gone)
			decide(w, lv);
	sweep(w);
	watch_guard_tick(w);
	return 0;
}

void watch_free(struct watch *w)
{
	if (!w)
		return;
	watch_guard_clear(w);
	watch_state_free(w);
	watch_conf_free(&w->conf);
	free(w->target_seen);
	free(w->target_warned);
	free(w);
}
