// SPDX-License-Identifier: MIT
/*
 * cgroup_read.c - the I/O half of the memory cgroup figures (see
 * cgroup_read.h): read files through a root into stack buffers, hand
 * them to the parsers of cgroup.c.
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

#include "common/cgroup_read.h"
#include "common/readbuf.h"

/* The names per hierarchy version. */
static const char *usage_name(int version)
{
	return version == CG_V1 ? "memory.usage_in_bytes" : "memory.current";
}

/* Reads file @name of cgroup @cgpath and parses it with @parse. */
static int read_value(const char *root, int version, const char *cgpath,
		      const char *name,
		      int (*parse)(const char *, size_t, uint64_t *),
		      uint64_t *v)
{
	char path[CG_PATH_MAX + 64], buf[64];
	ssize_t n;
	int r;

	r = cg_file_path(path, sizeof(path), root, version, cgpath, name);
	if (r)
		return r;
	n = read_buf(path, buf, sizeof(buf));
	if (n < 0)
		return (int)n;
	return parse(buf, (size_t)n, v);
}

/*
 * Is @w the root of a v2 hierarchy with the memory controller?  The root
 * cgroup has no memory.current, memory.max or memory.high: a process in
 * it (no systemd: an init's children, a lab guest) has no memcg limit.
 * Told from a missing mount by the root's cgroup.controllers listing
 * "memory".
 */
static bool v2_memory_root(const char *root, const struct cg_where *w)
{
	char path[CG_PATH_MAX + 64], buf[256];
	ssize_t n;

	if (w->version != CG_V2 || strcmp(w->path, "/") ||
	    cg_file_path(path, sizeof(path), root, CG_V2, "/",
			 "cgroup.controllers"))
		return false;
	n = read_buf(path, buf, sizeof(buf));
	return n >= 0 && cg_parse_has_memory(buf, (size_t)n);
}

int cg_locate_proc(const char *root, const char *proc, struct cg_where *w)
{
	char path[CG_PATH_MAX + 64], buf[8192];
	uint64_t usage;
	ssize_t n;
	int r;

	path[0] = 0;
	if ((root && root[0] && strlen(root) >= CG_PATH_MAX) ||
	    strlen(proc) > 32)
		return -ENAMETOOLONG;
	if (root && root[0])
		strcpy(path, root);
	strcat(path, "/proc/");
	strcat(path, proc);
	strcat(path, "/cgroup");
	n = read_buf(path, buf, sizeof(buf));
	if (n < 0)
		return (int)n;
	r = cg_parse_self(buf, (size_t)n, w->path, sizeof(w->path));
	if (r < 0)
		return r;
	w->version = r;
	r = read_value(root, w->version, w->path, usage_name(w->version),
		       cg_parse_bytes, &usage);
	if (r == -ENOENT && !strcmp(w->path, "/"))
		return v2_memory_root(root, w) ? 0 : r;
	if (r != -ENOENT)
		return r;
	/* A container's own cgroup mounted as the hierarchy's root. */
	strcpy(w->path, "/");
	return read_value(root, w->version, w->path, usage_name(w->version),
			  cg_parse_bytes, &usage);
}

int cg_locate(const char *root, struct cg_where *w)
{
	return cg_locate_proc(root, "self", w);
}

/* The smaller of *limit and the limit file @name of @cgpath, if any. */
static int min_limit(const char *root, int version, const char *cgpath,
		     const char *name, uint64_t *limit)
{
	uint64_t v;
	int r = read_value(root, version, cgpath, name, cg_parse_limit, &v);

	if (r == -ENOENT)	/* the root cgroup has no limit files */
		return 0;
	if (r)
		return r;
	if (v < *limit)
		*limit = v;
	return 0;
}

int cg_read_figures(const char *root, const struct cg_where *w,
		    struct cg_figures *f)
{
	char cg[CG_PATH_MAX];
	struct cg_figures out = { .limit = CG_UNLIMITED };
	int r;

	r = read_value(root, w->version, w->path, usage_name(w->version),
		       cg_parse_bytes, &out.usage);
	if (r == -ENOENT && v2_memory_root(root, w)) {
		*f = out;	/* no limit; usage not kept at the root: 0 */
		return 0;
	}
	if (r)
		return r;
	memcpy(cg, w->path, sizeof(cg));
	cg[sizeof(cg) - 1] = 0;
	for (;;) {
		if (w->version == CG_V1) {
			r = min_limit(root, CG_V1, cg, "memory.limit_in_bytes",
				      &out.limit);
		} else {
			r = min_limit(root, CG_V2, cg, "memory.max", &out.limit);
			if (!r)
				r = min_limit(root, CG_V2, cg, "memory.high",
					      &out.limit);
		}
		if (r)
			return r;
		if (cg_parent(cg))
			break;
		out.depth++;
	}
	*f = out;
	return 0;
}

int cg_read_meminfo(const char *root, uint64_t *total, uint64_t *avail)
{
	char path[CG_PATH_MAX + 32], buf[8192];
	ssize_t n;

	path[0] = 0;
	if (root && root[0] && strlen(root) >= CG_PATH_MAX)
		return -ENAMETOOLONG;
	if (root && root[0])
		strcpy(path, root);
	strcat(path, "/proc/meminfo");
	n = read_buf(path, buf, sizeof(buf));
	if (n < 0)
		return (int)n;
	return meminfo_parse(buf, (size_t)n, total, avail);
}

/* "@dir/@name" into @out, or -ENAMETOOLONG. */
static int join(char *out, size_t size, const char *dir, const char *name)
{
	size_t n = strlen(dir), m = strlen(name);

	if (n + 1 + m >= size)
		return -ENAMETOOLONG;
	memcpy(out, dir, n);
	out[n] = '/';
	memcpy(out + n + 1, name, m + 1);
	return 0;
}

/* Does @dir/cgroup.controllers list "memory"?  <0: a path too long. */
static int v2_with_memory(const char *dir)
{
	char path[CG_PATH_MAX + 32], buf[512];
	ssize_t n;

	if (join(path, sizeof(path), dir, "cgroup.controllers"))
		return -ENAMETOOLONG;
	n = read_buf(path, buf, sizeof(buf));
	return n >= 0 && cg_parse_has_memory(buf, (size_t)n);
}

/* Does @dir/memory.stat exist?  <0: a path too long. */
static int has_memstat(const char *dir)
{
	char path[CG_PATH_MAX + 32];
	int saved = errno, r;

	if (join(path, sizeof(path), dir, "memory.stat"))
		return -ENAMETOOLONG;
	r = !access(path, F_OK);
	errno = saved;
	return r;
}

/* @dir (or @dir/@sub) into @hier as hierarchy @version. */
static int found(char *hier, size_t size, const char *dir, const char *sub,
		 int version)
{
	if (sub)
		return join(hier, size, dir, sub) ? -ENAMETOOLONG : version;
	if (strlen(dir) >= size)
		return -ENAMETOOLONG;
	strcpy(hier, dir);
	return version;
}

int cg_detect_mount(const char *mount, char *hier, size_t size)
{
	char sub[CG_PATH_MAX];
	int r;

	if ((r = v2_with_memory(mount)) != 0)
		return r < 0 ? r : found(hier, size, mount, NULL, CG_V2);
	if (join(sub, sizeof(sub), mount, "unified"))
		return -ENAMETOOLONG;
	if ((r = v2_with_memory(sub)) != 0)
		return r < 0 ? r : found(hier, size, mount, "unified", CG_V2);
	if (join(sub, sizeof(sub), mount, "memory"))
		return -ENAMETOOLONG;
	if ((r = has_memstat(sub)) != 0)
		return r < 0 ? r : found(hier, size, mount, "memory", CG_V1);
	if ((r = has_memstat(mount)) != 0)
		return r < 0 ? r : found(hier, size, mount, NULL, CG_V1);
	return -ENOENT;
}
