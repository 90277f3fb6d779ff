// SPDX-License-Identifier: MIT
/*
 * memstat.c - memory.stat parser (v1 and v2 names).
 */
#include "tools/watch/memstat.h"

#include <errno.h>
#include <string.h>

/* Lower rank wins: the most specific name the kernel offers. */
static const struct {
	const char *key;
	int rank;
	bool activate;
} keys[] = {
	{ "workingset_refault_file", 0, false },	/* v2, v1 own */
	{ "total_workingset_refault_file", 1, false },	/* v1 hierarchical */
	{ "workingset_refault", 2, false },		/* v2 before 5.9 */
	{ "workingset_activate_file", 0, true },	/* v2 */
	{ "workingset_activate", 2, true },		/* v2 before 5.9 */
};

static int parse_value(const char *p, const char *end, uint64_t *out)
{
	uint64_t v = 0;

	if (p == end)
		return -1;
	for (; p < end; p++) {
		if (*p < '0' || *p > '9')
			return -1;
		if (v > (UINT64_MAX - 9) / 10)
			return -1;
		v = v * 10 + (uint64_t)(*p - '0');
	}
	*out = v;
	return 0;
}

int memstat_parse(const char *buf, size_t len, struct memstat *out)
{
	const char *p = buf, *end = buf + len;
	int best[2] = { 99, 99 };

	memset(out, 0, sizeof(*out));
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *sp, *lend = nl ? nl : end;
		uint64_t v;
		size_t klen, i;

		if (lend == p) {
			p = lend + 1;
			continue;
		}
		sp = memchr(p, ' ', (size_t)(lend - p));
		if (!sp) {
			errno = EINVAL;
			return -1;
		}
		klen = (size_t)(sp - p);
		for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
			int a = keys[i].activate;

			if (strlen(keys[i].key) != klen ||
			    memcmp(keys[i].key, p, klen))
				continue;
			/* negative values (v1 "hierarchical_*" never) are bad */
			if (parse_value(sp + 1, lend, &v)) {
				errno = EINVAL;
				return -1;
			}
			if (keys[i].rank >= best[a])
				break;
			best[a] = keys[i].rank;
			if (a) {
				out->has_activate = true;
				out->activate_file = v;
			} else {
				out->has_refault = true;
				out->refault_file = v;
				out->refault_key = keys[i].key;
			}
			break;
		}
		p = lend + 1;
	}
	return 0;
}
