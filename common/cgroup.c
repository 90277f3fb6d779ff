// SPDX-License-Identifier: MIT
/*
 * cgroup.c - parsers for the memory cgroup files the adaptive advice
 * reads (see cgroup.h).  Pure: buffers in, numbers out, no errno, no
 * allocation, no library call that could do either.
 */
#include <errno.h>
#include <string.h>

#include "common/cgroup.h"

/*
 * Decimal digits in [*p, end) into *v; advances *p past them.  At least
 * one digit; no sign, no spaces.  0, -EINVAL or -ERANGE.
 */
static int scan_u64(const char **p, const char *end, uint64_t *v)
{
	const char *s = *p;
	uint64_t n = 0;

	if (s == end || *s < '0' || *s > '9')
		return -EINVAL;
	for (; s < end && *s >= '0' && *s <= '9'; s++) {
		unsigned int d = (unsigned int)(*s - '0');

		if (n > (UINT64_MAX - d) / 10)
			return -ERANGE;
		n = n * 10 + d;
	}
	*p = s;
	*v = n;
	return 0;
}

/* The text without one trailing newline must be exactly [p, end). */
static const char *strip_nl(const char *buf, size_t len)
{
	return len && buf[len - 1] == '\n' ? buf + len - 1 : buf + len;
}

int cg_parse_bytes(const char *buf, size_t len, uint64_t *bytes)
{
	const char *p = buf, *end = strip_nl(buf, len);
	uint64_t v;
	int r = scan_u64(&p, end, &v);

	if (r)
		return r;
	if (p != end)
		return -EINVAL;
	*bytes = v;
	return 0;
}

int cg_parse_limit(const char *buf, size_t len, uint64_t *bytes)
{
	const char *end = strip_nl(buf, len);
	uint64_t v;
	int r;

	if (end - buf == 3 && !memcmp(buf, "max", 3)) {
		*bytes = CG_UNLIMITED;
		return 0;
	}
	r = cg_parse_bytes(buf, len, &v);
	if (r)
		return r;
	*bytes = v >= CG_V1_UNLIMITED_MIN ? CG_UNLIMITED : v;
	return 0;
}

/* Does the list [p, end), items separated by @sep, hold @name? */
static int list_has(const char *p, const char *end, char sep,
		    const char *name)
{
	size_t n = strlen(name);

	while (p < end) {
		const char *c = memchr(p, sep, (size_t)(end - p));
		const char *e = c ? c : end;

		if ((size_t)(e - p) == n && !memcmp(p, name, n))
			return 1;
		p = e + 1;
	}
	return 0;
}

/* One "ID:CONTROLLERS:PATH" line [p, end): which kind, where PATH is. */
static int self_line(const char *p, const char *end, const char **path)
{
	const char *c1, *c2;
	uint64_t id;
	int r = scan_u64(&p, end, &id);

	if (r)
		return -EINVAL;
	if (p == end || *p != ':')
		return -EINVAL;
	c1 = p;
	c2 = memchr(c1 + 1, ':', (size_t)(end - c1 - 1));
	if (!c2 || c2 + 1 == end || c2[1] != '/')
		return -EINVAL;
	*path = c2 + 1;
	if (list_has(c1 + 1, c2, ',', "memory"))
		return CG_V1;
	if (id == 0 && c2 == c1 + 1)
		return CG_V2;
	return 0;			/* another v1 hierarchy */
}

bool cg_parse_has_memory(const char *buf, size_t len)
{
	if (len && buf[len - 1] == '\n')
		len--;
	return list_has(buf, buf + len, ' ', "memory");
}

int cg_parse_self(const char *buf, size_t len, char *path, size_t size)
{
	const char *p = buf, *end = buf + len, *v2 = NULL, *v2_end = NULL;
	const char *found = NULL, *found_end = NULL;
	int version = -ENOENT;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *e = nl ? nl : end, *at;
		int kind = self_line(p, e, &at);

		if (kind < 0)
			return kind;
		if (kind == CG_V1 && !found) {
			found = at;
			found_end = e;
			version = CG_V1;
		} else if (kind == CG_V2 && !v2) {
			v2 = at;
			v2_end = e;
		}
		p = e + 1;
	}
	if (!found && v2) {
		found = v2;
		found_end = v2_end;
		version = CG_V2;
	}
	if (!found)
		return -ENOENT;
	if ((size_t)(found_end - found) >= size)
		return -ENAMETOOLONG;
	memcpy(path, found, (size_t)(found_end - found));
	path[found_end - found] = 0;
	return version;
}

/* One meminfo line: "Key:" spaces digits [" kB"]. */
static int meminfo_line(const char *p, const char *end, const char **key,
			size_t *key_len, uint64_t *v)
{
	const char *colon = memchr(p, ':', (size_t)(end - p));
	int r;

	if (!colon || colon == p)
		return -EINVAL;
	*key = p;
	*key_len = (size_t)(colon - p);
	for (p = colon + 1; p < end && *p == ' '; p++)
		;
	r = scan_u64(&p, end, v);
	if (r)
		return r;
	if (end - p == 3 && !memcmp(p, " kB", 3)) {
		if (*v > UINT64_MAX / 1024)
			return -ERANGE;
		*v *= 1024;
		p = end;
	}
	return p == end ? 0 : -EINVAL;
}

int meminfo_parse(const char *buf, size_t len, uint64_t *total,
		  uint64_t *avail)
{
	const char *p = buf, *end = buf + len;
	uint64_t t = 0, a = 0;
	int seen_t = 0, seen_a = 0;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *e = nl ? nl : end, *key;
		size_t kl;
		uint64_t v;
		int r = meminfo_line(p, e, &key, &kl, &v);

		if (r)
			return r;
		if (kl == 8 && !memcmp(key, "MemTotal", 8)) {
			if (seen_t++)
				return -EINVAL;
			t = v;
		} else if (kl == 12 && !memcmp(key, "MemAvailable", 12)) {
			if (seen_a++)
				return -EINVAL;
			a = v;
		}
		p = e + 1;
	}
	if (!seen_t || !seen_a)
		return -ENOENT;
	*total = t;
	*avail = a;
	return 0;
}

/* Appends the NUL-terminated @s at *at; -ENAMETOOLONG if it does not fit. */
static int put(char *out, size_t size, size_t *at, const char *s)
{
	size_t n = strlen(s);

	if (*at + n >= size)
		return -ENAMETOOLONG;
	memcpy(out + *at, s, n + 1);
	*at += n;
	return 0;
}

int cg_file_path(char *out, size_t size, const char *root, int version,
		 const char *cgpath, const char *file)
{
	const char *mount = version == CG_V1 ? CG_V1_MOUNT :
		version == CG_V2 ? CG_V2_MOUNT : NULL;
	size_t at = 0;
	int r;

	if (!mount || cgpath[0] != '/' || !size)
		return -EINVAL;
	out[0] = 0;
	if (root && root[0]) {
		r = put(out, size, &at, root);
		if (r)
			return r;
		while (at > 0 && out[at - 1] == '/')	/* "/" or "dir/" */
			out[--at] = 0;
	}
	r = put(out, size, &at, mount);
	if (!r && strcmp(cgpath, "/"))
		r = put(out, size, &at, cgpath);
	if (!r)
		r = put(out, size, &at, "/");
	if (!r)
		r = put(out, size, &at, file);
	return r;
}

int cg_parent(char *cgpath)
{
	char *slash = strrchr(cgpath, '/');

	if (!slash || !strcmp(cgpath, "/"))
		return -ENOENT;
	if (slash == cgpath)
		slash[1] = 0;
	else
		*slash = 0;
	return 0;
}
