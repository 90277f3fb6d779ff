/* SPDX-License-Identifier: MIT */
/*
 * cleanup.h - everything a run creates outside its results directory
 * (workload process groups, the watcher, the arm's memcg, a changed
 * lru_gen/enabled) is recorded here before it exists, and undone by
 * cleanup_now() on every exit path: the end of an arm, an error,
 * SIGINT/SIGTERM/SIGHUP (the handler only records the signal; the
 * sampling loop notices within one tick) and exit() (atexit).
 *
 * One record per process (advshim-ab is single-threaded; no locks).
 */
#ifndef ADVSHIM_AB_CLEANUP_H
#define ADVSHIM_AB_CLEANUP_H

#include <stddef.h>
#include <sys/types.h>

#include "tools/ab/memcg.h"

/*
 * cleanup_install - catch SIGINT/SIGTERM/SIGHUP (see stop_signal()),
 * ignore SIGPIPE and run cleanup_now() at exit.  Cannot fail.
 */
void cleanup_install(void);

/* stop_signal - the signal that asked the run to stop, or 0. */
int stop_signal(void);

/*
 * cleanup_add_group - record process group @pgid (its leader's pid) for
 * cleanup_now().  Returns 0, or -1 when the record is full (it holds one
 * group per workload and the watcher).
 */
int cleanup_add_group(pid_t pgid);

/* cleanup_forget_group - drop @pgid from the record (it was reaped). */
void cleanup_forget_group(pid_t pgid);

/* cleanup_set_memcg - the arm's memcg to destroy, or NULL when gone. */
void cleanup_set_memcg(struct memcg *mc);

/*
 * cleanup_lru_set - write "y" (@want 1) or "n" (0) to @path (lru_gen's
 * enabled file), recording the current value first so cleanup_now() or
 * cleanup_lru_restore() puts it back.  @want < 0 leaves it alone.
 * Returns 0, or -1 with a sentence in @why.
 */
int cleanup_lru_set(const char *path, int want, char *why, size_t size);

/*
 * cleanup_lru_restore - write the recorded lru_gen value back, if one was
 * changed.  A failure is reported on stderr (nothing else can be done).
 */
void cleanup_lru_restore(void);

/*
 * cleanup_now - stop every recorded process group (SIGTERM, 2 s, then
 * SIGKILL; reaped), destroy the recorded memcg, restore lru_gen.  Safe to
 * call more than once; failures are reported on stderr.
 */
void cleanup_now(void);

/*
 * stop_groups - SIGTERM the @n process groups in @pgids, give them
 * @grace_ms to exit, then SIGKILL; reaps every leader.  Entries <= 0 are
 * skipped; each one that exited is negated.  Cannot fail.
 */
void stop_groups(pid_t *pgids, int n, long grace_ms);

#endif /* ADVSHIM_AB_CLEANUP_H */
