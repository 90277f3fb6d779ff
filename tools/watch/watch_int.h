/* SPDX-License-Identifier: MIT */
/*
 * watch_int.h - the steps of the watcher's tick, shared by the files that
 * implement watch.h; nothing outside tools/watch/watch*.c (and a unit test
 * that feeds watch_gen_rows) includes it.  The state they work on is
 * watch_state.h; the dependency direction is written there.
 *
 *   watch_read.c     lru_gen_full snapshots, lockdown, per-node samples
 *   watch_act.c      write safety: resolve, refuse, write, verify
 *   watch_metrics.c  the Prometheus textfile
 *   watch_guard.c    the marks on the memcgs aged, for the shim
 *
 * None of them fails outright: a problem becomes an event in the log (and
 * no write), and the next tick starts over.
 */
#ifndef ADVSHIM_WATCH_INT_H
#define ADVSHIM_WATCH_INT_H

#include "tools/watch/watch_state.h"

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
 * watch_read_main - this tick's snapshot into w->snap: lru_gen_full, or
 * lru_gen where it is missing (the first tick also checks lockdown).  Returns 0, or -1 after logging the error
 * (the tick then writes nothing).
 */
int watch_read_main(struct watch *w);

/* watch_collect - step 1: a sample per watched memcg x node of w->snap. */
void watch_collect(struct watch *w);

/* ---- watch_act.c ---- */

/*
 * watch_can_age - whether this kernel lets the watcher age the memcg at
 * @path at all: on 7.0+ with cgroup v1 only the root (IDs are cgroup2
 * IDs).  No I/O.
 */
bool watch_can_age(const struct watch *w, const char *path);

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

/* ---- watch_guard.c ---- */

/*
 * watch_guard_tick - after a tick's steps: mark (or refresh the mark of)
 * each memcg watched this tick while the watcher ages live, remove the
 * marks of the others.  A failed mark is logged once per memcg.
 */
void watch_guard_tick(struct watch *w);

/* watch_guard_clear - remove every mark this watcher put (exit). */
void watch_guard_clear(struct watch *w);

#endif /* ADVSHIM_WATCH_INT_H */
