/* SPDX-License-Identifier: MIT */
/*
 * memstat.h - the memory.stat counters advshim reads, cgroup v1 and v2,
 * through one parser: the watcher's refault rates, advshim-ab's samples,
 * and the page cache and anon sizes a "does this file fit its memcg"
 * sampler compares with the memcg's limit.
 *
 * One choice of counter per cgroup version, the same for every reader:
 *
 *   field           cgroup v2 key              cgroup v1 key
 *   pgmajfault      pgmajfault                 total_pgmajfault
 *   refault_file    workingset_refault_file    total_workingset_refault_file
 *   activate_file   workingset_activate_file   (none: v1 has no such key)
 *   file_bytes      file                       total_cache
 *   anon_bytes      anon                       total_rss
 *   active_file     active_file                total_active_file
 *   inactive_file   inactive_file              total_inactive_file
 *
 * Kernels before 5.9 name the v2 counters workingset_refault and
 * workingset_activate (file pages only then); those are taken when the
 * _file names are absent.
 *
 * Why the hierarchical (total_*) copies on v1: v2's memory.stat is
 * hierarchical (every value includes the descendants) and has no
 * per-memcg alternative, so the only way both versions mean the same thing
 * is the subtree on v1 too.  A rate threshold (the watcher's
 * min_refaults_per_s), an A/B report and a comparison of page cache
 * against the memcg's limit (which is charged hierarchically) then
 * read the same quantity whichever cgroup version the machine runs.  For a
 * leaf memcg (every advshim-ab arm, and every process's memcg on v2) the
 * two are equal anyway.  The text is v1 when any key starts with
 * "total_" (v2 prints none); then the v2/own-memcg names are never used,
 * so one struct never mixes the two levels.
 *
 * The parser allocates nothing, uses no stdio, globals or errno, and may
 * be linked into a shared library; it takes no locks.
 */
#ifndef ADVSHIM_COMMON_MEMSTAT_H
#define ADVSHIM_COMMON_MEMSTAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct memstat {
	bool v1;			/* total_* keys: cgroup v1 text */
	bool has_pgmajfault;
	bool has_refault;
	bool has_activate;
	bool has_file;
	bool has_anon;
	bool has_active_file;
	bool has_inactive_file;
	uint64_t pgmajfault;		/* major page faults (events) */
	uint64_t refault_file;		/* file pages refaulted */
	uint64_t activate_file;		/* refaulted file pages activated */
	uint64_t file_bytes;		/* page cache (shmem included) */
	uint64_t anon_bytes;		/* anonymous memory */
	uint64_t active_file_bytes;
	uint64_t inactive_file_bytes;
	const char *refault_key;	/* key refault_file came from (static) */
	unsigned int bad_line;		/* 1-based line memstat_parse refused */
};

/*
 * memstat_parse - read the "key value" lines of memory.stat text (@len
 * bytes of @buf, which need not be NUL-terminated) into *out, which it
 * zeroes first.  A key may be missing: its has_* stays false.  Duplicate
 * keys: the first one counts.  Returns 0, or -1 when a non-empty line has
 * no space or a counter listed above has a value that is not an unsigned
 * decimal number that fits 64 bits (out->bad_line says which line; the
 * other fields are then unspecified).
 */
int memstat_parse(const char *buf, size_t len, struct memstat *out);

#endif /* ADVSHIM_COMMON_MEMSTAT_H */
