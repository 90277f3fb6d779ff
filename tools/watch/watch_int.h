/* SPDX-License-Identifier: MIT */
/*
 * watch_int.h - the watcher's state, shared by the files that implement
 * watch.h; nothing outside tools/watch/watch*.c includes it.
 *
 *   watch.c          state tables, events, the tick (watch_tick)
 *   watch_read.c     lru_gen snapshots, lockdown, per-node samples
 *   watch_rates.c    memory.stat refault rates and their back-off
 *   watch_act.c      write safety: resolve, refuse, write, verify
 *   watch_metrics.c  the Prometheus textfile
 *
 * A struct watch is used by one thread at a time (the daemon's loop); no
 * function here locks.  None of them fails outright: a problem becomes an
 * event in the log (and no write), and the next tick starts over.
 */
#ifndef ADVSHIM_WATCH_INT_H
#define ADVSHIM_WATCH_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <uthash.h>

#include "tools/watch/detector.h"
#include "common/lrugen.h"
#include "tools/watch/watch.h"

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
	bool gone;		/* vanished or printed twice: swept */
	bool was_thrashing;
	bool explicit_force;	/* ERANGE seen: force_scan spelled out */
	bool pending;		/* write succeeded, advance not yet seen */
	unsigned long pending_from;
	char pending_cmd[CMD_MAX];
	/* this tick's sample */
	unsigned long max_seq, youngest_age;
	bool candidate;
	struct det_sample sample;
	/* memory.stat economy in all-memcg mode (see watch_rates.c) */
	uint64_t sig, prev_sig;		/* hash of the page counts */
	bool low;			/* last rate far below threshold */
	unsigned int backoff;		/* 0, 1, 3, 7: polls skipped */
	/* metrics */
	unsigned long agings, failures;
};

struct watch {
	struct watch_conf conf;
	struct det_params params;	/* conf.det + the kernel's rules */
	struct kver_rules rules;
	bool cgroup_v1;
	struct watch_io io;
	struct wlog *log;
	struct lrugen_snap snap, fresh, full;
	struct lruvec_state *lruvecs;
	struct memcg_state *memcgs;
	bool *target_seen;		/* per conf.cgroups[i]: ever seen */
	bool *target_warned;
	bool no_write;			/* lockdown: writes are refused */
	bool read_full_only;		/* lockdown: lru_gen unreadable */
	bool no_full;			/* lru_gen_full absent */
	int enabled;			/* last read of lru_gen/enabled */
	uint64_t now_ms;
	struct watch_counts counts;
};

/* ---- watch.c: events and state tables ---- */

/* watch_emit - count @ev and write it to the log at the tick's time. */
void watch_emit(struct watch *w, struct wevent *ev);

/* watch_emit_global - an event about no memcg: @msg, @error (or NULL). */
void watch_emit_global(struct watch *w, const char *event, const char *msg,
		       const char *error);

/* watch_lv_event - @ev initialised as @event about @lv, with its numbers. */
void watch_lv_event(struct wevent *ev, const char *event,
		    const struct lruvec_state *lv);

/* watch_mark_gone - log @lv as vanished (@msg) and flag it for removal. */
void watch_mark_gone(struct watch *w, struct lruvec_state *lv,
		     const char *msg);

/*
 * watch_lv_get - the state of memcg @path on node @nid, created (with ID
 * @id and a fresh detector) when new.  NULL when out of memory.
 */
struct lruvec_state *watch_lv_get(struct watch *w, const char *path, int nid,
				  uint64_t id);

/* watch_lv_free - unlink @lv from the table and free it. */
void watch_lv_free(struct watch *w, struct lruvec_state *lv);

/* watch_mc_get - the memory.stat state of @path, created; NULL on ENOMEM. */
struct memcg_state *watch_mc_get(struct watch *w, const char *path);

/* watch_is_target - whether @path is watched (and note it was seen). */
bool watch_is_target(struct watch *w, const char *path);

/* ---- watch_read.c ---- */

/*
 * watch_read_snap - read and parse lru_gen (@full: lru_gen_full) into
 * @snap.  Returns 0, or -1 with errno set and *why saying what failed
 * (static text, valid until the next call).
 */
int watch_read_snap(struct watch *w, bool full, struct lrugen_snap *snap,
		    const char **why);

/*
 * watch_gen_rows - fill @s's generation rows (seq, file pages) from node
 * block @n, oldest first, the youngest DET_MAX_GENS of them.  No lock,
 * cannot fail.
 */
void watch_gen_rows(const struct lrugen_node *n, struct det_sample *s);

/*
 * watch_sample_rep - set @s's lru_gen_full counters (file min_seq,
 * refaulted, evicted, protected) from node block @n, which has them
 * (n->has_rep).  No lock, cannot fail.
 */
void watch_sample_rep(struct det_sample *s, const struct lrugen_node *n);

/*
 * watch_enter_lockdown - note that lockdown refuses lru_gen writes (from
 * now on monitoring only) and log why, @what failing.
 */
void watch_enter_lockdown(struct watch *w, const char *what);

/*
 * watch_read_main - this tick's snapshot into w->snap: lru_gen, or
 * lru_gen_full under lockdown.  Returns 0, or -1 after logging the error
 * (the tick then writes nothing).
 */
int watch_read_main(struct watch *w);

/* watch_collect - step 1: a sample per watched memcg x node of w->snap. */
void watch_collect(struct watch *w);

/*
 * watch_full_counters - step 3: lru_gen_full's refaulted/evicted counters
 * for this tick's candidates (read only when there is one).
 */
void watch_full_counters(struct watch *w);

/* ---- watch_rates.c ---- */

/* watch_rates - step 2: memory.stat refault rates where they can matter. */
void watch_rates(struct watch *w);

/* ---- watch_act.c ---- */

/*
 * watch_act - the detector said age @lv by @steps: check the fresh lru_gen,
 * write the burst's commands ("+ ID N S;+ ID N S+1;...") in one write(2),
 * verify max_seq advanced (or log why not).
 */
void watch_act(struct watch *w, struct lruvec_state *lv, unsigned int steps);

/*
 * watch_check_pending - a write of an earlier tick was accepted without
 * max_seq moving then: did it move since?  Logs age or age_failed.
 */
void watch_check_pending(struct watch *w, struct lruvec_state *lv);

#endif /* ADVSHIM_WATCH_INT_H */
