/* SPDX-License-Identifier: MIT */
/*
 * memcg.h - the fresh memory cgroup each arm runs in, on cgroup v2 or on
 * the v1 memory controller, whichever the machine has.  Single-threaded
 * use; no locks (memcg_attach_self is also safe in a forked child).
 */
#ifndef ADVSHIM_AB_MEMCG_H
#define ADVSHIM_AB_MEMCG_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct memcg_root {
	int version;			/* 1 or 2 */
	char hier[PATH_MAX];		/* the hierarchy's root directory */
	char parent[PATH_MAX];		/* where arm memcgs are created */
};

struct memcg {
	int version;
	char fs[PATH_MAX];		/* directory */
	char rel[PATH_MAX];		/* path as lru_gen prints it */
	bool has_io_stat;
};

/*
 * memcg_detect - find a writable memory controller under @cgroot
 * (normally /sys/fs/cgroup): cgroup v2 at @cgroot or @cgroot/unified
 * with "memory" in cgroup.controllers, else v1 at @cgroot/memory
 * (common/cgroup_read.h: cg_detect_mount).
 * @parent (may be NULL) is a path relative to the hierarchy root under
 * which memcgs are made.  Returns 0, or -1 with a sentence in @why.
 */
int memcg_detect(const char *cgroot, const char *parent,
		 struct memcg_root *r, char *why, size_t size);

/*
 * memcg_create - make @name under the root's parent with @limit bytes and
 * no swap (where the knob exists).  Returns 0, or -1 with @why.  An
 * existing directory of that name (a leftover) is an error.
 */
int memcg_create(const struct memcg_root *r, const char *name,
		 uint64_t limit, struct memcg *m, char *why, size_t size);

/*
 * memcg_attach_self - move the calling process into @m (used in a forked
 * child before exec; only open/write/close).  0 or -1 with errno.
 */
int memcg_attach_self(const struct memcg *m);

/*
 * memcg_pids - pids in @m (cgroup.procs) into @pids (room for @max).
 * Returns the count (may exceed @max) or -1.
 */
int memcg_pids(const struct memcg *m, pid_t *pids, int max);

/*
 * memcg_read - read file @name of @m whole: malloc'd NUL-terminated text,
 * or NULL with errno (missing file, ENOMEM).
 */
char *memcg_read(const struct memcg *m, const char *name);

/*
 * memcg_destroy - SIGKILL whatever is left in @m, wait for it to empty
 * (up to ~5 s) and rmdir it.  Returns 0, or -1 with errno from rmdir.
 */
int memcg_destroy(struct memcg *m);

#endif /* ADVSHIM_AB_MEMCG_H */
