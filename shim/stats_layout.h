/* SPDX-License-Identifier: MIT */
/*
 * stats_layout.h - the shim's counters as another process reads them.
 *
 * libadvshim.so keeps one page of counters in a MAP_SHARED memfd named
 * "advshim-stats" (the fd is closed right after mapping it, so the host
 * keeps no extra descriptor and nothing is left in any file system).  The
 * region shows in /proc/PID/maps as "/memfd:advshim-stats (deleted)";
 * `advshim inspect` finds it there and reads it through /proc/PID/mem.
 * Counters are updated with relaxed atomic adds; readers may see a
 * snapshot that is off by in-flight calls, never torn 64-bit values.
 */
#ifndef ADVSHIM_STATS_LAYOUT_H
#define ADVSHIM_STATS_LAYOUT_H

#include <stdint.h>

#define ADVSHIM_STATS_NAME	"advshim-stats"
#define ADVSHIM_STATS_MAGIC	0x314d494853564441ULL	/* "ADVSHIM1" */
#define ADVSHIM_STATS_VERSION	1
#define ADVSHIM_STATS_FAMILIES	2	/* == ADV_NR_FAMILIES */
#define ADVSHIM_STATS_KINDS	8	/* >= ADV_NR_KINDS */

enum advshim_stats_state {
	ADVSHIM_STATE_STARTING,		/* not initialised yet */
	ADVSHIM_STATE_ACTIVE,		/* policy in force */
	ADVSHIM_STATE_CONFIG_ERROR,	/* config failed to parse: pass-through */
	ADVSHIM_STATE_NOT_SELECTED,	/* `processes` excludes this program */
};

struct advshim_stats {
	uint64_t magic;
	uint32_t version;
	uint32_t size;			/* sizeof(struct advshim_stats) */
	int32_t pid;
	int32_t state;			/* enum advshim_stats_state */
	int32_t log_level;		/* enum policy_log_level in force */
	int32_t reserved;
	char policy_source[256];	/* config path or "<default>" */
	char lib_version[64];
	/* Examined calls per family (madvise, fadvise) and advice kind. */
	uint64_t calls[ADVSHIM_STATS_FAMILIES][ADVSHIM_STATS_KINDS];
	uint64_t rewritten;		/* pieces issued with other advice */
	uint64_t skipped;		/* pieces not issued (skip rule) */
	uint64_t kept;			/* pieces of known files kept as is */
	uint64_t noreuse_applied;	/* on_map noreuse at map time */
	uint64_t normal_applied;	/* on_map normal at map time */
	uint64_t file_maps_live;	/* ranges in the mapping table */
	uint64_t file_maps_total;	/* file mappings registered so far */
	uint64_t files_known;		/* (dev, ino) decisions cached */
	uint64_t fallbacks;		/* ranges resolved by the kernel's view */
	uint64_t errors;		/* internal failures (shim passed through) */
};

#endif /* ADVSHIM_STATS_LAYOUT_H */
