/* SPDX-License-Identifier: MIT */
/*
 * memstat.h - the two memory.stat counters the watcher needs.
 *
 * cgroup v2 (5.9+): workingset_refault_file, workingset_activate_file
 * (hierarchical: they include descendants).  Before 5.9 v2 printed
 * workingset_refault / workingset_activate for file pages only.
 * cgroup v1: workingset_refault_file (this memcg's own lruvec) and the
 * hierarchical total_workingset_refault_file; no activation counter.
 * Any field may be missing; the parser says which ones it found.
 */
#ifndef ADVSHIM_WATCH_MEMSTAT_H
#define ADVSHIM_WATCH_MEMSTAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct memstat {
	bool has_refault;
	bool has_activate;
	uint64_t refault_file;		/* pages refaulted (file) */
	uint64_t activate_file;		/* refaults activated (file) */
	const char *refault_key;	/* which field was used (static) */
};

/*
 * memstat_parse - read "key value" lines from @buf (@len bytes).  Prefers
 * the v2 name, then v1's own-memcg counter, then v1's total_ copy, then the
 * pre-5.9 name.  Returns 0 (fields may still be missing), or -1 with errno
 * EINVAL when a line is not "key number".
 */
int memstat_parse(const char *buf, size_t len, struct memstat *out);

#endif /* ADVSHIM_WATCH_MEMSTAT_H */
