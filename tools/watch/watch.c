// SPDX-License-Identifier: MIT
/*
 * watch.c - one poll: read lru_gen (and, when it helps, lru_gen_full and
 * memory.stat), run each memcg x node's detector, and act on its verdict.
 *
 * Safety rules, in the order act() applies them:
 *  - re-read lru_gen right before writing; resolve the memcg ID from its
 *    path in that fresh read (IDs are reused on 6.x), and do not write if
 *    the path is gone, printed twice, carries another ID than when the
 *    thrash was seen, or max_seq moved meanwhile;
 *  - one write(2) per command; then re-read and verify max_seq advanced;
 *  - anything unparsable means no write this interval.
 */
#include "tools/watch/watch.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <uthash.h>

#include "tools/watch/detector.h"
#include "tools/watch/lrugen.h"
#include "tools/watch/memstat.h"

#define CMD_MAX 320	/* a burst: up to DET_MAX_GENS commands */

/* Per memcg (memory.stat is per memcg, not per node). */
struct memcg_state {
	UT_hash_handle hh;
	char *path;		/* key */
	bool have_prev;
	uint64_t prev_ms, prev_refault, prev_activate;
	bool prev_has_act;
	unsigned long read_tick;	/* poll of the last rate computation */
	double refaults_per_s, activations_per_s;	/* < 0 unknown */
	bool seen;
};

/* Per memcg x node. */
struct lruvec_state {
	UT_hash_handle hh;
	char *key;		/* "nid:path" */
	char *path;
	int nid;
	uint64_t id;
	struct det_state det;
	bool seen;
	bool gone;		/* act() found it vanished */
	bool was_thrashing;
	bool explicit_force;	/* ERANGE seen: force_scan spelled out */
	bool pending;		/* write succeeded, advance not yet seen */
	unsigned long pending_from;
	char pending_cmd[CMD_MAX];
	/* this tick's sample */
	unsigned long max_seq, youngest_age;
	bool candidate;
	struct det_sample sample;
	/* memory.stat economy in all-memcg mode (see wants_rates) */
	uint64_t sig, prev_sig;		/* hash of the page counts */
	bool low;			/* last rate far below threshold */
	unsigned int backoff;		/* 0, 1, 3, 7: polls skipped */
	/* metrics */
	unsigned long agings, failures;
};

struct watch {
	struct watch_conf conf;
	struct det_params params;
	struct kver_rules rules;
	bool cgroup_v1;
	struct watch_io io;
	struct wlog *log;
	struct lrugen_snap snap, fresh, full;
	struct lruvec_state *lruvecs;
	struct memcg_state *memcgs;
	bool *target_seen;		/* per conf.cgroups[i]: ever seen */
	bool *target_warned;
	bool idle;
	bool started;
	bool no_write;			/* lockdown: writes are refused */
	bool read_full_only;		/* lockdown: lru_gen unreadable */
	bool no_full;			/* lru_gen_full absent */
	int enabled;			/* last read of lru_gen/enabled */
	uint64_t now_ms;
	struct watch_counts counts;
};

/* ------------------------------------------------------------------ */
/* logging helpers                                                     */

static void count_event(struct watch *w, const char *event)
{
	struct watch_counts *c = &w->counts;

	if (!strcmp(event, "thrash"))
		c->thrash++;
	else if (!strcmp(event, "age"))
		c->age++;
	else if (!strcmp(event, "would_age"))
		c->would_age++;
	else if (!strcmp(event, "age_failed"))
		c->age_failed++;
	else if (!strcmp(event, "healthy"))
		c->healthy++;
	else if (!strcmp(event, "idle"))
		c->idle++;
	else if (!strcmp(event, "vanished"))
		c->vanished++;
	else if (!strcmp(event, "error"))
		c->error++;
}

static void emit(struct watch *w, struct wevent *ev)
{
	count_event(w, ev->event);
	wlog_emit(w->log, w->now_ms, ev);
}

static void emit_global(struct watch *w, const char *event, const char *msg,
			const char *error)
{
	struct wevent ev;

	wevent_init(&ev, event);
	ev.msg = msg;
	ev.error = error;
	emit(w, &ev);
}

/* An event about @lv with its current numbers. */
static void lv_event(struct watch *w, struct wevent *ev, const char *event,
		     const struct lruvec_state *lv)
{
	(void)w;
	wevent_init(ev, event);
	ev->memcg = lv->path;
	ev->has_id = true;
	ev->id = lv->id;
	ev->node = lv->nid;
	ev->has_seq = true;
	ev->max_seq = lv->max_seq;
	ev->refaults_per_s = lv->sample.refaults_per_s;
}

/* ------------------------------------------------------------------ */
/* state tables                                                        */

static void params_from_conf(struct watch *w)
{
	w->params.persist = w->conf.persist;
	w->params.min_refaults_per_s = w->conf.min_refaults_per_s;
	w->params.max_activations_pct = w->conf.max_activations_pct;
	w->params.activations_meaningful = w->rules.activations_meaningful;
	w->params.max_agings_per_min = w->conf.max_agings_per_min;
	w->params.max_steps = w->conf.max_steps;
	w->params.cooldown_ms = w->conf.cooldown_ms;
	w->params.min_spacing_ms = w->conf.min_age_spacing_ms;
	w->params.max_youngest_growth_pct = w->conf.max_youngest_growth_pct;
	w->params.min_stuck_pct = w->conf.min_stuck_pct;
	w->params.max_burst = w->conf.max_burst;
	w->params.drain_timeout_ms = w->conf.drain_timeout_ms;
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

static void lv_free(struct watch *w, struct lruvec_state *lv)
{
	HASH_DEL(w->lruvecs, lv);
	free(lv->key);
	free(lv);
}

static struct lruvec_state *lv_get(struct watch *w, const char *path,
				   int nid, uint64_t id)
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

static struct memcg_state *mc_get(struct watch *w, const char *path)
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

static bool is_target(struct watch *w, const char *path)
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

/* ------------------------------------------------------------------ */
/* reading                                                             */

static int read_snap(struct watch *w, bool full, struct lrugen_snap *snap,
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
static void enter_lockdown(struct watch *w, const char *what)
{
	const char *mode = w->io.lockdown ? w->io.lockdown(w->io.ctx) : NULL;
	char msg[256];

	w->no_write = true;
	snprintf(msg, sizeof(msg),
		 "%s: kernel lockdown%s%s%s forbids debugfs lru_gen writes "
		 "(boot without lockdown=integrity/confidentiality to let "
		 "advshim-watch age); monitoring only", what,
		 mode ? " (" : "", mode ? mode : "", mode ? ")" : "");
	emit_global(w, "error", msg, strerror(EPERM));
}

static int read_main_snapshot(struct watch *w)
{
	const char *why;
	char msg[LRUGEN_ERR_MSG + 96];

	if (!w->read_full_only) {
		if (!read_snap(w, false, &w->snap, &why))
			return 0;
		if (errno != EPERM) {
			snprintf(msg, sizeof(msg),
				 "%s; skipping this interval (no writes)", why);
			emit_global(w, "error", msg, strerror(errno));
			return -1;
		}
		w->read_full_only = true;
		enter_lockdown(w, "opening lru_gen failed");
	}
	if (!read_snap(w, true, &w->snap, &why))
		return 0;
	snprintf(msg, sizeof(msg), "lru_gen_full: %s; skipping this interval",
		 why);
	emit_global(w, "error", msg, strerror(errno));
	return -1;
}

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

/* ------------------------------------------------------------------ */
/* acting                                                              */

enum resolve {
	RES_OK,
	RES_GONE,		/* path no longer printed */
	RES_AMBIGUOUS,		/* path printed more than once */
	RES_RECREATED,		/* same path, other ID */
	RES_NO_NODE,
	RES_UNREADABLE,
};

static enum resolve resolve(struct watch *w, const struct lruvec_state *lv,
			    unsigned long *max_seq, uint64_t *id,
			    const char **why)
{
	const struct lrugen_memcg *m;
	const struct lrugen_node *n;
	int nr;

	if (read_snap(w, w->read_full_only, &w->fresh, why))
		return RES_UNREADABLE;
	m = lrugen_find_path(&w->fresh, lv->path, &nr);
	if (!m)
		return RES_GONE;
	*id = m->id;
	if (nr > 1)
		return RES_AMBIGUOUS;
	if (m->id != lv->id)
		return RES_RECREATED;
	n = lrugen_find_node(&w->fresh, m, lv->nid);
	if (!n)
		return RES_NO_NODE;
	*max_seq = lrugen_max_seq(n);
	return RES_OK;
}

static void mark_gone(struct watch *w, struct lruvec_state *lv,
		      const char *msg)
{
	struct wevent ev;

	lv_event(w, &ev, "vanished", lv);
	ev.msg = msg;
	emit(w, &ev);
	lv->gone = true;
}

/* Refuse before writing; returns true if refused (and logged). */
static bool refuse(struct watch *w, struct lruvec_state *lv,
		   enum resolve r, unsigned long fresh_seq, uint64_t fresh_id,
		   const char *why)
{
	struct wevent ev;
	char msg[192];

	switch (r) {
	case RES_OK:
		if (fresh_seq == lv->max_seq)
			return false;
		lv_event(w, &ev, "healthy", lv);
		snprintf(msg, sizeof(msg),
			 "max_seq moved to %lu before our write: the kernel "
			 "aged it, not writing", fresh_seq);
		ev.msg = msg;
		emit(w, &ev);
		return true;
	case RES_GONE:
		mark_gone(w, lv, "memcg removed before our write; not writing");
		return true;
	case RES_RECREATED:
		snprintf(msg, sizeof(msg),
			 "path now belongs to memcg ID %llu (recreated); not "
			 "writing to either", (unsigned long long)fresh_id);
		mark_gone(w, lv, msg);
		return true;
	case RES_AMBIGUOUS:
		lv_event(w, &ev, "error", lv);
		ev.msg = "path printed by more than one memcg (a dying one "
			 "and its successor?); not writing";
		emit(w, &ev);
		return true;
	case RES_NO_NODE:
		lv_event(w, &ev, "error", lv);
		ev.msg = "node block missing in the fresh read; not writing";
		emit(w, &ev);
		return true;
	case RES_UNREADABLE:
		lv_event(w, &ev, "error", lv);
		snprintf(msg, sizeof(msg), "re-read before writing failed: %s; "
			 "not writing", why);
		ev.msg = msg;
		emit(w, &ev);
		return true;
	}
	return true;
}

static void age_failed(struct watch *w, struct lruvec_state *lv,
		       const char *cmd, int err, const char *msg)
{
	struct wevent ev;

	lv_event(w, &ev, "age_failed", lv);
	ev.cmd = cmd;
	ev.error = strerror(err);
	ev.msg = msg;
	emit(w, &ev);
	lv->failures++;
	det_failed(&lv->det, w->now_ms);
}

static void aged(struct watch *w, struct lruvec_state *lv, const char *cmd,
		 unsigned long before, unsigned long after)
{
	struct wevent ev;
	char msg[96];

	lv->max_seq = after;
	lv_event(w, &ev, "age", lv);
	ev.cmd = cmd;
	snprintf(msg, sizeof(msg), "max_seq %lu -> %lu", before, after);
	ev.msg = msg;
	emit(w, &ev);
	lv->agings += after - before;
	det_aged(&lv->det, w->now_ms, after);
}

/* After the write: what does lru_gen say now? */
static void verify(struct watch *w, struct lruvec_state *lv, const char *cmd,
		   unsigned long before)
{
	unsigned long now_seq = 0;
	uint64_t id = 0;
	const char *why = NULL;
	enum resolve r = resolve(w, lv, &now_seq, &id, &why);

	if (r == RES_OK && now_seq > before) {
		aged(w, lv, cmd, before, now_seq);
		return;
	}
	if (r == RES_GONE || r == RES_RECREATED) {
		mark_gone(w, lv, "memcg removed right after our write");
		return;
	}
	/* 6.1-6.13 ignore a walk that lost a race: check next interval */
	lv->pending = true;
	lv->pending_from = before;
	snprintf(lv->pending_cmd, sizeof(lv->pending_cmd), "%s", cmd);
}

static void handle_write_error(struct watch *w, struct lruvec_state *lv,
			       const char *cmd, int err, unsigned long before)
{
	unsigned long now_seq = 0;
	uint64_t id = 0;
	const char *why = NULL;
	enum resolve r;
	char msg[160];

	switch (err) {
	case EPERM:
	case EACCES:
		age_failed(w, lv, cmd, err, "write refused");
		enter_lockdown(w, "writing lru_gen failed");
		/* the episode goes on (and ends) as if we had stepped */
		det_dry_aged(&lv->det, w->now_ms);
		return;
	case ERANGE:
		lv->explicit_force = w->rules.seq_exact;
		age_failed(w, lv, cmd, err,
			   "the kernel wants force_scan spelled out (its "
			   "default is not 1 here); next attempt adds \"1 1\"");
		return;
	case EINVAL:
	case EEXIST:
		break;
	default:
		age_failed(w, lv, cmd, err, "write to lru_gen failed");
		return;
	}
	r = resolve(w, lv, &now_seq, &id, &why);
	if (r == RES_GONE || r == RES_RECREATED) {
		age_failed(w, lv, cmd, err, "the memcg vanished under the "
			   "write (unknown IDs are EINVAL)");
		mark_gone(w, lv, "memcg removed during our write");
		return;
	}
	if (r == RES_OK && now_seq > before) {
		snprintf(msg, sizeof(msg), "%s: max_seq %lu -> %lu anyway",
			 err == EEXIST ? "another walker aged it" :
			 "the kernel aged it concurrently", before, now_seq);
		age_failed(w, lv, cmd, err, msg);
		/* the generation we wanted exists: the episode goes on */
		lv->max_seq = now_seq;
		det_aged(&lv->det, w->now_ms, now_seq);
		return;
	}
	age_failed(w, lv, cmd, err, err == EEXIST ?
		   "nothing aged (the walk for this max_seq already ran)" :
		   "the kernel rejected the command");
}

/*
 * The commands of a burst of @steps, one per max_seq from the current
 * one, joined by ';' (lru_gen_seq_write runs them in order and stops at
 * the first error).  Returns the length, or -1 (errno from
 * age_cmd_format).
 */
static int burst_format(struct watch *w, const struct lruvec_state *lv,
			unsigned int steps, char *buf, size_t size)
{
	unsigned int i;
	int len = 0, n;

	for (i = 0; i < steps; i++) {
		if (i) {
			if ((size_t)len + 1 >= size)
				return -1;
			buf[len++] = ';';
		}
		n = age_cmd_format(buf + len, size - (size_t)len, &w->rules,
				   lv->id, lv->nid, lv->max_seq + i,
				   lv->explicit_force);
		if (n < 0)
			return -1;
		len += n;
	}
	return len;
}

static void act(struct watch *w, struct lruvec_state *lv, unsigned int steps)
{
	char cmd[CMD_MAX], line[CMD_MAX + 1];
	unsigned long fresh_seq = 0;
	uint64_t fresh_id = 0;
	const char *why = NULL;
	struct wevent ev;
	enum resolve r;
	int len;

	if (w->rules.v1_root_only && w->cgroup_v1 && strcmp(lv->path, "/")) {
		age_failed(w, lv, NULL, EINVAL, "kernel 7.0+ with cgroup v1 "
			   "can only age the root memcg (IDs are cgroup2 IDs)");
		return;
	}
	len = burst_format(w, lv, steps ? steps : 1, cmd, sizeof(cmd));
	if (len < 0) {
		lv_event(w, &ev, "error", lv);
		ev.msg = "memcg ID too wide for this kernel; not writing";
		emit(w, &ev);
		return;
	}
	if (w->conf.dry_run) {
		lv_event(w, &ev, "would_age", lv);
		ev.cmd = cmd;
		ev.msg = "dry run: not written";
		emit(w, &ev);
		det_dry_aged(&lv->det, w->now_ms);
		return;
	}
	if (w->no_write) {
		/*
		 * Counted like a dry-run step, so max_steps and the cooldown
		 * bound how often this is said during one long stall.
		 */
		lv_event(w, &ev, "age_failed", lv);
		ev.cmd = cmd;
		ev.error = strerror(EPERM);
		ev.msg = "kernel lockdown: not writing";
		emit(w, &ev);
		lv->failures++;
		det_dry_aged(&lv->det, w->now_ms);
		return;
	}
	r = resolve(w, lv, &fresh_seq, &fresh_id, &why);
	if (refuse(w, lv, r, fresh_seq, fresh_id, why))
		return;
	/* the fresh read agrees with what was detected: one write(2) */
	memcpy(line, cmd, (size_t)len);
	line[len] = '\n';
	w->counts.writes++;
	if (w->io.write_cmd(w->io.ctx, line, (size_t)len + 1)) {
		handle_write_error(w, lv, cmd, errno, fresh_seq);
		return;
	}
	verify(w, lv, cmd, fresh_seq);
}

/* ------------------------------------------------------------------ */
/* the tick                                                            */

static bool check_enabled(struct watch *w)
{
	int en = w->io.read_enabled(w->io.ctx);
	struct lruvec_state *lv, *tmp;

	if (en == 0) {
		if (w->enabled != 0)
			emit_global(w, "idle", "lru_gen is disabled "
				    "(kernel/mm/lru_gen/enabled has bit 0x1 "
				    "clear; 'echo y' to it enables it): idling",
				    NULL);
		w->enabled = 0;
		/* history from before is meaningless afterwards */
		HASH_ITER(hh, w->lruvecs, lv, tmp)
			lv_free(w, lv);
		return false;
	}
	if (w->enabled == 0)
		emit_global(w, "start", "lru_gen enabled again: watching",
			    NULL);
	w->enabled = en;
	return true;
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

/* The node's generation rows (seq, file pages), oldest first. */
static void gen_rows(const struct lrugen_node *n, struct det_sample *s)
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

/* Step 1: samples from the main snapshot. */
static void collect(struct watch *w)
{
	const struct lrugen_snap *s = &w->snap;
	struct lruvec_state *lv;
	size_t i, j;

	for (i = 0; i < s->nr_memcgs; i++) {
		const struct lrugen_memcg *m = &s->memcgs[i];
		const char *path = lrugen_path(s, m);
		struct memcg_state *mc;

		if (!is_target(w, path))
			continue;
		mc = mc_get(w, path);
		if (mc)
			mc->seen = true;
		for (j = 0; j < m->nr_nodes; j++) {
			const struct lrugen_node *n =
				&s->nodes[m->first_node + j];

			lv = lv_get(w, path, n->nid, m->id);
			if (!lv)
				continue;
			if (lv->seen) {
				/* the same path twice in one read */
				lv->candidate = false;
				lv->gone = true;
				continue;
			}
			if (lv->id != m->id && lv->det.have_prev) {
				mark_gone(w, lv, "memcg recreated at this path "
					  "(new ID): starting over");
				lv->gone = false;
				det_init(&lv->det);
				lv->pending = false;
			}
			lv->id = m->id;
			lv->seen = true;
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
			gen_rows(n, &lv->sample);
			if (n->has_rep) {
				lv->sample.has_rep = true;
				lv->sample.file_min_seq = n->file_min_seq;
				lv->sample.refaulted = n->file_refaulted;
				lv->sample.evicted = n->file_evicted;
			}
		}
	}
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
	lv->low = rate >= 0 && rate * 4 < w->conf.min_refaults_per_s;
	if (!lv->low || w->conf.nr_cgroups) {
		lv->backoff = 0;
		return;
	}
	lv->backoff = lv->backoff ? (lv->backoff * 2 + 1 > 7 ? 7 :
				     lv->backoff * 2 + 1) : 1;
}

static void rates(struct watch *w)
{
	struct lruvec_state *lv, *tmp;
	struct memcg_state *mc;

	HASH_ITER(hh, w->lruvecs, lv, tmp) {
		if (!lv->seen || lv->gone || !wants_rates(w, lv))
			continue;
		mc = mc_get(w, lv->path);
		if (!mc)
			continue;
		update_memcg_rates(w, mc);
		lv->sample.refaults_per_s = mc->refaults_per_s;
		lv->sample.activations_per_s = mc->activations_per_s;
		note_rate(w, lv, mc->refaults_per_s);
		lv->candidate = !w->snap.full && lv->det.have_prev &&
				lv->det.prev.max_seq == lv->max_seq &&
				mc->refaults_per_s >= w->conf.min_refaults_per_s;
	}
}

/* Step 3: lru_gen_full's r/e counters, only when someone is a candidate. */
static void full_counters(struct watch *w)
{
	struct lruvec_state *lv, *tmp;
	const char *why;
	bool any = false;

	HASH_ITER(hh, w->lruvecs, lv, tmp)
		any |= lv->seen && lv->candidate;
	if (!any || w->no_full)
		return;
	if (read_snap(w, true, &w->full, &why)) {
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
		lv->sample.has_rep = true;
		lv->sample.file_min_seq = n->file_min_seq;
		lv->sample.refaulted = n->file_refaulted;
		lv->sample.evicted = n->file_evicted;
	}
}

static void check_pending(struct watch *w, struct lruvec_state *lv)
{
	if (!lv->pending)
		return;
	lv->pending = false;
	if (lv->max_seq > lv->pending_from) {
		unsigned long after = lv->max_seq;

		aged(w, lv, lv->pending_cmd, lv->pending_from, after);
		return;
	}
	age_failed(w, lv, lv->pending_cmd, EAGAIN, "write accepted but "
		   "max_seq did not advance (6.1-6.13 ignore a walk that lost "
		   "a race)");
}

static void decide(struct watch *w, struct lruvec_state *lv)
{
	struct det_out out;
	struct wevent ev;

	check_pending(w, lv);
	det_step(&lv->det, &w->params, &lv->sample, &out);
	if (out.thrashing) {
		lv_event(w, &ev, "thrash", lv);
		ev.streak = (int)out.streak;
		ev.msg = out.verdict == DET_AGE ? out.why :
			 det_verdict_name(out.verdict);
		emit(w, &ev);
	} else if (lv->was_thrashing || out.episode_ended) {
		lv_event(w, &ev, "healthy", lv);
		ev.msg = out.why;
		emit(w, &ev);
	}
	lv->was_thrashing = out.thrashing;
	if (out.verdict == DET_AGE)
		act(w, lv, out.steps);
}

static void sweep(struct watch *w)
{
	struct lruvec_state *lv, *tmp;
	struct memcg_state *mc, *mtmp;
	size_t i;

	HASH_ITER(hh, w->lruvecs, lv, tmp) {
		if (!lv->seen && !lv->gone)
			mark_gone(w, lv, "memcg no longer in lru_gen");
		if (!lv->seen || lv->gone)
			lv_free(w, lv);
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
		emit(w, &ev);
	}
}

int watch_tick(struct watch *w, uint64_t now_ms)
{
	struct lruvec_state *lv, *tmp;

	w->now_ms = now_ms;
	w->counts.polls++;
	if (!check_enabled(w))
		return 1;
	if (read_main_snapshot(w))
		return 0;
	HASH_ITER(hh, w->lruvecs, lv, tmp) {
		lv->seen = false;
		lv->gone = false;
		lv->candidate = false;
	}
	collect(w);
	rates(w);
	full_counters(w);
	HASH_ITER(hh, w->lruvecs, lv, tmp)
		if (lv->seen && !lv->gone)
			decide(w, lv);
	sweep(w);
	return 0;
}

/* ------------------------------------------------------------------ */
/* metrics                                                             */

static void put_label(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\' || *s == '"')
			fprintf(f, "\\%c", *s);
		else if (*s == '\n')
			fputs("\\n", f);
		else
			fputc(*s, f);
	}
}

static void metric_lv(FILE *f, const char *name, const struct lruvec_state *lv)
{
	fprintf(f, "%s{memcg=\"", name);
	put_label(f, lv->path);
	fprintf(f, "\",node=\"%d\"} ", lv->nid);
}

int watch_write_metrics(struct watch *w, FILE *f)
{
	const struct watch_counts *c = &w->counts;
	struct lruvec_state *lv, *tmp;

	fprintf(f, "# HELP advshim_watch_lru_gen_enabled lru_gen core "
		"switch as last read (-1 unknown)\n"
		"# TYPE advshim_watch_lru_gen_enabled gauge\n"
		"advshim_watch_lru_gen_enabled %d\n", w->enabled < -1 ? -1 :
		w->enabled);
	fprintf(f, "# HELP advshim_watch_polls_total intervals polled\n"
		"# TYPE advshim_watch_polls_total counter\n"
		"advshim_watch_polls_total %lu\n", c->polls);
	fprintf(f, "# HELP advshim_watch_errors_total error events\n"
		"# TYPE advshim_watch_errors_total counter\n"
		"advshim_watch_errors_total %lu\n", c->error + c->age_failed);
	fprintf(f, "# HELP advshim_watch_writes_locked_down 1 when lockdown "
		"forbids writes\n# TYPE advshim_watch_writes_locked_down gauge\n"
		"advshim_watch_writes_locked_down %d\n", w->no_write);
	fprintf(f, "# HELP advshim_watch_agings_total verified aging steps (max_seq moves)\n"
		"# TYPE advshim_watch_agings_total counter\n");
	HASH_ITER(hh, w->lruvecs, lv, tmp) {
		metric_lv(f, "advshim_watch_agings_total", lv);
		fprintf(f, "%lu\n", lv->agings);
	}
	fprintf(f, "# HELP advshim_watch_age_failures_total failed agings\n"
		"# TYPE advshim_watch_age_failures_total counter\n");
	HASH_ITER(hh, w->lruvecs, lv, tmp) {
		metric_lv(f, "advshim_watch_age_failures_total", lv);
		fprintf(f, "%lu\n", lv->failures);
	}
	fprintf(f, "# HELP advshim_watch_thrashing 1 while the last "
		"interval was oldest-generation thrash\n"
		"# TYPE advshim_watch_thrashing gauge\n");
	HASH_ITER(hh, w->lruvecs, lv, tmp) {
		metric_lv(f, "advshim_watch_thrashing", lv);
		fprintf(f, "%d\n", lv->was_thrashing);
	}
	fprintf(f, "# HELP advshim_watch_refaults_per_second file refaults "
		"per second (memory.stat; -1 unknown)\n"
		"# TYPE advshim_watch_refaults_per_second gauge\n");
	HASH_ITER(hh, w->lruvecs, lv, tmp) {
		metric_lv(f, "advshim_watch_refaults_per_second", lv);
		fprintf(f, "%.1f\n", lv->sample.refaults_per_s);
	}
	fprintf(f, "# HELP advshim_watch_max_seq last max_seq read\n"
		"# TYPE advshim_watch_max_seq gauge\n");
	HASH_ITER(hh, w->lruvecs, lv, tmp) {
		metric_lv(f, "advshim_watch_max_seq", lv);
		fprintf(f, "%lu\n", lv->max_seq);
	}
	return ferror(f) ? -1 : 0;
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
		lv_free(w, lv);
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
