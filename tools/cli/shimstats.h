/* SPDX-License-Identifier: MIT */
/*
 * shimstats.h - read another process's libadvshim.so stats page (its
 * "advshim-stats" memfd, shim/stats_layout.h) through /proc/PID/mem, for
 * `advshim inspect` and `advshim doctor`.  Single-threaded callers; no
 * locks; the page's writer is handled by its seq counter.
 */
#ifndef ADVSHIM_CLI_SHIMSTATS_H
#define ADVSHIM_CLI_SHIMSTATS_H

#include <stdbool.h>
#include <stdint.h>

#include "shim/stats_layout.h"

/*
 * shimstats_read - the page mapped at @addr in process @pid, read from
 * @root/proc/PID/mem (@root NULL or "" for /) into *st, with, for a
 * version 2 page, a consistent copy of its adaptive part.  Returns 0
 * (strings NUL-terminated; *have_adapt says whether st->adapt is valid),
 * or -1 with *why a static sentence (permission, unknown layout, errno).
 */
int shimstats_read(const char *root, int pid, uint64_t addr,
		   struct advshim_stats *st, bool *have_adapt,
		   const char **why);

/* shimstats_state_name - "active", "starting", ... for ADVSHIM_STATE_*. */
const char *shimstats_state_name(int state);

/*
 * shimstats_adapt_state_name - an ADVSHIM_ADAPT_* state in inspect's words
 * ("sampler running") or, @label, as --prometheus's label value
 * ("sampling"); an unknown one reads as unused.  Static strings.
 */
const char *shimstats_adapt_state_name(int state, bool label);

#endif /* ADVSHIM_CLI_SHIMSTATS_H */
