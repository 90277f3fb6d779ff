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
 * Fields are only ever appended: `size` says how much of the page a
 * given library fills, so a reader built against a later layout can tell
 * which fields an older one lacks.
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

/*
 * The scalar counters in layout order, as X(field, description): a reader
 * iterates them with its own X (`advshim inspect --json` prints each under
 * its field name), so a counter added here needs no change there.
 */
#define ADVSHIM_STATS_COUNTERS(X)					\
	X(rewritten, "pieces issued with other advice")			\
	X(skipped, "pieces not issued (skip rule)")			\
	X(kept, "pieces of known files kept as is")			\
	X(noreuse_applied, "on_map noreuse at map time")		\
	X(normal_applied, "on_map normal at map time")			\
	X(file_maps_live, "ranges in the mapping table")		\
	X(file_maps_total, "file mappings registered so far")		\
	X(files_known, "(dev, ino) decisions cached")			\
	X(fallbacks, "ranges resolved by the kernel's view")		\
	X(errors, "internal failures (shim passed through)")

#define ADVSHIM_STATS_FIELD(field, what) uint64_t field;

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
	/*
	 * Advice calls per family (madvise, fadvise) and advice kind: those
	 * some rule acts on (examined: looked up, decided), and those no
	 * rule acts on (passed on unexamined, one relaxed add each).  Every
	 * call made while the shim is active lands in exactly one of them.
	 */
	uint64_t calls[ADVSHIM_STATS_FAMILIES][ADVSHIM_STATS_KINDS];
	ADVSHIM_STATS_COUNTERS(ADVSHIM_STATS_FIELD)
	/* Appended in the same version: a page that predates it reads 0. */
	uint64_t passed[ADVSHIM_STATS_FAMILIES][ADVSHIM_STATS_KINDS];
};

#endif /* ADVSHIM_STATS_LAYOUT_H */
