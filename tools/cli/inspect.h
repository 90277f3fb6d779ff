/* SPDX-License-Identifier: MIT */
/*
 * inspect.h - what `advshim inspect` (cmd_inspect.c) takes from
 * inspect_adapt.c: the adaptive advice's part of its output.  Single
 * threaded, no locks; nothing here fails.
 */
#ifndef ADVSHIM_CLI_INSPECT_H
#define ADVSHIM_CLI_INSPECT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "shim/stats_layout.h"

/*
 * inspect_adapt_text - the lines about the adaptive group of a process
 * whose stats page @a is (a consistent copy): choice, why, the memcg's
 * figures, counters, the last switches and how long ago.
 */
void inspect_adapt_text(const struct advshim_stats_adapt *a, FILE *f);

/* inspect_adapt_json - the same as a JSON member "adaptive":{...}. */
void inspect_adapt_json(const struct advshim_stats_adapt *a, FILE *f);

/*
 * inspect_adapt_mark - "normal" or "random" if the file at @path (inode
 * @inode, from smaps) is one of the group's files, else NULL.  The device
 * is compared too when @path can be stat'ed as that inode.
 */
const char *inspect_adapt_mark(const struct advshim_stats_adapt *a,
			       const char *path, uint64_t inode);

#endif /* ADVSHIM_CLI_INSPECT_H */
