// SPDX-License-Identifier: MIT
/*
 * fuzz_memstat.c - any bytes as the small kernel files advshim samples:
 * memory.stat (cgroup v1 or v2), io.stat, /proc/PID/io and smaps, through
 * the one parser of each (common/memstat.c, iostat.c, smaps.c).
 *
 * All must survive anything.  When memstat_parse accepts the text, every
 * counter it reports must occur in the text with exactly that value under
 * the key it names (refault) or one of its keys, it must call the text v1
 * exactly when a total_ key is present, and a v1 reading never takes an
 * own-memcg value (checked against a plain reference reading of the
 * lines).  Accepted smaps mappings lie inside the text, start <= end.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/iostat.h"
#include "common/memstat.h"
#include "common/smaps.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

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

/* Is there a line starting with "total_" and holding a space? */
static int ref_v1(const char *text, size_t len)
{
	const char *p = text, *end = text + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		const char *sp = memchr(p, ' ', (size_t)(le - p));

		if (sp && sp - p > 6 && !memcmp(p, "total_", 6))
			return 1;
		p = le + 1;
	}
	return 0;
}

/* A reported value must be the text's value under one of its two keys. */
static void check_field(const char *text, size_t len, int v1, bool has,
			uint64_t val, const char *v2key, const char *v1key,
			const char *what)
{
	uint64_t ref = 0;

	if (!has)
		return;
	expect(ref_lookup(text, len, v1 ? v1key : v2key, &ref) >= 1, what);
	expect(ref == val, what);
}

static void check_memstat(const char *text, size_t size)
{
	struct memstat m;
	uint64_t v = 0;

	if (memstat_parse(text, size, &m)) {
		expect(m.bad_line >= 1, "refused without a line");
		return;
	}
	expect(m.v1 == ref_v1(text, size), "v1 detection");
	if (m.has_refault) {
		expect(m.refault_key != NULL, "refault without its key");
		expect((strncmp(m.refault_key, "total_", 6) == 0) == m.v1,
		       "refault key from the other cgroup version");
		if (ref_lookup(text, size, m.refault_key, &v) == 1)
			expect(v == m.refault_file,
			       "refault value differs from the text");
	}
	check_field(text, size, m.v1, m.has_pgmajfault, m.pgmajfault,
		    "pgmajfault", "total_pgmajfault", "pgmajfault");
	check_field(text, size, m.v1, m.has_file, m.file_bytes, "file",
		    "total_cache", "file");
	check_field(text, size, m.v1, m.has_anon, m.anon_bytes, "anon",
		    "total_rss", "anon");
	check_field(text, size, m.v1, m.has_active_file, m.active_file_bytes,
		    "active_file", "total_active_file", "active_file");
	check_field(text, size, m.v1, m.has_inactive_file,
		    m.inactive_file_bytes, "inactive_file",
		    "total_inactive_file", "inactive_file");
}

static void check_smaps(const char *text, size_t size)
{
	static const char *const paths[] = { "/data/a.vec", "/" };
	struct smaps_cursor c;
	struct smaps_vma v;
	int state[2], n;

	smaps_begin(&c, text, size);
	while (smaps_next(&c, &v) == 1) {
		expect(v.start <= v.end, "mapping ends before it starts");
		expect(!v.path_len || (v.path >= text &&
				       v.path + v.path_len <= text + size),
		       "path outside the text");
		expect(!v.flags || (v.flags >= text &&
				    v.flags + v.flags_len <= text + size),
		       "flags outside the text");
		(void)smaps_has_flag(&v, "rr");
	}
	n = smaps_paths_flag(text, size, paths, 2, "rr", state);
	expect(n >= -1 && n <= 2, "more paths mapped than asked for");
	(void)smaps_flag_at(text, size, 0x7f0000000000ull, "rr");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t v;
	char *text;

	text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	check_memstat(text, size);
	(void)iostat_rbytes(text, size, &v);
	(void)proc_io_read_bytes(text, size, &v);
	check_smaps(text, size);
	free(text);
	return 0;
}
