/* SPDX-License-Identifier: MIT */
/*
 * watch_state.h - the watcher's state (struct watch, a table per memcg x
 * node) and its events.  The bottom layer of the
 * watcher: watch_state.c calls no function of another watch_*.c (it uses
 * the detector's det_init, the log's wlog_emit and watch.h's and
 * watch_conf.h's types); every step file and the tick call into it.
 *
 *   watch.c          the tick (watch_tick), lifetime (new, set_conf, free)
 *     -> watch_read.c, watch_act.c (steps; act -> read)
 *   watch_metrics.c  the Prometheus textfile (called by the daemon)
 *   watch_guard.c    the marks for the shim (after the steps)
 *     -> watch_state.c  state tables and events (this header)
 *       -> detector.c, wlog.c, common/
 *
 * A struct watch is used by one thread at a time (the daemon's loop); no
 * function here locks.
 */
#ifndef ADVSHIM_WATCH_STATE_H
#define ADVSHIM_WATCH_STATE_H

#include <stdbool.h>
#include <stdint.h>
#include <uthash.h>

#include "common/lrugen.h"
#include "tools/watch/detector.h"
#include "tools/watch/watch.h"
#include "tools/watch/wlog.h"

#define CMD_MAX 320	/* a burst: up to DET_MAX_GENS commands */

/*
 * Per memcg this watcher ages: its mark for the shim (common/guard.h),
 * refreshed every GUARD_REFRESH_S (watch_guard.c).
 */
struct guard_entry {
	UT_hash_handle hh;
	char *path;
	uint64_t marked_ms;	/* the last attempt */
	bool marked;		/* attempted at least once */
	bool failed;		/* the last attempt failed */
	bool seen;		/* watched this tick */
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
	bool explicit_force;	/* ERANGE seen: force_scan spelled out */
	bool pending;		/* write succeeded, advance not yet seen */
	unsigned long pending_from;
	char pending_cmd[CMD_MAX];
	/* this tick's sample and what the detector made of it */
	unsigned long max_seq;
	struct det_sample sample;
	struct det_out out;
	/* metrics */
	unsigned long agings, failures;
};

struct watch {
	struct watch_conf conf;
	struct det_params params;	/* conf.det */
	struct kver_rules rules;
	bool cgroup_v1;
	struct watch_io io;
	struct wlog *log;
	struct lrugen_snap snap, fresh;
	struct lruvec_state *lruvecs;
	bool *target_seen;		/* per conf.cgroups[i]: ever seen */
	bool *target_warned;
	struct guard_entry *guards;	/* memcgs marked for the shim */
	bool guard_warned;		/* a failed mark was logged */
	bool no_write;			/* lockdown: writes are refused */
	bool probed;			/* lru_gen's readability checked */
	bool no_full;			/* lru_gen_full absent */
	int enabled;			/* last read of lru_gen/enabled */
	uint64_t now_ms;
	struct watch_counts counts;
};

/* ---- events ---- */

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

/* watch_is_target - whether @path is watched (and note it was seen). */
bool watch_is_target(struct watch *w, const char *path);

/*
 * watch_state_free - free the memcg x node and memcg tables and the
 * snapshots (the settings are the caller's).  Cannot fail.
 */
void watch_state_free(struct watch *w);

#endif /* ADVSHIM_WATCH_STATE_H */
