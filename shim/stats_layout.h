/* SPDX-License-Identifier: MIT */
/*
 * stats_layout.h - the shim's counters as another process reads them.
 *
 * libadvshim.so keeps its counters in a MAP_SHARED memfd region named
 * "advshim-stats" (the fd is closed right after mapping it, so the host
 * keeps no extra descriptor and nothing is left in any file system).  The
 * region shows in /proc/PID/maps as "/memfd:advshim-stats (deleted)";
 * `advshim inspect` finds it there and reads it through /proc/PID/mem.
 * The counters of every intercepted call (calls, passed, kept, rewritten,
 * skipped) are kept per thread in `slots` (one writer each, plain stores:
 * no locked instruction on the application's hot path); a reader adds the
 * slots to the page's own fields (advshim_stats_fold).  The other counters
 * are updated with relaxed atomic adds.  Readers may see a snapshot that is
 * off by in-flight calls, never torn 64-bit values.  Fields are only ever appended:
 * `size` says how much of the region a given library fills, so a reader
 * built against a later layout can tell which fields an older one lacks.
 */
#ifndef ADVSHIM_STATS_LAYOUT_H
#define ADVSHIM_STATS_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

#define ADVSHIM_STATS_NAME	"advshim-stats"
#define ADVSHIM_STATS_MAGIC	0x314d494853564441ULL	/* "ADVSHIM1" */
/*
 * Version 2 appended `adapt` (the adaptive advice), version 3 `slots`; a
 * version 1 page is the same up to `passed`.  Readers accept all three:
 * `size` bytes are all a page has, the rest reads as zero.
 */
#define ADVSHIM_STATS_VERSION	3
#define ADVSHIM_ADAPT_FILES	48	/* files listed per process */
#define ADVSHIM_ADAPT_HISTORY	8	/* last switches kept */
#define ADVSHIM_STATS_FAMILIES	2	/* == ADV_NR_FAMILIES */
#define ADVSHIM_STATS_KINDS	8	/* >= ADV_NR_KINDS */
#define ADVSHIM_STATS_SLOTS	64	/* threads with counters of their own */

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

enum advshim_adapt_state {
	ADVSHIM_ADAPT_UNUSED,		/* no RANDOM on an adaptive file yet */
	ADVSHIM_ADAPT_SAMPLING,		/* decided; the sampler thread runs */
	ADVSHIM_ADAPT_NO_SAMPLER,	/* decided; no sampler (a fork child
					   before its restart, or it could not
					   start): the choice is kept */
	ADVSHIM_ADAPT_DISABLED,		/* the kill switch: the sampler gave
					   the ranges their RANDOM back and
					   waits for the file to go */
};

/* A file of the adaptive group (asked RANDOM on some range). */
struct advshim_adapt_file {
	uint64_t dev;			/* st_dev (makedev encoding) */
	uint64_t ino;
	uint64_t size;			/* st_size when the shim named it */
	uint64_t asked_bytes;		/* its ranges asked RANDOM */
};

/* One switch of the group's choice (t_ms: CLOCK_MONOTONIC). */
struct advshim_adapt_switch {
	uint64_t t_ms;
	int32_t from, to;		/* enum adapt_choice; from -1: first */
	int32_t reason;			/* enum adapt_reason */
	uint32_t ratio_pct;
};

/*
 * The last verdict's figures the page keeps under struct adapt_verdict's
 * own names, as X(field): the sampler copies them in, `advshim inspect`
 * copies them back out to describe the verdict as the shim's log does.
 */
#define ADVSHIM_ADAPT_VERDICT_FIGURES(X)				\
	X(status) X(t_ms) X(need) X(capacity) X(ratio_pct)		\
	X(resident_pct) X(usage_pct) X(majflt_s) X(refault_s) X(guarded)

/*
 * The adaptive advice (adapt/adapt.h): the last verdict with the numbers it
 * used, counters, the last switches and the group's files.  One writer
 * (the sampler); `seq` is odd while it writes: a reader copies the struct,
 * and retries when seq was odd or changed meanwhile.
 */
struct advshim_stats_adapt {
	uint32_t seq;
	int32_t state;			/* enum advshim_adapt_state */
	int32_t choice;			/* enum adapt_choice */
	int32_t reason;			/* enum adapt_reason of the verdict */
	int32_t status;			/* 0, or -errno: figures unreadable */
	int32_t cg_version;		/* 1, 2; 0: unknown */
	uint32_t fit_pct, nofit_pct;	/* the thresholds in force */
	uint32_t dwell_ms, interval_ms;
	uint64_t t_ms;			/* the verdict's sample (CLOCK_MONOTONIC) */
	uint64_t need, capacity;	/* bytes */
	uint64_t limit, usage, file, mem_avail;	/* limit ~0: none */
	uint32_t ratio_pct, resident_pct, usage_pct;
	uint32_t guarded;		/* 1: advshim-watch's mark was fresh
					   (was reserved, 0) */
	uint64_t majflt_s, refault_s;
	uint64_t samples, sample_errors;
	uint64_t switches, held;	/* switches after the first decision;
					   steps that wanted one and held it */
	uint64_t ranges_asked;		/* ranges asked RANDOM (last sample) */
	uint64_t ranges_applied, skipped_mixed, apply_errors;	/* totals */
	uint32_t nr_files, nr_more;	/* in files[]; beyond it */
	uint32_t nr_history, history_head;	/* ring of the last switches */
	char cgroup[128];		/* the memory cgroup's path */
	struct advshim_adapt_switch history[ADVSHIM_ADAPT_HISTORY];
	struct advshim_adapt_file files[ADVSHIM_ADAPT_FILES];
};

/*
 * The hot counters of the threads that held a slot (version 3): `owner`
 * is the TID of the thread holding it, 0 when free.  Only the owner
 * writes the counters; a slot keeps its counts when a thread that exited
 * hands it on (a reader adds every slot, free or held).
 */
struct advshim_stats_slot {
	int32_t owner;
	uint32_t reserved;
	uint64_t calls[ADVSHIM_STATS_FAMILIES][ADVSHIM_STATS_KINDS];
	uint64_t passed[ADVSHIM_STATS_FAMILIES][ADVSHIM_STATS_KINDS];
	uint64_t rewritten, skipped, kept;
};

struct advshim_stats {
	uint64_t magic;
	uint32_t version;
	uint32_t size;			/* sizeof(struct advshim_stats) */
	int32_t pid;
	int32_t state;			/* enum advshim_stats_state */
	int32_t log_level;		/* enum policy_log_level in force */
	int32_t disabled;		/* 1: the kill switch file is there
					   (shim/kill.c): passing through */
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
	/* Version 2. */
	struct advshim_stats_adapt adapt;
	/* Version 3: per-thread hot counters (struct advshim_stats_slot). */
	struct advshim_stats_slot slots[ADVSHIM_STATS_SLOTS];
};

#define ADVSHIM_STATS_V1_SIZE	offsetof(struct advshim_stats, adapt)

/*
 * advshim_stats_fold - add every slot's counters to @st's own fields, in a
 * reader's copy of the region (a version 1 or 2 copy has zero slots).
 */
static inline void advshim_stats_fold(struct advshim_stats *st)
{
	const struct advshim_stats_slot *sl;
	int i, f, k;

	for (i = 0; i < ADVSHIM_STATS_SLOTS; i++) {
		sl = &st->slots[i];
		for (f = 0; f < ADVSHIM_STATS_FAMILIES; f++)
			for (k = 0; k < ADVSHIM_STATS_KINDS; k++) {
				st->calls[f][k] += sl->calls[f][k];
				st->passed[f][k] += sl->passed[f][k];
			}
		st->rewritten += sl->rewritten;
		st->skipped += sl->skipped;
		st->kept += sl->kept;
	}
}

#endif /* ADVSHIM_STATS_LAYOUT_H */
