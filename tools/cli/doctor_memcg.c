// SPDX-License-Identifier: MIT
/*
 * doctor_memcg.c - per memory cgroup: the adaptive rule's verdict (need
 * against capacity, adapt/adapt.c on one sample, the first decision the
 * shim itself would make) and the stall signature now: lru_gen (or
 * lru_gen_full) and memory.stat read twice, d->sample_ms apart, judged
 * by the watcher's own detector (tools/watch/detector.c) with its default
 * settings: thrash = the oldest generation only recycles the working
 * set; stalled = thrash with pages above it that aging would expose
 * (verdicts age, inflow, rate_limited).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/clock.h"
#include "common/guard.h"
#include "common/lrugen.h"
#include "common/memstat.h"
#include "common/readfile.h"
#include "tools/cli/doctor.h"
#include "tools/watch/watch_conf.h"
#include "tools/watch/watch_int.h"

struct doc_memcg *doc_memcg_get(struct doctor *d, const struct cg_where *w)
{
	struct doc_memcg **n, *m;
	size_t i;

	for (i = 0; i < d->nr_memcgs; i++)
		if (d->memcgs[i]->w.version == w->version &&
		    !strcmp(d->memcgs[i]->w.path, w->path))
			return d->memcgs[i];
	if (d->nr_memcgs == d->cap_memcgs) {
		size_t cap = d->cap_memcgs ? 2 * d->cap_memcgs : 8;

		n = realloc(d->memcgs, cap * sizeof(*n));
		if (!n)
			return NULL;
		d->memcgs = n;
		d->cap_memcgs = cap;
	}
	m = calloc(1, sizeof(*m));
	if (!m)
		return NULL;
	m->w = *w;
	d->memcgs[d->nr_memcgs++] = m;
	return m;
}

/* memory.stat of @m into *ms: 0 or a negative errno. */
static int read_memstat(const struct doctor *d, const struct doc_memcg *m,
			struct memstat *ms)
{
	char path[DOC_PATH_MAX + 64];
	size_t len;
	char *buf;
	int r;

	r = cg_file_path(path, sizeof(path), d->root, m->w.version, m->w.path,
			 "memory.stat");
	if (r)
		return r;
	if (read_file(path, &buf, &len, 0))
		return -errno;
	r = memstat_parse(buf, len, ms) ? -EINVAL : 0;
	free(buf);
	return r;
}

/* Sum of the sizes of the rr/sr files mapped in @m, each file once. */
static uint64_t need_of(const struct doctor *d, const struct doc_memcg *m)
{
	const struct doc_file *f, *g;
	uint64_t need = 0;
	size_t i, j, k, l;
	bool seen;

	for (i = 0; i < d->nr_procs; i++) {
		if (d->procs[i].mc != m)
			continue;
		for (j = 0; j < d->procs[i].nr_files; j++) {
			f = &d->procs[i].files[j];
			seen = false;
			for (k = 0; k <= i && !seen; k++) {
				if (d->procs[k].mc != m)
					continue;
				for (l = 0; l < d->procs[k].nr_files && !seen; l++) {
					g = &d->procs[k].files[l];
					if (g == f)
						break;
					seen = g->inode == f->inode &&
					       !strcmp(g->path, f->path);
				}
			}
			if (!seen && f->size > 0)
				need += (uint64_t)f->size;
		}
	}
	return need;
}

/*
 * Why no watcher can write debugfs lru_gen on this host (static), or NULL:
 * lockdown at integrity or above refuses every debugfs file that is
 * writable (LOCKDOWN_DEBUGFS, fs/debugfs/file.c), and without debugfs
 * there is no lru_gen to write.
 */
static const char *write_blocked(const struct doctor *d)
{
	if (!strcmp(d->k.lockdown, "integrity"))
		return "kernel lockdown (integrity) refuses debugfs writes";
	if (!strcmp(d->k.lockdown, "confidentiality"))
		return "kernel lockdown (confidentiality) refuses debugfs writes";
	if (d->k.mglru && d->k.lrugen_errno == ENOENT)
		return "debugfs lru_gen is missing (debugfs not mounted?)";
	return NULL;
}

/* Does watcher @w name memcg @m (no --cgroup: every memcg)? */
static bool names(const struct doc_watcher *w, const struct doc_memcg *m)
{
	size_t j;

	if (!w->nr_cgroups)
		return true;
	for (j = 0; j < w->nr_cgroups; j++)
		if (!strcmp(w->cgroups[j], m->w.path))
			return true;
	return false;
}

/* Sets m->watched, or m->watch_note when the watchers naming @m cannot age. */
static void watched(const struct doctor *d, struct doc_memcg *m)
{
	const char *blocked = write_blocked(d);
	size_t i;

	m->watched = false;
	m->watch_note = NULL;
	for (i = 0; i < d->nr_watchers; i++) {
		if (!names(&d->watchers[i], m))
			continue;
		if (d->watchers[i].dry_run) {
			m->watch_note = "its advshim-watch runs with --dry-run";
			continue;
		}
		if (blocked) {
			m->watch_note = blocked;
			continue;
		}
		m->watched = true;
		m->watch_note = NULL;
		return;
	}
}

/* advshim-watch's mark on @m: m->mark_err, and its age when read. */
static void mark_of(const struct doctor *d, struct doc_memcg *m)
{
	char dir[DOC_PATH_MAX + 64];
	struct timespec ts;
	uint64_t t_s;

	m->guarded = false;
	m->mark_age_s = 0;
	m->mark_err = cg_file_path(dir, sizeof(dir), d->root, m->w.version,
				   m->w.path, ".");
	if (!m->mark_err)
		m->mark_err = guard_read(dir, &t_s);
	if (m->mark_err)
		return;
	clock_gettime(CLOCK_REALTIME, &ts);
	m->mark_age_s = (uint64_t)ts.tv_sec > t_s ? (uint64_t)ts.tv_sec - t_s : 0;
	m->guarded = guard_fresh(t_s, (uint64_t)ts.tv_sec);
}

/* The adaptive rule's first decision on one sample of @m. */
static void adapt_of(const struct doctor *d, struct doc_memcg *m)
{
	struct adapt_params p;
	struct adapt_state st;
	struct adapt_sample x = { .t_ms = 1 };
	struct memstat ms;
	uint64_t total;

	m->fig_err = cg_read_figures(d->root, &m->w, &m->fig);
	if (!m->fig_err)
		m->fig_err = read_memstat(d, m, &ms);
	if (!m->fig_err)
		m->file_bytes = ms.has_file ? ms.file_bytes : 0;
	if (cg_read_meminfo(d->root, &total, &m->mem_avail))
		m->mem_avail = 0;
	x.status = m->fig_err;
	x.limit = m->fig.limit == CG_UNLIMITED ? ADAPT_NO_LIMIT : m->fig.limit;
	x.usage = m->fig.usage;
	x.file = m->file_bytes;
	x.mem_avail = m->mem_avail;
	x.need = m->need;
	adapt_params_default(&p);
	adapt_init(&st, &p, ADAPT_RANDOM);
	m->av = adapt_step(&st, &x);
}

void doc_memcgs_measure(struct doctor *d)
{
	struct doc_memcg *m;
	size_t i, j;

	for (i = 0; i < d->nr_memcgs; i++) {
		m = d->memcgs[i];
		for (j = 0; j < d->nr_procs; j++) {
			if (d->procs[j].mc != m)
				continue;
			m->has_procs = true;
			if (d->procs[j].nr_files)
				m->has_rr = true;
		}
		m->need = need_of(d, m);
		watched(d, m);
		mark_of(d, m);
		adapt_of(d, m);
	}
}

const char *doc_fit_name(const struct doc_memcg *m)
{
	if (!m->has_rr)
		return "none";
	if (m->fig_err || m->av.status)
		return "unknown";
	switch (m->av.reason) {
	case ADAPT_R_FITS: return "fits";
	case ADAPT_R_NOFIT: return "does not fit";
	case ADAPT_R_BAND: return "in between";
	default: break;
	}
	return "unknown";
}

bool doc_stalled(const struct doc_memcg *m)
{
	const struct det_out *o = &m->stall.out;

	/* thrashing with pages above the oldest generation: aging helps */
	return m->stall.sampled && o->thrashing &&
	       (o->verdict == DET_AGE || o->verdict == DET_INFLOW ||
		o->verdict == DET_RATE_LIMITED);
}
