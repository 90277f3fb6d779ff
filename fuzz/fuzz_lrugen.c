// SPDX-License-Identifier: MIT
/*
 * fuzz_lrugen.c - any bytes as /sys/kernel/debug/lru_gen(_full).
 *
 * The watcher's strict parser (tools/watch/lrugen.c) must reject what it
 * does not understand, and a snapshot it accepts must be consistent:
 * every memcg has node blocks, every node 2..4 generations with
 * consecutive seqs, paths inside the path buffer, find_path/find_node
 * find what was parsed.  Snapshots are parsed both fresh and into a
 * reused one (the daemon reuses its snapshot every interval).  advshim-ab's
 * lenient parse_lrugen() (tools/ab/kparse.c) reads the same text and,
 * on text the strict parser accepts with a unique path, must report the
 * same min_seq/max_seq.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/ab/kparse.h"
#include "tools/watch/lrugen.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void expect(int cond, const char *what)
{
	if (!cond) {
		fprintf(stderr, "fuzz_lrugen: broken: %s\n", what);
		abort();
	}
}

static void check_memcg(const struct lrugen_snap *s,
			const struct lrugen_memcg *m, const char *text)
{
	unsigned long lo = (unsigned long)-1, hi = 0;
	const char *path;
	int nr = 0;

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
		(void)lrugen_youngest_age(n);
	}
	expect(lrugen_find_path(s, path, &nr) != NULL && nr >= 1,
	       "find_path does not find a parsed path");
	if (nr == 1) {
		const struct lrugen_memcg *f = lrugen_find_path(s, path, NULL);
		struct gens g;

		expect(f == m, "find_path found another memcg");
		/* The lenient parser must agree on valid text. */
		if (path[0] && !strchr(path, '\n') &&
		    parse_lrugen(text, path, &g) == 0)
			expect(g.min_seq == lo && g.max_seq == hi,
			       "advshim-ab's parse_lrugen disagrees with the watcher");
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct lrugen_snap reused;
	struct lrugen_snap fresh = { 0 };
	struct lrugen_err err;
	struct gens g;
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

	/* advshim-ab's own reader, on anything. */
	(void)parse_lrugen(text, "/", &g);
	(void)parse_lrugen(text, "/system.slice/opensearch.service", &g);
	free(text);
	return 0;
}
