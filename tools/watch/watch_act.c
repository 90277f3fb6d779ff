// SPDX-License-Identifier: MIT
/*
 * watch_act.c - writing an aging command safely.
 *
 * Safety rules, in the order watch_act() applies them:
 *  - re-read lru_gen right before writing; resolve the memcg ID from its
 *    path in that fresh read (IDs are reused on 6.x), and do not write if
 *    the path is gone, printed twice, carries another ID than when the
 *    thrash was seen, or max_seq moved meanwhile;
 *  - one write(2) per burst (its commands joined by ';'); then re-read and
 *    verify max_seq advanced;
 *  - anything unparsable means no write this interval.
 */
#include <errno.h>
#include <string.h>

#include "tools/watch/watch_int.h"

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

	if (watch_read_snap(w, !w->no_full, &w->fresh, why))
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
		watch_lv_event(&ev, "healthy", lv);
		snprintf(msg, sizeof(msg),
			 "max_seq moved to %lu before our write: the kernel "
			 "aged it, not writing", fresh_seq);
		ev.msg = msg;
		watch_emit(w, &ev);
		return true;
	case RES_GONE:
		watch_mark_gone(w, lv, "memcg removed before our write; not "
				"writing");
		return true;
	case RES_RECREATED:
		snprintf(msg, sizeof(msg),
			 "path now belongs to memcg ID %llu (recreated); not "
			 "writing to either", (unsigned long long)fresh_id);
		watch_mark_gone(w, lv, msg);
		return true;
	case RES_AMBIGUOUS:
		watch_lv_event(&ev, "error", lv);
		ev.msg = "path printed by more than one memcg (a dying one "
			 "and its successor?); not writing";
		watch_emit(w, &ev);
		return true;
	case RES_NO_NODE:
		watch_lv_event(&ev, "error", lv);
		ev.msg = "node block missing in the fresh read; not writing";
		watch_emit(w, &ev);
		return true;
	case RES_UNREADABLE:
		watch_lv_event(&ev, "error", lv);
		snprintf(msg, sizeof(msg), "re-read before writing failed: %s; "
			 "not writing", why);
		ev.msg = msg;
		watch_emit(w, &ev);
		return true;
	}
	return true;
}

static void age_failed(struct watch *w, struct lruvec_state *lv,
		       const char *cmd, int err, const char *msg)
{
	struct wevent ev;

	watch_lv_event(&ev, "age_failed", lv);
	ev.cmd = cmd;
	ev.error = strerror(err);
	ev.msg = msg;
	watch_emit(w, &ev);
	lv->failures++;
	det_failed(&lv->det, w->now_ms);
}

static void aged(struct watch *w, struct lruvec_state *lv, const char *cmd,
		 unsigned long before, unsigned long after)
{
	struct wevent ev;
	char msg[96];

	lv->max_seq = after;
	watch_lv_event(&ev, "age", lv);
	ev.cmd = cmd;
	snprintf(msg, sizeof(msg), "max_seq %lu -> %lu", before, after);
	ev.msg = msg;
	watch_emit(w, &ev);
	lv->agings += after - before;
	det_aged(&lv->det, w->now_ms, (unsigned int)(after - before));
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
		watch_mark_gone(w, lv, "memcg removed right after our write");
		return;
	}
	/*
	 * max_seq did not move: 6.1-6.13 ignore a walk that lost a race (on
	 * newer kernels a concurrent aging): check again next interval.
	 */
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
		watch_enter_lockdown(w, "writing lru_gen failed");
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
		watch_mark_gone(w, lv, "memcg removed during our write");
		return;
	}
	if (r == RES_OK && now_seq > before) {
		snprintf(msg, sizeof(msg), "%s: max_seq %lu -> %lu anyway",
			 err == EEXIST ? "another walker aged it" :
			 "the kernel aged it concurrently", before, now_seq);
		age_failed(w, lv, cmd, err, msg);
		lv->max_seq = now_seq;
		det_aged(&lv->det, w->now_ms,
			 (unsigned int)(now_seq - before));
		return;
	}
	age_failed(w, lv, cmd, err, err == EEXIST ?
		   "nothing aged (the walk for this max_seq already ran)" :
		   "the kernel rejected the command");
}

/*
 * step_unwritten - a dry run or lockdown: log @cmd instead of writing it.
 * Counted like the burst, so the window restarts and the next would_age
 * needs a new turnover.
 */
static void step_unwritten(struct watch *w, struct lruvec_state *lv,
			   const char *cmd)
{
	struct wevent ev;

	if (w->conf.dry_run) {
		watch_lv_event(&ev, "would_age", lv);
		ev.msg = "dry run: not written";
	} else {
		watch_lv_event(&ev, "age_failed", lv);
		ev.error = strerror(EPERM);
		ev.msg = "kernel lockdown: not writing";
		lv->failures++;
	}
	ev.cmd = cmd;
	watch_emit(w, &ev);
	if (w->conf.dry_run && w->io.unwritten)
		w->io.unwritten(w->io.ctx, cmd);
	det_dry_aged(&lv->det, w->now_ms);
}

/* write_step - one write(2) of @cmd (@len bytes) after the fresh read. */
static void write_step(struct watch *w, struct lruvec_state *lv,
		       const char *cmd, int len)
{
	char line[CMD_MAX + 1];
	unsigned long fresh_seq = 0;
	uint64_t fresh_id = 0;
	const char *why = NULL;
	enum resolve r;

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

/*
 * burst_format - the commands of a burst of @steps, one per max_seq from
 * the current one, joined by ';' (lru_gen_seq_write runs them in order and
 * stops at the first error).  Returns the length, or -1 when they do not
 * fit @size or age_cmd_format refuses the ID.
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

bool watch_can_age(const struct watch *w, const char *path)
{
	return !(w->rules.v1_root_only && w->cgroup_v1 && strcmp(path, "/"));
}

void watch_act(struct watch *w, struct lruvec_state *lv, unsigned int steps)
{
	char cmd[CMD_MAX];
	struct wevent ev;
	int len;

	if (!watch_can_age(w, lv->path)) {
		age_failed(w, lv, NULL, EINVAL, "kernel 7.0+ with cgroup v1 "
			   "can only age the root memcg (IDs are cgroup2 IDs)");
		return;
	}
	len = burst_format(w, lv, steps ? steps : 1, cmd, sizeof(cmd));
	if (len < 0) {
		watch_lv_event(&ev, "error", lv);
		ev.msg = "memcg ID too wide for this kernel; not writing";
		watch_emit(w, &ev);
		return;
	}
	if (w->conf.dry_run || w->no_write)
		step_unwritten(w, lv, cmd);
	else
		write_step(w, lv, cmd, len);
}

void watch_check_pending(struct watch *w, struct lruvec_state *lv)
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
