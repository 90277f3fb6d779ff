// SPDX-License-Identifier: MIT
/*
 * doctor_sample.c - the stall signature now.  Two readings d->sample_ms
 * apart, each: debugfs lru_gen_full (lru_gen when that is all there is)
 * once for the host, then memory.stat of every memcg of interest, in
 * that order (tests replay captured text through FIFOs and rely on it).
 * Each memcg x node pair of readings goes through the watcher's detector
 * exactly as advshim-watch samples it (watch_gen_rows, watch_sample_rep),
 * with the watcher's default settings; memory.stat gives the refault rate
 * doctor prints beside the verdict (the detector does not use it).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/clock.h"
#include "common/lrugen.h"
#include "common/memstat.h"
#include "common/readfile.h"
#include "tools/cli/doctor.h"
#include "tools/watch/watch_conf.h"
#include "tools/watch/watch_int.h"

/* One reading of everything. */
struct reading {
	uint64_t t_ms;
	struct lrugen_snap snap;
	struct memstat *ms;		/* per memcg */
	int *ms_err;			/* per memcg: 0 or -errno */
};

static bool of_interest(const struct doc_memcg *m)
{
	return m->has_procs || m->named;
}

static int read_lrugen(const struct doctor *d, struct reading *r)
{
	struct lrugen_err err;
	size_t len;
	char *buf;
	int ret;

	if (read_file_at(d->root, d->k.full ? "/sys/kernel/debug/lru_gen_full" :
			 "/sys/kernel/debug/lru_gen", &buf, &len, 0))
		return -errno;
	ret = lrugen_parse(buf, len, &r->snap, &err) ? -EINVAL : 0;
	free(buf);
	return ret;
}

static int take(const struct doctor *d, struct reading *r)
{
	char path[DOC_PATH_MAX + 64];
	const struct doc_memcg *m;
	size_t i, len;
	char *buf;
	int ret;

	r->t_ms = mono_ms();
	ret = read_lrugen(d, r);
	if (ret)
		return ret;
	for (i = 0; i < d->nr_memcgs; i++) {
		m = d->memcgs[i];
		if (!of_interest(m))
			continue;
		r->ms_err[i] = cg_file_path(path, sizeof(path), d->root,
					    m->w.version, m->w.path, "memory.stat");
		if (r->ms_err[i])
			continue;
		if (read_file(path, &buf, &len, 0)) {
			r->ms_err[i] = -errno;
			continue;
		}
		r->ms_err[i] = memstat_parse(buf, len, &r->ms[i]) ? -EINVAL : 0;
		free(buf);
	}
	return 0;
}

/* The detector's sample of node block @n, as the watcher makes it. */
static void sample_of(const struct lrugen_node *n, uint64_t t_ms,
		      struct det_sample *s)
{
	memset(s, 0, sizeof(*s));
	s->now_ms = t_ms;
	s->max_seq = lrugen_max_seq(n);
	watch_gen_rows(n, s);
	if (n->has_rep)
		watch_sample_rep(s, n);
}

/* File refaults per second between the readings (memory.stat); < 0: none. */
static double refault_rate(const struct memstat *a, const struct memstat *b,
			   uint64_t dt_ms)
{
	if (!dt_ms || !a->has_refault || !b->has_refault ||
	    b->refault_file < a->refault_file)
		return -1;
	return (double)(b->refault_file - a->refault_file) * 1000.0 /
	       (double)dt_ms;
}

/* Judge one node of @m; keep it when it is the most telling so far. */
static void judge_node(const struct det_params *p, struct doc_memcg *m,
		       const struct lrugen_node *na, const struct lrugen_node *nb,
		       const struct reading r[2], size_t i)
{
	struct det_sample a, b;
	struct det_state st;
	struct det_out out;
	struct doc_stall *s = &m->stall;
	double rate = -1;

	sample_of(na, r[0].t_ms, &a);
	sample_of(nb, r[1].t_ms, &b);
	if (!r[0].ms_err[i] && !r[1].ms_err[i])
		rate = refault_rate(&r[0].ms[i], &r[1].ms[i],
				    r[1].t_ms - r[0].t_ms);
	det_init(&st);
	det_step(&st, p, &a, &out);
	det_step(&st, p, &b, &out);
	if (s->listed && (s->out.thrashing || !out.thrashing))
		return;
	s->listed = true;
	s->out = out;
	s->max_seq0 = a.max_seq;
	s->max_seq1 = b.max_seq;
	s->refaults_per_s = rate;
	s->nr_gens = (unsigned int)nb->nr_gens;
	s->file_pages = out.file_pages;
	s->stuck_pages = out.above;
}

static void judge(const struct det_params *p, struct doc_memcg *m, const struct reading r[2], size_t i)
{
	const struct lrugen_memcg *a, *b;
	const struct lrugen_node *na;
	size_t k;
	int n0, n1;

	m->stall.sampled = true;
	m->stall.dt_ms = r[1].t_ms - r[0].t_ms;
	m->stall.refaults_per_s = -1;
	if (r[1].ms_err[i]) {
		m->stall.err = -r[1].ms_err[i];
		m->stall.what = "memory.stat";
	}
	a = lrugen_find_path(&r[0].snap, m->w.path, &n0);
	b = lrugen_find_path(&r[1].snap, m->w.path, &n1);
	if (!a || !b || n0 != 1 || n1 != 1)
		return;		/* not listed, or twice: no judgement */
	for (k = 0; k < b->nr_nodes; k++) {
		const struct lrugen_node *nb = &r[1].snap.nodes[b->first_node + k];

		na = lrugen_find_node(&r[0].snap, a, nb->nid);
		if (na)
			judge_node(p, m, na, nb, r, i);
	}
}

static void params_of(struct det_params *p)
{
	struct watch_conf c;

	watch_conf_defaults(&c);
	*p = c.det;
}

/* Mark every memcg of interest unsampled because of @err (@what). */
static void not_sampled(struct doctor *d, int err, const char *what)
{
	size_t i;

	for (i = 0; i < d->nr_memcgs; i++) {
		d->memcgs[i]->stall.err = err;
		d->memcgs[i]->stall.what = what;
	}
}

static bool wanted(const struct doctor *d)
{
	size_t i;

	if (!d->k.mglru || d->k.enabled <= 0 || !(d->k.enabled & 1) ||
	    !d->sample_ms)
		return false;
	for (i = 0; i < d->nr_memcgs; i++)
		if (of_interest(d->memcgs[i]))
			return true;
	return false;
}

void doc_memcgs_sample(struct doctor *d)
{
	struct reading r[2];
	struct timespec ts = { d->sample_ms / 1000, (d->sample_ms % 1000) * 1000000L };
	struct det_params p;
	int err = 0, k;
	size_t i;

	if (!wanted(d))
		return;
	if (d->k.lrugen_errno) {
		not_sampled(d, d->k.lrugen_errno, "debugfs lru_gen");
		return;
	}
	memset(r, 0, sizeof(r));
	for (k = 0; k < 2; k++) {
		r[k].ms = calloc(d->nr_memcgs, sizeof(*r[k].ms));
		r[k].ms_err = calloc(d->nr_memcgs, sizeof(*r[k].ms_err));
		if (!r[k].ms || !r[k].ms_err)
			err = ENOMEM;
	}
	for (k = 0; k < 2 && !err; k++) {
		if (k)
			while (nanosleep(&ts, &ts) && errno == EINTR)
				;
		err = -take(d, &r[k]);
	}
	if (err)
		not_sampled(d, err, "debugfs lru_gen");
	params_of(&p);
	for (i = 0; !err && i < d->nr_memcgs; i++)
		if (of_interest(d->memcgs[i]))
			judge(&p, d->memcgs[i], r, i);
	for (k = 0; k < 2; k++) {
		lrugen_snap_free(&r[k].snap);
		free(r[k].ms);
		free(r[k].ms_err);
	}
}
