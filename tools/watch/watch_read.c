// SPDX-License-Identifier: MIT
/*
 * watch_read.c - what a tick reads from lru_gen: the main snapshot (or,
 * under lockdown, lru_gen_full), each watched memcg x node's sample, and
 * lru_gen_full's refaulted/evicted counters for the candidates.
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

int watch_read_main(struct watch *w)
{
	const char *why;
	char msg[LRUGEN_ERR_MSG + 96];

	if (!w->read_full_only) {
		if (!watch_read_snap(w, false, &w->snap, &why))
			return 0;
		if (errno != EPERM) {
			snprintf(msg, sizeof(msg),
				 "%s; skipping this interval (no writes)", why);
			watch_emit_global(w, "error", msg, strerror(errno));
			return -1;
		}
		w->read_full_only = true;
		watch_enter_lockdown(w, "opening lru_gen failed");
	}
	if (!watch_read_snap(w, true, &w->snap, &why))
		return 0;
	snprintf(msg, sizeof(msg), "lru_gen_full: %s; skipping this interval",
		 why);
	watch_emit_global(w, "error", msg, strerror(errno));
	return -1;
}

/* A hash of a node block's page counts (not its ages). */
static uint64_t counts_sig(const struct lrugen_node *n)
{
	uint64_t h = 1469598103934665603ull;
	int i;

	for (i = 0; i < n->nr_gens; i++) {
		h = (h ^ n->gens[i].seq) * 1099511628211ull;
		h = (h ^ n->gens[i].anon) * 1099511628211ull;
		h = (h ^ n->gens[i].file) * 1099511628211ull;
	}
	return h;
}

static unsigned long file_pages(const struct lrugen_node *n)
{
	unsigned long sum = 0;
	int i;

	for (i = 0; i < n->nr_gens; i++)
		sum += n->gens[i].file;
	return sum;
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
	lv->prev_sig = lv->sig;
	lv->sig = counts_sig(n);
	lv->max_seq = lrugen_max_seq(n);
	lv->youngest_age = lrugen_youngest_age(n);
	memset(&lv->sample, 0, sizeof(lv->sample));
	lv->sample.now_ms = w->now_ms;
	lv->sample.max_seq = lv->max_seq;
	lv->sample.youngest_age_ms = lv->youngest_age;
	lv->sample.refaults_per_s = -1;
	lv->sample.activations_per_s = -1;
	lv->sample.youngest_file = n->gens[n->nr_gens - 1].file;
	lv->sample.file_pages = file_pages(n);
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
		lv->candidate = false;
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
	struct memcg_state *mc;
	const char *path;
	size_t i, j;

	for (i = 0; i < s->nr_memcgs; i++) {
		m = &s->memcgs[i];
		path = lrugen_path(s, m);
		if (!watch_is_target(w, path))
			continue;
		mc = watch_mc_get(w, path);
		if (mc)
			mc->seen = true;
		for (j = 0; j < m->nr_nodes; j++)
			collect_node(w, m, path, &s->nodes[m->first_node + j]);
	}
}

/* Step 3: lru_gen_full's r/e counters, only when someone is a candidate. */
void watch_full_counters(struct watch *w)
{
	struct lruvec_state *lv, *tmp;
	const char *why;
	bool any = false;

	HASH_ITER(hh, w->lruvecs, lv, tmp)
		any |= lv->seen && lv->candidate;
	if (!any || w->no_full)
		return;
	if (watch_read_snap(w, true, &w->full, &why)) {
		if (errno == ENOENT)
			w->no_full = true;
		return;
	}
	HASH_ITER(hh, w->lruvecs, lv, tmp) {
		const struct lrugen_memcg *m;
		const struct lrugen_node *n;
		int nr;

		if (!lv->seen || !lv->candidate)
			continue;
		m = lrugen_find_path(&w->full, lv->path, &nr);
		if (!m || nr != 1 || m->id != lv->id)
			continue;
		n = lrugen_find_node(&w->full, m, lv->nid);
		/* only numbers from the same generation layout count */
		if (!n || !n->has_rep || lrugen_max_seq(n) != lv->max_seq)
			continue;
		watch_sample_rep(&lv->sample, n);
	}
}
