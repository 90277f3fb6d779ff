// SPDX-License-Identifier: MIT
/*
 * fuzz_lrugen.c - any bytes as /sys/kernel/debug/lru_gen(_full).
 *
 * The one lru_gen parser (common/lrugen.c, used by the watcher and
 * advshim-ab) must reject what it does not understand, and a snapshot it
 * accepts must be consistent: every memcg has node blocks, every node
 * 2..4 generations with consecutive seqs, paths inside the path buffer,
 * find_path/find_node find what was parsed, and the span advshim-ab
 * samples (lrugen_memcg_span) agrees with the node blocks and, for a
 * unique path, with a plain line-by-line reading of the text (ref_span:
 * the lenient reader advshim-ab had before it used this parser).
 * Snapshots are parsed both fresh and into a reused one (the watcher
 * reuses its snapshot every interval, advshim-ab every sample).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/lrugen.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void expect(int cond, const char *what)
{
	if (!cond) {
		fprintf(stderr, "fuzz_lrugen: broken: %s\n", what);
		abort();
	}
}

/* Does the "memcg ID PATH" line at [p, end) name @path? */
static int ref_memcg_is(const char *p, const char *end, const char *path)
{
	p += 6;
	while (p < end && *p == ' ')
		p++;
	while (p < end && *p >= '0' && *p <= '9')
		p++;
	if (p == end || *p++ != ' ')
		return 0;
	return (size_t)(end - p) == strlen(path) &&
	       !memcmp(p, path, (size_t)(end - p));
}

/* A row with 1..10 leading spaces and 4 fields: a generation; its seq. */
static int ref_gen_row(const char *p, const char *end, unsigned long *seq)
{
	int lead = 0, fields = 0;

	while (p < end && *p == ' ')
		p++, lead++;
	if (!lead || lead > 10 || p == end)
		return 0;
	*seq = strtoul(p, NULL, 10);
	while (p < end) {
		while (p < end && *p == ' ')
			p++;
		if (p == end)
			break;
		fields++;
		while (p < end && *p != ' ')
			p++;
	}
	return fields == 4;
}

/* Oldest and youngest seq over the node blocks of the memcg at @path. */
static int ref_span(const char *text, const char *path, unsigned long *lo,
		    unsigned long *hi)
{
	const char *p = text, *nl;
	unsigned long seq;
	int in = 0, first = 0, any = 0;

	*lo = (unsigned long)-1;
	*hi = 0;
	for (; (nl = strchr(p, '\n')); p = nl + 1) {
		if (!strncmp(p, "memcg ", 6)) {
			if (in)
				break;
			in = ref_memcg_is(p, nl, path);
		} else if (in && !strncmp(p, " node ", 6)) {
			first = 1;
		} else if (in && ref_gen_row(p, nl, &seq)) {
			if (first && seq < *lo)
				*lo = seq;
			if (seq > *hi)
				*hi = seq;
			first = 0;
			any = 1;
		}
	}
	return any;
}

static void check_memcg(const struct lrugen_snap *s,
			const struct lrugen_memcg *m, const char *text)
{
	unsigned long lo = (unsigned long)-1, hi = 0;
	struct lrugen_span span;
	const char *path;
	int nr = 0, most = 0;

	expect(m->path_off < s->paths_len, "path offset outside the buffer");
	path = lrugen_path(s, m);
	expect(memchr(path, 0, s->paths_len - m->path_off) != NULL,
	       "path not terminated inside the buffer");
	expect(m->nr_nodes >= 1, "memcg without nodes accepted");
	expect(m->first_node + m->nr_nodes <= s->nr_nodes,
	       "node range outside the snapshot");
	for (size_t i = 0; i < m->nr_nodes; i++) {
		const struct lrugen_node *n = &s->nodes[m->first_node + i];

		expect(n->nr_gens >= 2 && n->nr_gens <= LRUGEN_MAX_GENS,
		       "node with a bad number of generations accepted");
		for (int g = 1; g < n->nr_gens; g++)
			expect(n->gens[g].seq == n->gens[g - 1].seq + 1,
			       "generations not consecutive");
		expect(lrugen_find_node(s, m, n->nid) == n,
		       "find_node does not find the node block");
		if (n->gens[0].seq < lo)
			lo = n->gens[0].seq;
		if (lrugen_max_seq(n) > hi)
			hi = lrugen_max_seq(n);
		if (n->nr_gens > most)
			most = n->nr_gens;
		(void)lrugen_youngest_age(n);
	}
	lrugen_memcg_span(s, m, &span);
	expect(span.min_seq == lo && span.max_seq == hi && span.nr_gens == most,
	       "the memcg's span disagrees with its node blocks");
	expect(lrugen_find_path(s, path, &nr) != NULL && nr >= 1,
	       "find_path does not find a parsed path");
	if (nr == 1) {
		unsigned long rlo, rhi;

		expect(lrugen_find_path(s, path, NULL) == m,
		       "find_path found another memcg");
		if (!strchr(path, '\n') && ref_span(text, path, &rlo, &rhi))
			expect(rlo == lo && rhi == hi,
			       "a plain reading of the text disagrees on the span");
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct lrugen_snap reused;
	struct lrugen_snap fresh = { 0 };
	struct lrugen_err err;
	char *text;
	int r1, r2;

	text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';

	memset(&err, 0x5a, sizeof(err));
	r1 = lrugen_parse(text, size, &fresh, &err);
	if (r1) {
		expect(memchr(err.msg, 0, sizeof(err.msg)) != NULL,
		       "error message not terminated");
		expect(err.line >= 0, "negative error line");
	} else {
		for (size_t i = 0; i < fresh.nr_memcgs; i++)
			check_memcg(&fresh, &fresh.memcgs[i], text);
	}
	r2 = lrugen_parse(text, size, &reused, &err);
	expect(r1 == r2, "reused snapshot parses differently");
	if (!r2) {
		expect(reused.nr_memcgs == fresh.nr_memcgs &&
		       reused.nr_nodes == fresh.nr_nodes &&
		       reused.full == fresh.full,
		       "reused snapshot differs");
		for (size_t i = 0; i < reused.nr_memcgs; i++)
			expect(!strcmp(lrugen_path(&reused, &reused.memcgs[i]),
				       lrugen_path(&fresh, &fresh.memcgs[i])),
			       "reused snapshot has other paths");
	}
	lrugen_snap_free(&fresh);
	free(text);
	return 0;
}
