// SPDX-License-Identifier: MIT
/*
 * fuzz_memstat.c - any bytes as a cgroup v1 or v2 memory.stat.
 *
 * The watcher's memstat_parse() (tools/watch/memstat.c) and advshim-ab's
 * parse_memstat() (tools/ab/kparse.c, v1 and v2 modes) must survive
 * anything.  When the watcher accepts the text and names the key it took
 * the refault count from, that key must occur in the text with exactly
 * that value (checked against a plain reference reading of the lines).
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/watch/memstat.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* fuzz/ab_memstat.c: advshim-ab's struct memstat has the same tag. */
void fuzz_ab_memstat(const char *text);

static void expect(int cond, const char *what)
{
	if (!cond) {
		fprintf(stderr, "fuzz_memstat: broken: %s\n", what);
		abort();
	}
}

/*
 * Reference: the values of every "KEY DIGITS" line for @key; returns how
 * many lines carry @key, the first value in *v.
 */
static int ref_lookup(const char *text, size_t len, const char *key,
		      uint64_t *v)
{
	size_t klen = strlen(key);
	const char *p = text, *end = text + len;
	int n = 0;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;

		if ((size_t)(le - p) > klen && !memcmp(p, key, klen) &&
		    p[klen] == ' ') {
			if (!n)
				*v = strtoull(p + klen + 1, NULL, 10);
			n++;
		}
		p = le + 1;
	}
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct memstat w;
	char *text;
	uint64_t v = 0;

	text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	if (memstat_parse(text, size, &w) == 0 && w.has_refault) {
		expect(w.refault_key != NULL, "refault without its key");
		if (!memchr(text, 0, size) &&
		    ref_lookup(text, size, w.refault_key, &v) == 1)
			expect(v == w.refault_file,
			       "refault value differs from the text");
	}
	fuzz_ab_memstat(text);
	free(text);
	return 0;
}
