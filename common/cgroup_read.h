/* SPDX-License-Identifier: MIT */
/*
 * cgroup_read.h - read this process's memory cgroup figures (v1 and v2)
 * and the machine's memory, through a root, without allocating.
 *
 * The I/O half of cgroup.h: every file is opened, read into a stack
 * buffer and closed again (read_buf), every number goes through the
 * parsers in cgroup.c.  Nothing is cached between calls: a process moved
 * to another cgroup, or a limit changed, shows at the next call.  errno is
 * preserved.  Safe from any thread; no locks.
 */
#ifndef ADVSHIM_COMMON_CGROUP_READ_H
#define ADVSHIM_COMMON_CGROUP_READ_H

#include <stdint.h>

#include "common/cgroup.h"

#define CG_PATH_MAX	4096

/* Where this process's memory cgroup is. */
struct cg_where {
	int version;			/* CG_V1 or CG_V2 */
	char path[CG_PATH_MAX];		/* below the hierarchy's mount */
};

/* One reading of the figures the adaptive advice compares. */
struct cg_figures {
	uint64_t limit;		/* bytes: the smallest memory.max/high (v2)
				   or memory.limit_in_bytes (v1) of the
				   cgroup and its ancestors; CG_UNLIMITED */
	uint64_t usage;		/* bytes charged to the cgroup itself */
	int depth;		/* ancestors' limits read (0: the leaf only) */
};

/*
 * cg_locate - find this process's memory cgroup: parse @root/proc/self/
 * cgroup, then check that the cgroup's usage file is readable below the
 * mount.  A container whose cgroup directory is bind-mounted as the
 * mount's root (v1 without a cgroup namespace: the path names the host's
 * cgroup) is found by falling back to the mount root "/".
 * A process in the v2 hierarchy's root cgroup (no usage file there) is
 * found when the root's cgroup.controllers lists "memory".
 * Returns 0, or a negative errno: that of reading /proc/self/cgroup, of
 * its parser (-ENOENT: no memory controller), or -ENOENT when neither
 * the path nor the mount root has a usage file.  @root: NULL or "" for /.
 */
int cg_locate(const char *root, struct cg_where *w);

/*
 * cg_locate_proc - cg_locate for the process @proc names under /proc
 * ("self", or a pid in decimal): the same parse and the same fallback.
 * -ENAMETOOLONG for a @proc over 32 characters; otherwise as cg_locate.
 */
int cg_locate_proc(const char *root, const char *proc, struct cg_where *w);

/*
 * cg_read_figures - the limit (walking up to the mount root; levels whose
 * limit files are missing, like the root cgroup's, are skipped) and the
 * usage of the cgroup @w.  Returns 0, or a negative errno of reading or
 * parsing the usage file or a limit file that exists (-ENOENT: the
 * cgroup is gone).  The v2 root cgroup: CG_UNLIMITED, usage 0 (the kernel
 * keeps none there), depth 0.  *f is written only on success.
 */
int cg_read_figures(const char *root, const struct cg_where *w,
		    struct cg_figures *f);

/*
 * cg_read_meminfo - MemTotal and MemAvailable of @root/proc/meminfo, in
 * bytes.  Returns 0 or a negative errno (of reading or of meminfo_parse).
 */
int cg_read_meminfo(const char *root, uint64_t *total, uint64_t *avail);

/*
 * cg_detect_mount - the memory hierarchy below a cgroup mount point
 * @mount (normally /sys/fs/cgroup), the one rule every part of advshim
 * uses: cgroup2 at @mount when its cgroup.controllers lists "memory";
 * else cgroup2 at @mount/unified when that does (the hybrid layout); else
 * v1 at @mount/memory when it has memory.stat (the memory controller's
 * mount under a cgroup tmpfs); else v1 at @mount itself when it has
 * memory.stat (@mount is the v1 memory mount).  Writes that directory to
 * @hier (@size bytes).  Returns CG_V2 or CG_V1, -ENOENT when no memory
 * controller is found, -ENAMETOOLONG when a path does not fit.  errno is
 * preserved; no allocation.
 */
int cg_detect_mount(const char *mount, char *hier, size_t size);

#endif /* ADVSHIM_COMMON_CGROUP_READ_H */
