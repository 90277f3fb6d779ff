// SPDX-License-Identifier: MIT
/*
 * watch_metrics.c - the watcher's state in the Prometheus text format.
 */
#include "tools/watch/watch_int.h"

#include "common/prom.h"

static double m_enabled(const struct watch *w)
{
	return w->enabled < -1 ? -1 : w->enabled;
}

static double m_polls(const struct watch *w)
{
	return (double)w->counts.polls;
}

static double m_errors(const struct watch *w)
{
	return (double)(w->counts.error + w->counts.age_failed);
}

static double m_locked_down(const struct watch *w)
{
	return w->no_write;
}

static double m_agings(const struct lruvec_state *lv)
{
	return (double)lv->agings;
}

static double m_failures(const struct lruvec_state *lv)
{
	return (double)lv->failures;
}

static double m_thrashing(const struct lruvec_state *lv)
{
	return lv->det.was_thrashing;
}

static double m_evicted(const struct lruvec_state *lv)
{
	return (double)lv->sample.evicted;
}

static double m_refaulted(const struct lruvec_state *lv)
{
	return (double)lv->sample.refaulted;
}

static double m_oldest(const struct lruvec_state *lv)
{
	return (double)lv->out.oldest;
}

static double m_above(const struct lruvec_state *lv)
{
	return (double)lv->out.above;
}

static double m_max_seq(const struct lruvec_state *lv)
{
	return (double)lv->max_seq;
}

/* One metric: global (.global) or one sample per memcg x node (.lv). */
struct metric {
	const char *name, *type, *help;
	int decimals;			/* of the value */
	double (*global)(const struct watch *w);
	double (*lv)(const struct lruvec_state *lv);
};

static const struct metric metrics[] = {
	{ "lru_gen_enabled", "gauge",
	  "lru_gen core switch as last read (-1 unknown)", 0,
	  .global = m_enabled },
	{ "polls_total", "counter", "intervals polled", 0,
	  .global = m_polls },
	{ "errors_total", "counter", "error events", 0, .global = m_errors },
	{ "writes_locked_down", "gauge", "1 when lockdown forbids writes", 0,
	  .global = m_locked_down },
	{ "agings_total", "counter", "verified aging steps (max_seq moves)", 0, .lv = m_agings },
	{ "age_failures_total", "counter", "failed agings", 0,
	  .lv = m_failures },
	{ "thrashing", "gauge",
	  "1 while the last interval was oldest-generation thrash", 0,
	  .lv = m_thrashing },
	{ "oldest_evicted_pages", "gauge",
	  "file pages evicted from the oldest generation since it took its "
	  "seq (lru_gen_full)", 0, .lv = m_evicted },
	{ "oldest_refaulted_pages", "gauge",
	  "of those, pages refaulted (lru_gen_full)", 0, .lv = m_refaulted },
	{ "oldest_file_pages", "gauge",
	  "file pages in the oldest generation", 0, .lv = m_oldest },
	{ "above_oldest_file_pages", "gauge",
	  "file pages above the oldest generation, less those the kernel "
	  "protected", 0, .lv = m_above },
	{ "max_seq", "gauge", "last max_seq read", 0, .lv = m_max_seq },
};

int watch_write_metrics(struct watch *w, FILE *f)
{
	const struct metric *m;
	struct lruvec_state *lv, *tmp;
	size_t i;

	for (i = 0; i < sizeof(metrics) / sizeof(metrics[0]); i++) {
		m = &metrics[i];
		fprintf(f, "# HELP advshim_watch_%s %s\n"
			"# TYPE advshim_watch_%s %s\n", m->name, m->help,
			m->name, m->type);
		if (m->global) {
			fprintf(f, "advshim_watch_%s %.*f\n", m->name,
				m->decimals, m->global(w));
			continue;
		}
		HASH_ITER(hh, w->lruvecs, lv, tmp) {
			fprintf(f, "advshim_watch_%s{memcg=\"", m->name);
			prom_put_label(f, lv->path);
			fprintf(f, "\",node=\"%d\"} %.*f\n", lv->nid,
				m->decimals, m->lv(lv));
		}
	}
	return ferror(f) ? -1 : 0;
}
