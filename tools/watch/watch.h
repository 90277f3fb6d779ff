/* SPDX-License-Identifier: MIT */
/*
 * watch.h - the watcher's poll loop body: read, detect, act, log.
 *
 * All kernel access goes through struct watch_io, so the same code runs
 * against the real debugfs/sysfs/cgroupfs (watch_fs.c, through
 * configurable roots) and, in unit tests, against an in-process fake
 * kernel that answers writes with chosen errnos.
 *
 * A struct watch (and a struct watch_fs) is used by one thread at a time,
 * the daemon's loop; nothing here locks.  Problems met during a tick are
 * events in the log, not return values: a tick never fails, it writes
 * nothing when anything is unclear.
 */
#ifndef ADVSHIM_WATCH_WATCH_H
#define ADVSHIM_WATCH_WATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "tools/watch/kver.h"
#include "tools/watch/watch_conf.h"
#include "tools/watch/wlog.h"

struct watch_io {
	/*
	 * read_lrugen - the whole of lru_gen (@full false) or lru_gen_full;
	 * *buf stays valid until the next call for the same file.  0, or -1
	 * with errno (EPERM under lockdown, ENOENT without the file).
	 */
	int (*read_lrugen)(void *ctx, bool full, const char **buf,
			   size_t *len);
	/* write_cmd - one write(2) of @cmd to lru_gen; 0 or -1 with errno. */
	int (*write_cmd)(void *ctx, const char *cmd, size_t len);
	/* read_enabled - lru_gen/enabled: 1 on, 0 off, -1 unreadable. */
	int (*read_enabled)(void *ctx);
	/* lockdown - the active lockdown mode ("integrity"), or NULL. */
	const char *(*lockdown)(void *ctx);
	void *ctx;
	/*
	 * unwritten - told each command a dry run logged instead of
	 * writing (the replay records them); NULL: not told.
	 */
	void (*unwritten)(void *ctx, const char *cmd);
	/*
	 * guard - put common/guard.h's mark on memcg @path (as lru_gen
	 * prints it), stamped with the wall clock now (@on), or remove it.
	 * 0 or -1 with errno (ENOENT: the memcg is gone; EOPNOTSUPP: no
	 * user.* attributes there).  NULL: marks are not kept (a replay).
	 */
	int (*guard)(void *ctx, const char *path, bool on);
	/*
	 * guard_there - whether memcg @path carries a mark, of any age: 1,
	 * 0 (none, or garbled: the memcg was re-created at @path, another
	 * watcher removed it), or -1 with errno.  NULL: never asked.
	 */
	int (*guard_there)(void *ctx, const char *path);
};

struct watch_counts {		/* events emitted, for tests and metrics */
	unsigned long thrash, age, would_age, age_failed, healthy, idle,
		      vanished, error, writes, polls;
};

struct watch;

/*
 * watch_new - a watcher with @conf (copied), the rules of the running
 * kernel, whether memcgs live in a cgroup v1 hierarchy, its I/O and its
 * log (both must outlive it).  NULL with errno ENOMEM.
 */
struct watch *watch_new(const struct watch_conf *conf,
			const struct kver_rules *rules, bool cgroup_v1,
			const struct watch_io *io, struct wlog *log);

/*
 * watch_set_conf - replace the settings with a copy of @conf (SIGHUP).
 * Returns 0, or -1 (ENOMEM) with the old settings still in force.
 */
int watch_set_conf(struct watch *w, const struct watch_conf *conf);

/*
 * watch_tick - one poll at @now_ms (monotonic ms since start): read the
 * kernel, update every watched memcg x node, act where the detector says
 * so, log decisions.  Returns 1 when lru_gen is disabled (idle), else 0.
 */
int watch_tick(struct watch *w, uint64_t now_ms);

/*
 * watch_write_metrics - Prometheus text exposition of the current state to
 * @f.  Returns 0 or -1 (errno from stdio).
 */
int watch_write_metrics(struct watch *w, FILE *f);

/* watch_counts - the event counters so far (owned by @w). */
const struct watch_counts *watch_counts(const struct watch *w);

/* watch_free - release everything (NULL is fine). */
void watch_free(struct watch *w);

/*
 * Filesystem-backed I/O (watch_fs.c).  Files are opened lazily; lru_gen
 * and lru_gen_full stay open and are re-read from offset 0.
 */
struct watch_fs;

/*
 * watch_fs_new - I/O through roots: @debugfs holds lru_gen, @sysfs holds
 * kernel/mm/lru_gen/enabled, @memcg_root is the memory hierarchy's root
 * directory (v2 mount, or the v1 memory mount).  Nothing is opened yet.
 * NULL with errno ENOMEM, or ENAMETOOLONG when a path does not fit.
 */
struct watch_fs *watch_fs_new(const char *debugfs, const char *sysfs,
			      const char *memcg_root);

/*
 * watch_fs_io - fill @io with @fs's functions and context; @fs must
 * outlive every use of @io.
 */
void watch_fs_io(struct watch_fs *fs, struct watch_io *io);

/* watch_fs_free - close and free everything (NULL is fine). */
void watch_fs_free(struct watch_fs *fs);

#endif /* ADVSHIM_WATCH_WATCH_H */
