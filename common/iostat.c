// SPDX-License-Identifier: MIT
/*
 * iostat.c - io.stat and /proc/PID/io parsers (formats in iostat.h).
 */
#include "common/iostat.h"

#include <stdbool.h>
#include <string.h>

#include "common/decimal.h"

/* One "MAJ:MIN k=v k=v ..." line; adds its rbytes to *sum. */
static int iostat_line(const char *p, const char *end, uint64_t *sum)
{
	uint64_t dev, rbytes = 0;
	bool found = false;

	p = decimal_u64(p, end, &dev);
	if (!p || p == end || *p++ != ':')
		return -1;
	p = decimal_u64(p, end, &dev);
	if (!p)
		return -1;
	while (p < end) {
		const char *tok, *eq, *tend;

		if (*p++ != ' ' || p == end)
			return -1;
		tok = p;
		tend = memchr(p, ' ', (size_t)(end - p));
		if (!tend)
			tend = end;
		eq = memchr(tok, '=', (size_t)(tend - tok));
		if (!eq || eq == tok)
			return -1;
		if (eq - tok == 6 && !memcmp(tok, "rbytes", 6)) {
			if (found || decimal_u64_all(eq + 1, tend, &rbytes))
				return -1;
			found = true;
		}
		p = tend;
	}
	if (!found)
		return -1;
	*sum += rbytes;
	return 0;
}

int iostat_rbytes(const char *buf, size_t len, uint64_t *rbytes)
{
	const char *p = buf, *end = buf + len;
	uint64_t sum = 0;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *lend = nl ? nl : end;

		if (lend != p && iostat_line(p, lend, &sum))
			return -1;
		p = lend + 1;
	}
	*rbytes = sum;
	return 0;
}

int proc_io_read_bytes(const char *buf, size_t len, uint64_t *read_bytes)
{
	static const char key[] = "read_bytes";
	const char *p = buf, *end = buf + len;
	bool found = false;
	uint64_t v, rb = 0;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *lend = nl ? nl : end;
		const char *colon = memchr(p, ':', (size_t)(lend - p));

		if (lend != p) {
			if (!colon || colon == p || lend - colon < 3 ||
			    colon[1] != ' ' ||
			    decimal_u64_all(colon + 2, lend, &v))
				return -1;
			if (colon - p == sizeof(key) - 1 &&
			    !memcmp(p, key, sizeof(key) - 1) && !found) {
				rb = v;
				found = true;
			}
		}
		p = lend + 1;
	}
	if (!found)
		return -1;
	*read_bytes = rb;
	return 0;
}
