// SPDX-License-Identifier: MIT
/*
 * watch_rates.c - refault and activation rates from memory.stat, read
 * only where lru_gen says thrash is possible, with a back-off for memcgs
 * far below the threshold.
 */
#include <string.h>

#include "common/memstat.h"
#include "tools/watch/watch_int.h"

/* memory.stat rates for one memcg, once per tick. */
static void update_memcg_rates(struct watch *w, struct memcg_state *mc)
{
	struct memstat ms;
	const char *buf;
	size_t len;
	/* long enough to span the backoff in wants_rates() */
	uint64_t dt, max_gap = 10ull * w->conf.interval_ms + 500;

	if (mc->read_tick == w->counts.polls)
		return;
	mc->read_tick = w->counts.polls;
	mc->refaults_per_s = -1;
	mc->activations_per_s = -1;
	if (w->io.read_memstat(w->io.ctx, mc->path, &buf, &len) ||
	    memstat_parse(buf, len, &ms) || !ms.has_refault) {
		mc->have_prev = false;
		return;
	}
	dt = w->now_ms - mc->prev_ms;
	/* a counter that went down is a new memcg: restart the rate */
	if (mc->have_prev && dt > 0 && dt <= max_gap &&
	    ms.refault_file >= mc->prev_refault) {
		mc->refaults_per_s = (double)(ms.refault_file -
					      mc->prev_refault) * 1000.0 /
				     (double)dt;
		if (ms.has_activate && mc->prev_has_act &&
		    ms.activate_file >= mc->prev_activate)
			mc->activations_per_s =
				(double)(ms.activate_file -
					 mc->prev_activate) * 1000.0 /
				(double)dt;
	}
	mc->have_prev = true;
	mc->prev_ms = w->now_ms;
	mc->prev_refault = ms.refault_file;
	mc->prev_activate = ms.activate_file;
	mc->prev_has_act = ms.has_activate;
}

/*
 * Step 2: refault rates.  Named targets read memory.stat every interval.
 * In all-memcg mode (hundreds of memcgs, most of them fine) a memory.stat
 * read is the dominant cost of a poll, so it is spent only where lru_gen
 * says thrash is possible:
 *  - max_seq moved or the youngest age did not grow: not thrash, no read;
 *  - not a page moved since last interval and the last rate was low: an
 *    idle memcg, rate 0 without reading;
 *  - a rate far below the threshold backs off to every 2nd, 4th, 8th
 *    interval, which costs at most 7 intervals of detection latency for a
 *    memcg that was quiet when its thrash began.
 * Memcgs in an episode, awaiting verification, or seen for the first time
 * (to prime the counters) are always read.
 */
static bool wants_rates(const struct watch *w, struct lruvec_state *lv)
{
	const struct det_state *d = &lv->det;

	if (w->conf.nr_cgroups || d->in_episode || lv->pending ||
	    !d->have_prev)
		return true;
	if (d->prev.max_seq != lv->max_seq ||
	    d->prev.youngest_age_ms >= lv->youngest_age)
		return false;
	if (lv->low && lv->sig == lv->prev_sig) {
		lv->sample.refaults_per_s = 0;
		return false;
	}
	/* backed off: read on every (backoff+1)th poll, staggered by key */
	if (lv->backoff &&
	    (w->counts.polls + lv->hh.hashv) % (lv->backoff + 1u))
		return false;
	return true;
}

static void note_rate(struct watch *w, struct lruvec_state *lv, double rate)
{
	lv->low = rate >= 0 && rate * 4 < w->params.min_refaults_per_s;
	if (!lv->low || w->conf.nr_cgroups) {
		lv->backoff = 0;
		return;
	}
	lv->backoff = lv->backoff ? (lv->backoff * 2 + 1 > 7 ? 7 :
				     lv->backoff * 2 + 1) : 1;
}

void watch_rates(struct watch *w)
{
	struct lruvec_state *lv, *tmp;
	struct memcg_state *mc;

	HASH_ITER(hh, w->lruvecs, lv, tmp) {
		if (!lv->seen || lv->gone || !wants_rates(w, lv))
			continue;
		mc = watch_mc_get(w, lv->path);
		if (!mc)
			continue;
		update_memcg_rates(w, mc);
		lv->sample.refaults_per_s = mc->refaults_per_s;
		lv->sample.activations_per_s = mc->activations_per_s;
		note_rate(w, lv, mc->refaults_per_s);
		lv->candidate = !w->snap.full && lv->det.have_prev &&
				lv->det.prev.max_seq == lv->max_seq &&
				mc->refaults_per_s >=
				w->params.min_refaults_per_s;
	}
}
