// SPDX-License-Identifier: MIT
/*
 * watch_read.c - what a tick reads: lru_gen_full (lru_gen where it is
 * missing) and each watched memcg x node's sample from it.
 */
#include <errno.h>
#include <string.h>

#include "tools/watch/watch_int.h"

int watch_read_snap(struct watch *w, bool full, struct lrugen_snap *snap,
		    const char **why)
{
	static char msg[LRUGEN_ERR_MSG + 64];
	struct lrugen_err err;
	const char *buf;
	size_t len;

	if (w->io.read_lrugen(w->io.ctx, full, &buf, &len)) {
		*why = strerror(errno);
		return -1;
	}
	if (lrugen_parse(buf, len, snap, &err)) {
		snprintf(msg, sizeof(msg), "%s garbled at line %d: %s",
			 full ? "lru_gen_full" : "lru_gen", err.line, err.msg);
		*why = msg;
		errno = EINVAL;
		return -1;
	}
	if (!snap->nr_memcgs) {
		*why = "lru_gen is empty";
		errno = ENODATA;
		return -1;
	}
	return 0;
}

/*
 * Under lockdown lru_gen (mode 0644) cannot even be opened for reading:
 * debugfs_locked_down() refuses any file with a write bit.  lru_gen_full
 * (0444) stays readable, so the watcher keeps reporting, without writing.
 */
void watch_enter_lockdown(struct watch *w, const char *what)
{
	const char *mode = w->io.lockdown ? w->io.lockdown(w->io.ctx) : NULL;
	char msg[256];

	w->no_write = true;
	snprintf(msg, sizeof(msg),
		 "%s: kernel lockdown%s%s%s forbids debugfs lru_gen writes "
		 "(boot without lockdown=integrity/confidentiality to let "
		 "advshim-watch age); monitoring only", what,
		 mode ? " (" : "", mode ? mode : "", mode ? ")" : "");
	watch_emit_global(w, "error", msg, strerror(EPERM));
}

/*
 * Once: is lru_gen itself readable?  Under lockdown it is not (EPERM),
 * and no write will be either: say so now rather than at the first burst.
 */
static void probe_lockdown(struct watch *w)
{
	const char *why;

	w->probed = true;
	if (watch_read_snap(w, false, &w->fresh, &why) && errno == EPERM)
		watch_enter_lockdown(w, "opening lru_gen failed");
}

/*
 * lru_gen_full is the detector's source (its min_seq rows carry the
 * counters).  Without it (ENOENT) lru_gen stands in: the samples then
 * have no counters and the detector never asks to age; said once.
 */
int watch_read_main(struct watch *w)
{
	const char *why;
	char msg[LRUGEN_ERR_MSG + 96];

	if (!w->probed)
		probe_lockdown(w);
	if (!w->no_full) {
		if (!watch_read_snap(w, true, &w->snap, &why))
			return 0;
		if (errno != ENOENT) {
			snprintf(msg, sizeof(msg), "lru_gen_full: %s; skipping "
				 "this interval (no writes)", why);
			watch_emit_global(w, "error", msg, strerror(errno));
			return -1;
		}
		w->no_full = true;
		watch_emit_global(w, "error", "lru_gen_full is missing: no "
			    "eviction counters, so nothing is ever aged "
			    "(monitoring lru_gen only)", strerror(ENOENT));
	}
	if (!watch_read_snap(w, false, &w->snap, &why))
		return 0;
	snprintf(msg, sizeof(msg), "lru_gen: %s; skipping this interval", why);
	watch_emit_global(w, "error", msg, strerror(errno));
	return -1;
}

void watch_gen_rows(const struct lrugen_node *n, struct det_sample *s)
{
	int i, first = n->nr_gens > DET_MAX_GENS ? n->nr_gens - DET_MAX_GENS :
		       0;

	s->nr_gens = 0;
	for (i = first; i < n->nr_gens; i++) {
		s->gens[s->nr_gens].seq = n->gens[i].seq;
		s->gens[s->nr_gens].file = n->gens[i].file;
		s->nr_gens++;
	}
}

void watch_sample_rep(struct det_sample *s, const struct lrugen_node *n)
{
	s->has_rep = true;
	s->file_min_seq = n->file_min_seq;
	s->refaulted = n->file_refaulted;
	s->evicted = n->file_evicted;
	s->protected = n->file_protected;
}

/* sample - this tick's sample of @lv from its node block @n. */
static void sample(struct watch *w, struct lruvec_state *lv,
		   const struct lrugen_node *n)
{
	lv->max_seq = lrugen_max_seq(n);
	memset(&lv->sample, 0, sizeof(lv->sample));
	lv->sample.now_ms = w->now_ms;
	lv->sample.max_seq = lv->max_seq;
	watch_gen_rows(n, &lv->sample);
	if (n->has_rep)
		watch_sample_rep(&lv->sample, n);
}

/* collect_node - node block @n of memcg @m (at @path) into its state. */
static void collect_node(struct watch *w, const struct lrugen_memcg *m,
			 const char *path, const struct lrugen_node *n)
{
	struct lruvec_state *lv = watch_lv_get(w, path, n->nid, m->id);

	if (!lv)
		return;
	if (lv->seen) {
		/* the same path twice in one read */
		lv->gone = true;
		return;
	}
	if (lv->id != m->id && lv->det.have_prev) {
		watch_mark_gone(w, lv, "memcg recreated at this path (new ID): "
				"starting over");
		lv->gone = false;
		det_init(&lv->det);
		lv->pending = false;
	}
	lv->id = m->id;
	lv->seen = true;
	sample(w, lv, n);
}

void watch_collect(struct watch *w)
{
	const struct lrugen_snap *s = &w->snap;
	const struct lrugen_memcg *m;
	const char *path;
	size_t i, j;

	for (i = 0; i < s->nr_memcgs; i++) {
		m = &s->memcgs[i];
		path = lrugen_path(s, m);
		if (!watch_is_target(w, path))
			continue;
		for (j = 0; j < m->nr_nodes; j++)
			collect_node(w, m, path, &s->nodes[m->first_node + j]);
	}
}
