/* SPDX-License-Identifier: MIT */
/*
 * cgroup.h - which memory cgroup a process is in, its limit and usage,
 * and the machine's memory when there is no limit (cgroup v1 and v2).
 *
 * Parsers of kernel text: /proc/self/cgroup, memory.max / memory.high /
 * memory.limit_in_bytes, memory.current / memory.usage_in_bytes and
 * /proc/meminfo.  They take a buffer and its length, never allocate,
 * never touch errno and keep no state, so libadvshim.so can call them from
 * any thread (memory.stat has its own parser elsewhere in common/).  The
 * files are read by the caller (common/readbuf.h) through a root, so
 * tests point them at fixture trees.
 *
 * Errors are returned as negative errno values: -EINVAL for text that is
 * not what the kernel writes, -ERANGE for a number that does not fit,
 * -ENOENT when the text lacks what was asked for, -ENAMETOOLONG when a
 * result does not fit the caller's buffer.
 */
#ifndef ADVSHIM_COMMON_CGROUP_H
#define ADVSHIM_COMMON_CGROUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum cg_version {
	CG_V1 = 1,		/* the v1 hierarchy with the memory controller */
	CG_V2 = 2,		/* the unified hierarchy */
};

/* No limit: v2 "max", a v1 limit of PAGE_COUNTER_MAX pages. */
#define CG_UNLIMITED		UINT64_MAX
/*
 * v1 shows "no limit" as PAGE_COUNTER_MAX (LONG_MAX / PAGE_SIZE) pages in
 * bytes: 9223372036854771712 with 4 KiB pages, less with larger pages.
 * Nobody sets a real limit of 4 EiB, so anything from 2^62 up is "none".
 */
#define CG_V1_UNLIMITED_MIN	(1ULL << 62)

/* Where the hierarchies are mounted (below a test root). */
#define CG_V2_MOUNT		"/sys/fs/cgroup"
#define CG_V1_MOUNT		"/sys/fs/cgroup/memory"

/*
 * cg_parse_self - the memory cgroup of a /proc/PID/cgroup text.  Lines
 * are "ID:CONTROLLERS:PATH".  A v1 line whose comma-separated controller
 * list holds "memory" wins (hybrid systems list both: v2's "0::" line then
 * names a hierarchy without the memory controller); else the "0::" line.
 * Copies PATH (it starts with '/'; it may contain ':' and spaces) into
 * @path, NUL-terminated, @size bytes at most.
 * Returns CG_V1 or CG_V2; -EINVAL for a malformed line (a bad ID, fewer
 * than two ':', a path not starting with '/'); -ENOENT when no line names
 * a memory cgroup (v1 without the memory controller); -ENAMETOOLONG.
 */
int cg_parse_self(const char *buf, size_t len, char *path, size_t size);

/*
 * cg_parse_has_memory - does a v2 cgroup.controllers text (space-separated
 * names, an optional newline) list "memory"?
 */
bool cg_parse_has_memory(const char *buf, size_t len);

/*
 * cg_parse_limit - a limit file: v2 memory.max or memory.high ("max" or
 * a byte count), v1 memory.limit_in_bytes (a byte count; from
 * CG_V1_UNLIMITED_MIN up it means none).  One value and an optional
 * newline.  Sets *bytes (CG_UNLIMITED for none) and returns 0, or -EINVAL
 * / -ERANGE (then *bytes is untouched).
 */
int cg_parse_limit(const char *buf, size_t len, uint64_t *bytes);

/*
 * cg_parse_bytes - a usage file (v2 memory.current, v1
 * memory.usage_in_bytes): one decimal byte count and an optional newline.
 * Returns 0 and sets *bytes, or -EINVAL / -ERANGE.
 */
int cg_parse_bytes(const char *buf, size_t len, uint64_t *bytes);

/*
 * meminfo_parse - MemTotal and MemAvailable of /proc/meminfo, in bytes.
 * Every line must be "Key: value" with an optional " kB"; the two keys
 * must each appear exactly once.  Returns 0, or -EINVAL (a malformed
 * line, a duplicate), -ERANGE, -ENOENT (a key missing: MemAvailable is
 * there since 3.14).
 */
int meminfo_parse(const char *buf, size_t len, uint64_t *total,
		  uint64_t *avail);

/*
 * cg_file_path - "@root@mount@cgpath/@file" into @out (@size bytes):
 * the file @file of cgroup @cgpath of hierarchy @version (CG_V1_MOUNT or
 * CG_V2_MOUNT).  @root may be NULL or "" (the real root); @cgpath "/" is
 * the mount's own root.  Returns 0 or -ENAMETOOLONG (or -EINVAL for an
 * unknown version or a @cgpath not starting with '/').
 */
int cg_file_path(char *out, size_t size, const char *root, int version,
		 const char *cgpath, const char *file);

/*
 * cg_parent - cut the last component of the cgroup path @cgpath in place
 * ("/a/b" -> "/a", "/a" -> "/").  Returns 0, or -ENOENT when @cgpath is
 * already "/" (no parent inside this mount).
 */
int cg_parent(char *cgpath);

#endif /* ADVSHIM_COMMON_CGROUP_H */
