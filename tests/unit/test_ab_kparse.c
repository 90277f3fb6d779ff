// SPDX-License-Identifier: MIT
/*
 * test_ab_kparse.c - parsers of kernel text and workload output, on
 * fixtures captured from real kernels (tests/fixtures/ab).
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "common/readfile.h"
#include "tools/ab/kparse.h"
#include "tools/ab/timeline.h"

static char *fixture(const char *name)
{
	char *buf;

	cr_assert_eq(read_file(name, &buf, NULL, 0), 0, "cannot read %s", name);
	return buf;
}

Test(ab_kparse, memstat_v1_prefers_totals)
{
	char *buf = fixture("memory.stat.v1");
	struct memstat m;

	parse_memstat(buf, true, &m);
	cr_expect(m.has_pgmajfault && m.has_refault);
	cr_expect_not(m.has_activate, "v1 has no workingset_activate_file");
	cr_expect_eq(m.pgmajfault, 178378);
	cr_expect_eq(m.refault_file, 553641);
	free(buf);
}

Test(ab_kparse, memstat_v2)
{
	char *buf = fixture("memory.stat.v2");
	struct memstat m;

	parse_memstat(buf, false, &m);
	cr_expect(m.has_pgmajfault && m.has_refault && m.has_activate);
	cr_expect_eq(m.pgmajfault, 99999);
	cr_expect_eq(m.refault_file, 1234567);
	cr_expect_eq(m.activate_file, 1200000);
	parse_memstat("workingset_refault 7\nworkingset_activate 3\n", false, &m);
	cr_expect_eq(m.refault_file, 7, "pre-5.9 names");
	cr_expect_eq(m.activate_file, 3);
	cr_expect_not(m.has_pgmajfault);
	free(buf);
}

Test(ab_kparse, io)
{
	char *a = fixture("io.stat"), *b = fixture("proc-io");

	cr_expect_eq(parse_iostat_rbytes(a), 3145728);
	cr_expect_eq(parse_iostat_rbytes(""), 0);
	cr_expect_eq(parse_proc_io(b), 4194304);
	cr_expect_eq(parse_proc_io("rchar: 1\n"), -1);
	free(a);
	free(b);
}

Test(ab_kparse, lru_gen)
{
	char *buf = fixture("lru_gen.txt");
	struct gens g;

	cr_assert_eq(parse_lrugen(buf, "/advshim-ab-123-random", &g), 0);
	cr_expect_eq(g.min_seq, 5);
	cr_expect_eq(g.max_seq, 8);
	cr_expect_eq(g.nr_gens, 4);
	cr_assert_eq(parse_lrugen(buf, "/", &g), 0);
	cr_expect_eq(g.min_seq, 0);
	cr_expect_eq(g.max_seq, 3);
	cr_assert_eq(parse_lrugen(buf, "/with space/x y", &g), 0, "paths with spaces");
	cr_expect_eq(g.min_seq, 11, "smallest oldest seq over nodes");
	cr_expect_eq(g.max_seq, 14);
	cr_expect_eq(g.nr_gens, 3);
	cr_expect_eq(parse_lrugen(buf, "/advshim-ab-123", &g), -1, "prefix is not a match");
	cr_expect_eq(parse_lrugen(buf, "/nope", &g), -1);
	free(buf);
}

Test(ab_kparse, lru_gen_full_skips_tiers_and_mm_stats)
{
	char *buf = fixture("lru_gen_full.txt");
	struct gens g;

	cr_assert_eq(parse_lrugen(buf, "/advshim-ab-9-random", &g), 0);
	cr_expect_eq(g.min_seq, 9);
	cr_expect_eq(g.max_seq, 12);
	cr_expect_eq(g.nr_gens, 4);
	cr_assert_eq(parse_lrugen(buf, "/", &g), 0);
	cr_expect_eq(g.min_seq, 3);
	cr_expect_eq(g.max_seq, 6);
	cr_expect_eq(g.nr_gens, 2);
	free(buf);
}

Test(ab_kparse, smaps_rr)
{
	static const char *const paths[] = {
		"/var/tmp/advshim-ab/vec.bin", "/var/tmp/advshim-ab/cold.bin",
		"/var/tmp/advshim-ab/other.bin",
	};
	char *buf = fixture("smaps.txt");
	int st[3];

	cr_expect_eq(parse_smaps_rr(buf, paths, 3, st), 2);
	cr_expect_eq(st[0], 1, "vec.bin has rr");
	cr_expect_eq(st[1], 0, "cold.bin is mapped without rr");
	cr_expect_eq(st[2], -1, "other.bin is not mapped");
	cr_expect_eq(parse_smaps_rr("", paths, 3, st), 0);
	free(buf);
}

Test(ab_kparse, load_rows)
{
	struct load_row r;
	bool end;
	unsigned int loop;
	uint64_t ms;

	cr_assert_eq(parse_load_row("1000\t1375391\t8198\t8197.3\t131157.4\t319.49\t671.74\t1998.85\t37977\t37973.9\n", &r), 1);
	cr_expect_eq(r.elapsed_ms, 1000);
	cr_expect_eq(r.mono_ms, 1375391);
	cr_expect_eq(r.queries, 8198);
	cr_expect_float_eq(r.reads_s, 131157.4, 1e-6);
	cr_expect_float_eq(r.p99_us, 1998.85, 1e-6);
	cr_expect_eq(r.majflt, 37977);
	cr_expect_eq(parse_load_row("elapsed_ms\tmono_ms\tqueries\n", &r), 0);
	cr_expect_eq(parse_load_row("# summary elapsed_ms=1\n", &r), 0);
	cr_expect_eq(parse_load_row("1000\t1375391\t8198\t8197.3", &r), 0, "partial line");
	cr_expect_eq(parse_load_row("start\t1\t2\t0\t0\t0.0\n", &r), 0);
	cr_assert_eq(parse_stream_event("start\t1\t647723\t0\t0\t0.0\n", &end, &loop, &ms), 1);
	cr_expect(!end && loop == 1 && ms == 647723);
	cr_assert_eq(parse_stream_event("end\t2\t647772\t49\t67108864\t2631.6\n", &end, &loop, &ms), 1);
	cr_expect(end && loop == 2 && ms == 647772);
	cr_expect_eq(parse_stream_event("# summary loops=2\n", &end, &loop, &ms), 0);
	cr_expect_eq(parse_stream_event("event\tloop\tmono_ms\n", &end, &loop, &ms), 0);
}

Test(ab_kparse, watch_log)
{
	char *buf = fixture("watch.log");
	struct watch_counts w;

	parse_watch_log(buf, &w);
	cr_expect_eq(w.thrash, 2);
	cr_expect_eq(w.would_age, 1);
	cr_expect_eq(w.age, 2, "plain text lines are not counted");
	cr_expect_eq(w.age_failed, 1);
	cr_expect_eq(w.other, 1);
	free(buf);
}
