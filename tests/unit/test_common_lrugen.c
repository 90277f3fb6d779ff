// SPDX-License-Identifier: MIT
/*
 * test_common_lrugen.c - the lru_gen / lru_gen_full parser fed the
 * kernel's own formats (6.1, 6.12, 7.0), and the per-memcg generation span
 * advshim-ab samples from it.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/lrugen.h"
#include "tests/unit/fixture.h"

static void parse_ok(const char *rel, struct lrugen_snap *s)
{
	struct lrugen_err err;
	size_t len;
	char *buf = fixture(rel, &len);

	memset(s, 0, sizeof(*s));
	cr_assert_eq(lrugen_parse(buf, len, s, &err), 0, "%s:%d: %s", rel,
		     err.line, err.msg);
	free(buf);
}

static int parse_bad(const char *rel, struct lrugen_err *err)
{
	struct lrugen_snap s = { 0 };
	size_t len;
	char *buf = fixture(rel, &len);
	int ret = lrugen_parse(buf, len, &s, err);

	free(buf);
	lrugen_snap_free(&s);
	return ret;
}
Test(lrugen, v6_1_plain)
{
	struct lrugen_snap s;
	const struct lrugen_memcg *m;
	const struct lrugen_node *n;
	int nr;

	parse_ok("lru_gen/v6.1-lru_gen.txt", &s);
	cr_assert_eq(s.nr_memcgs, 3);
	cr_assert_not(s.full);
	m = lrugen_find_path(&s, "/system.slice/opensearch.service", &nr);
	cr_assert_not_null(m);
	cr_assert_eq(nr, 1);
	cr_assert_eq(m->id, 42);
	n = lrugen_find_node(&s, m, 0);
	cr_assert_not_null(n);
	cr_assert_eq(n->nr_gens, 4);
	cr_assert_eq(lrugen_max_seq(n), 8);
	cr_assert_eq(lrugen_youngest_age(n), 61225);
	cr_assert_eq(n->gens[0].seq, 5);
	cr_assert_eq(n->gens[0].file, 61440);
	cr_assert_eq(n->gens[2].anon, 3);
	cr_assert_not(n->has_rep);
	/* a path with a space survives whole */
	m = lrugen_find_path(&s, "/user.slice/user-1000.slice/my app.scope",
			     &nr);
	cr_assert_not_null(m);
	cr_assert_eq(m->id, 7);
	cr_assert_eq(lrugen_max_seq(lrugen_find_node(&s, m, 0)), 4);
	m = lrugen_find_path(&s, "/", NULL);
	cr_assert_eq(m->id, 1);
	cr_assert_null(lrugen_find_path(&s, "/nope", &nr));
	cr_assert_eq(nr, 0);
	lrugen_snap_free(&s);
}

Test(lrugen, v6_12_numa)
{
	struct lrugen_snap s;
	const struct lrugen_memcg *m;
	const struct lrugen_node *n;

	parse_ok("lru_gen/v6.12-lru_gen.txt", &s);
	m = lrugen_find_path(&s, "/", NULL);
	cr_assert_eq(m->nr_nodes, 2);
	n = lrugen_find_node(&s, m, 1);
	cr_assert_eq(n->nr_gens, 4);
	cr_assert_eq(lrugen_max_seq(n), 6);
	cr_assert_eq(lrugen_max_seq(lrugen_find_node(&s, m, 0)), 12);
	m = lrugen_find_path(&s, "/system.slice/opensearch.service", NULL);
	cr_assert_eq(m->id, 65535);
	n = lrugen_find_node(&s, m, 1);
	cr_assert_eq(n->nr_gens, 2);
	cr_assert_null(lrugen_find_node(&s, m, 2));
	lrugen_snap_free(&s);
}

Test(lrugen, v7_0_u64_ids)
{
	struct lrugen_snap s;
	const struct lrugen_memcg *m;

	parse_ok("lru_gen/v7.0-lru_gen.txt", &s);
	m = lrugen_find_path(&s, "/kubepods.slice/pod 1/app", NULL);
	cr_assert_not_null(m);
	cr_assert_eq(m->id, UINT64_MAX);
	cr_assert_eq(lrugen_max_seq(lrugen_find_node(&s, m, 0)), 12);
	lrugen_snap_free(&s);
}

Test(lrugen, v6_1_full_rep_on_file_min_seq)
{
	struct lrugen_snap s;
	const struct lrugen_node *n;

	parse_ok("lru_gen/v6.1-lru_gen_full.txt", &s);
	cr_assert(s.full);
	n = lrugen_find_node(&s, &s.memcgs[0], 0);
	cr_assert(n->has_rep);
	cr_assert_eq(n->file_min_seq, 5);
	cr_assert_eq(n->file_refaulted, 9010);
	cr_assert_eq(n->file_evicted, 9120);
	cr_assert_eq(lrugen_max_seq(n), 8);
	lrugen_snap_free(&s);
}

Test(lrugen, v6_12_full_x_marks)
{
	struct lrugen_snap s;
	const struct lrugen_node *n;

	parse_ok("lru_gen/v6.12-lru_gen_full.txt", &s);
	n = lrugen_find_node(&s, &s.memcgs[0], 0);
	cr_assert(n->gens[0].file_x);
	cr_assert_not(n->gens[0].anon_x);
	cr_assert_eq(n->file_min_seq, 1);
	cr_assert(n->has_rep);
	/* the seed's numbers: 15580028 refaulted of 15758245 evicted */
	cr_assert_eq(n->file_refaulted, 15580128);
	cr_assert_eq(n->file_evicted, 15758445);
	cr_assert_eq(n->file_protected, 30, "tiers 1 and 2: 10 + 20");
	lrugen_snap_free(&s);
}

Test(lrugen, v7_0_full_without_mm_rows)
{
	struct lrugen_snap s;
	const struct lrugen_node *n;

	parse_ok("lru_gen/v7.0-lru_gen_full.txt", &s);
	cr_assert_eq(s.memcgs[0].id, 9876543210ull);
	n = lrugen_find_node(&s, &s.memcgs[0], 0);
	cr_assert_eq(n->file_min_seq, 9);
	cr_assert_eq(n->file_refaulted, 501);
	cr_assert_eq(n->file_evicted, 602);
	cr_assert_eq(n->file_protected, 3);
	lrugen_snap_free(&s);
}

Test(lrugen, memcg_disabled_empty_path)
{
	struct lrugen_snap s;

	parse_ok("lru_gen/nomemcg-lru_gen.txt", &s);
	cr_assert_eq(s.nr_memcgs, 1);
	cr_assert_eq(s.memcgs[0].id, 0);
	cr_assert_str_eq(lrugen_path(&s, &s.memcgs[0]), "");
	lrugen_snap_free(&s);
}

Test(lrugen, damaged_inputs_are_rejected_with_a_line)
{
	struct lrugen_err err;

	cr_assert_eq(parse_bad("lru_gen/bad-truncated-midline.txt", &err), -1);
	cr_assert_eq(errno, EINVAL);
	cr_assert_gt(err.line, 0);
	cr_assert_eq(parse_bad("lru_gen/bad-node-without-gens.txt", &err), -1);
	cr_assert(strstr(err.msg, "truncated"), "%s", err.msg);
	cr_assert_eq(parse_bad("lru_gen/bad-garbage.txt", &err), -1);
	cr_assert_eq(err.line, 4);
	cr_assert_eq(parse_bad("lru_gen/bad-seq-gap.txt", &err), -1);
	cr_assert_eq(err.line, 4);
}

Test(lrugen, every_prefix_of_a_real_file_is_whole_or_rejected)
{
	struct lrugen_snap s = { 0 };
	struct lrugen_err err;
	size_t len, cut;
	char *buf = fixture("lru_gen/v6.12-lru_gen_full.txt", &len);

	/* a read cut anywhere must never parse into a different picture */
	for (cut = 0; cut < len; cut++) {
		int ret = lrugen_parse(buf, cut, &s, &err);

		if (ret == 0) {
			/* only cuts at a block boundary may parse */
			cr_assert(cut == 0 || buf[cut - 1] == '\n');
			cr_assert(s.nr_memcgs == 0 ||
				  s.nodes[s.nr_nodes - 1].nr_gens >= 2);
		}
	}
	lrugen_snap_free(&s);
	free(buf);
}

Test(lrugen, garbage_lines)
{
	static const char *const bad[] = {
		"node 0\n",
		" node     0\n",
		"memcg\n",
		"memcg abc /\n",
		"memcg 1 /\n node x\n",
		"memcg 1 /\n node 0\n          1 2 3\n",
		"memcg 1 /\n node 0\n          1 2 3 4 5\n",
		"memcg 1 /\n node 0\n          1 2 3q 4\n",
		"memcg 1 /\n node 0\n          1 2 3 99999999999999999999999\n",
		"memcg 1 /\n node 0\n 1 1 1 1\n 2 1 1 1\n 3 1 1 1\n 4 1 1 1\n 5 1 1 1\n",
		"memcg 1 /\nmemcg 2 /a\n node 0\n 1 1 1 1\n 2 1 1 1\n",
		"memcg 1 /\n node 0\n 1 1 1 1\n 2 1 1 1\n node 0\n 1 1 1 1\n 2 1 1 1\n",
		"\n",
		"memcg 1 /\n node 0\n 1 1 1 1\n 2 1 1 1\n                     9 1r 1e 1p 1r 1e 1p\n",
		/* found by fuzz_lrugen: a digit glued to "node" */
		"memcg 1 /\n node 0\n 1 1 1 1\n 2 1 1 1\n node1\n 3 1 1 1\n 4 1 1 1\n",
	};
	struct lrugen_snap s = { 0 };
	struct lrugen_err err;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		cr_assert_eq(lrugen_parse(bad[i], strlen(bad[i]), &s, &err),
			     -1, "accepted case %zu", i);
	lrugen_snap_free(&s);
}

/* The span advshim-ab samples: the memcg looked up by its exact path. */
static int span_of(const char *rel, const char *path, struct lrugen_span *g)
{
	struct lrugen_snap s;
	const struct lrugen_memcg *m;

	parse_ok(rel, &s);
	m = lrugen_find_path(&s, path, NULL);
	if (m)
		lrugen_memcg_span(&s, m, g);
	lrugen_snap_free(&s);
	return m ? 0 : -1;
}

Test(lrugen, span_of_ab_memcgs)
{
	static const char *const rel = "ab/lru_gen.txt";
	struct lrugen_span g;

	cr_assert_eq(span_of(rel, "/advshim-ab-123-random", &g), 0);
	cr_expect_eq(g.min_seq, 5);
	cr_expect_eq(g.max_seq, 8);
	cr_expect_eq(g.nr_gens, 4);
	cr_assert_eq(span_of(rel, "/", &g), 0);
	cr_expect_eq(g.min_seq, 0);
	cr_expect_eq(g.max_seq, 3);
	cr_assert_eq(span_of(rel, "/with space/x y", &g), 0, "paths with spaces");
	cr_expect_eq(g.min_seq, 11, "smallest oldest seq over nodes");
	cr_expect_eq(g.max_seq, 14);
	cr_expect_eq(g.nr_gens, 3);
	cr_expect_eq(span_of(rel, "/advshim-ab-123", &g), -1, "prefix is not a match");
	cr_expect_eq(span_of(rel, "/nope", &g), -1);
}

Test(lrugen, span_of_ab_memcgs_full)
{
	static const char *const rel = "ab/lru_gen_full.txt";
	struct lrugen_span g;

	cr_assert_eq(span_of(rel, "/advshim-ab-9-random", &g), 0);
	cr_expect_eq(g.min_seq, 9);
	cr_expect_eq(g.max_seq, 12);
	cr_expect_eq(g.nr_gens, 4);
	cr_assert_eq(span_of(rel, "/", &g), 0);
	cr_expect_eq(g.min_seq, 5);
	cr_expect_eq(g.max_seq, 6);
	cr_expect_eq(g.nr_gens, 2);
}
