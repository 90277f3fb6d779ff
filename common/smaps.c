// SPDX-License-Identifier: MIT
/*
 * smaps.c - /proc/PID/smaps reader (format in smaps.h).
 */
#include "common/smaps.h"

#include <string.h>

#include "common/decimal.h"

static bool is_hex(char ch)
{
	return (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f');
}

/* Lower-case hex digits at @p; the byte after them, or NULL. */
static const char *hex_u64(const char *p, const char *end, uint64_t *out)
{
	const char *start = p;
	uint64_t v = 0;

	for (; p < end && is_hex(*p); p++) {
		if (v >> 60)
			return NULL;
		v = v << 4 | (uint64_t)(*p <= '9' ? *p - '0' : *p - 'a' + 10);
	}
	if (p == start)
		return NULL;
	*out = v;
	return p;
}

/* "@p" then the character @ch; the byte after it, or NULL. */
static const char *expect_ch(const char *p, const char *end, char ch)
{
	return p && p < end && *p == ch ? p + 1 : NULL;
}

/* "START-END PERM OFFSET MAJ:MIN INODE[ NAME]" */
int smaps_header(const char *line, size_t len, struct smaps_vma *v)
{
	const char *p = line, *end = line + len;
	uint64_t maj, min;
	int i;

	memset(v, 0, sizeof(*v));
	p = expect_ch(hex_u64(p, end, &v->start), end, '-');
	p = expect_ch(p ? hex_u64(p, end, &v->end) : NULL, end, ' ');
	if (!p || end - p < 5 || p[4] != ' ')
		return -1;
	for (i = 0; i < 4; i++)
		v->perms[i] = p[i];
	p = expect_ch(hex_u64(p + 5, end, &v->offset), end, ' ');
	p = expect_ch(p ? hex_u64(p, end, &maj) : NULL, end, ':');
	p = expect_ch(p ? hex_u64(p, end, &min) : NULL, end, ' ');
	p = p ? decimal_u64(p, end, &v->inode) : NULL;
	if (!p || v->end < v->start || maj > UINT32_MAX || min > UINT32_MAX)
		return -1;
	v->dev_major = (unsigned int)maj;
	v->dev_minor = (unsigned int)min;
	if (p == end)
		return 0;
	if (*p != ' ')
		return -1;
	while (p < end && *p == ' ')
		p++;
	v->path = p;
	v->path_len = (size_t)(end - p);
	return 0;
}

/* " xx yy " after "VmFlags:": two-character tokens, each after a space. */
static int check_flags(const char *p, const char *end)
{
	while (p < end) {
		if (*p != ' ')
			return -1;
		while (p < end && *p == ' ')
			p++;
		if (p == end)
			break;
		if (end - p < 2 || p[0] == ' ' || p[1] == ' ' ||
		    (end - p > 2 && p[2] != ' '))
			return -1;
		p += 2;
	}
	return 0;
}

/* "Key: value"; Rss and VmFlags are kept, the rest only checked. */
static int parse_field(const char *p, const char *end, struct smaps_vma *v)
{
	const char *k = p;

	if (!((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z')))
		return -1;
	while (p < end && *p != ':' && *p != ' ')
		p++;
	if (p == end || *p != ':')
		return -1;
	if (p - k == 7 && !memcmp(k, "VmFlags", 7)) {
		if (v->flags || check_flags(p + 1, end))
			return -1;
		v->flags = p + 1;
		v->flags_len = (size_t)(end - p - 1);
	} else if (p - k == 3 && !memcmp(k, "Rss", 3)) {
		for (p++; p < end && *p == ' '; p++)
			;
		p = decimal_u64(p, end, &v->rss_kib);
		if (v->has_rss || !p || end - p != 3 || memcmp(p, " kB", 3))
			return -1;
		v->has_rss = true;
	}
	return 0;
}

void smaps_begin(struct smaps_cursor *c, const char *buf, size_t len)
{
	c->p = buf;
	c->end = buf + len;
	c->line = 0;
}

/* The next line (without its '\n') in [*line, *lend); -1 if cut. */
static int next_line(struct smaps_cursor *c, const char **line,
		     const char **lend)
{
	const char *nl = memchr(c->p, '\n', (size_t)(c->end - c->p));

	c->line++;
	if (!nl)
		return -1;
	*line = c->p;
	*lend = nl;
	c->p = nl + 1;
	return 0;
}

int smaps_next(struct smaps_cursor *c, struct smaps_vma *vma)
{
	const char *line, *lend;

	if (c->p >= c->end)
		return 0;
	if (next_line(c, &line, &lend) ||
	    smaps_header(line, (size_t)(lend - line), vma))
		return -1;
	while (c->p < c->end && !is_hex(*c->p)) {
		if (next_line(c, &line, &lend) || line == lend ||
		    parse_field(line, lend, vma))
			return -1;
	}
	return 1;
}

bool smaps_has_flag(const struct smaps_vma *vma, const char *flag)
{
	const char *p = vma->flags, *end;

	if (!p || strlen(flag) != 2)
		return false;
	for (end = p + vma->flags_len; p + 2 <= end; p++)
		if (p[0] == flag[0] && p[1] == flag[1] && p[-1] == ' ' &&
		    (p + 2 == end || p[2] == ' '))
			return true;
	return false;
}

bool smaps_path_is(const struct smaps_vma *vma, const char *path)
{
	return vma->path_len && strlen(path) == vma->path_len &&
	       !memcmp(vma->path, path, vma->path_len);
}

int smaps_paths_flag(const char *buf, size_t len, const char *const *paths,
		     size_t n, const char *flag, int *state)
{
	struct smaps_cursor c;
	struct smaps_vma v;
	int mapped = 0, r;
	size_t i;

	for (i = 0; i < n; i++)
		state[i] = -1;
	smaps_begin(&c, buf, len);
	while ((r = smaps_next(&c, &v)) == 1) {
		for (i = 0; i < n; i++) {
			if (!smaps_path_is(&v, paths[i]))
				continue;
			if (state[i] < 0)
				mapped++;
			if (state[i] != 1)
				state[i] = smaps_has_flag(&v, flag);
		}
	}
	return r ? -1 : mapped;
}

int smaps_flag_at(const char *buf, size_t len, uint64_t addr,
		  const char *flag)
{
	struct smaps_cursor c;
	struct smaps_vma v;

	smaps_begin(&c, buf, len);
	while (smaps_next(&c, &v) == 1)
		if (addr >= v.start && addr < v.end)
			return v.flags ? smaps_has_flag(&v, flag) : -1;
	return -1;
}
