// SPDX-License-Identifier: MIT
/*
 * test_common_memstat.c - the memory.stat parser on cgroup v1 and v2 text
 * from real kernels: one counter per cgroup version (the hierarchical
 * one), the page cache and anon sizes, old names, damaged text.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "common/memstat.h"
#include "tests/unit/fixture.h"

static void parse_str(const char *text, struct memstat *ms)
{
	cr_assert_eq(memstat_parse(text, strlen(text), ms), 0, "%s", text);
}

Test(memstat, v2_6_12)
{
	struct memstat ms;
	size_t len;
	char *buf = fixture("watch/memory.stat.v2-6.12", &len);

	cr_assert_eq(memstat_parse(buf, len, &ms), 0);
	cr_assert_not(ms.v1);
	cr_assert(ms.has_refault);
	cr_assert(ms.has_activate);
	cr_assert_eq(ms.refault_file, 48213877);
	cr_assert_eq(ms.activate_file, 48101003);
	cr_assert_str_eq(ms.refault_key, "workingset_refault_file");
	cr_assert(ms.has_pgmajfault);
	cr_assert_eq(ms.pgmajfault, 48213301);
	cr_assert(ms.has_file && ms.has_anon);
	cr_assert_eq(ms.file_bytes, 251318272);
	cr_assert_eq(ms.anon_bytes, 1589248);
	cr_assert(ms.has_active_file && ms.has_inactive_file);
	cr_assert_eq(ms.active_file_bytes, 83677184);
	cr_assert_eq(ms.inactive_file_bytes, 167636992);
	free(buf);
}

/* v1: the hierarchical total_* copies, never the own-memcg values. */
Test(memstat, v1_total_counters_everywhere)
{
	struct memstat ms;
	size_t len;
	char *buf = fixture("watch/memory.stat.v1-6.18", &len);

	cr_assert_eq(memstat_parse(buf, len, &ms), 0);
	cr_assert(ms.v1);
	cr_assert(ms.has_refault);
	cr_assert_not(ms.has_activate);
	cr_assert_str_eq(ms.refault_key, "total_workingset_refault_file");
	cr_assert_eq(ms.refault_file, 142956, "not the own-memcg 260");
	cr_assert_eq(ms.pgmajfault, 1663, "total_pgmajfault, not pgmajfault 0");
	cr_assert_eq(ms.file_bytes, 317804544, "total_cache");
	cr_assert_eq(ms.anon_bytes, 14020608, "total_rss");
	cr_assert_eq(ms.active_file_bytes, 186036224);
	cr_assert_eq(ms.inactive_file_bytes, 122519552);
	free(buf);
	buf = fixture("watch/memory.stat.v1-total-only", &len);
	cr_assert_eq(memstat_parse(buf, len, &ms), 0);
	cr_assert_eq(ms.refault_file, 777);
	cr_assert_str_eq(ms.refault_key, "total_workingset_refault_file");
	free(buf);
	buf = fixture("ab/memory.stat.v1", &len);
	cr_assert_eq(memstat_parse(buf, len, &ms), 0);
	cr_expect(ms.has_pgmajfault && ms.has_refault);
	cr_expect_not(ms.has_activate, "v1 has no workingset_activate_file");
	cr_expect_eq(ms.pgmajfault, 178378);
	cr_expect_eq(ms.refault_file, 553641);
	free(buf);
}

/* A v1 text never falls back to an own-memcg key: one level per struct. */
Test(memstat, v1_never_mixes_levels)
{
	struct memstat ms;

	parse_str("cache 5\nworkingset_refault_file 3\npgmajfault 2\n"
		  "total_cache 9\n", &ms);
	cr_assert(ms.v1);
	cr_assert_not(ms.has_refault);
	cr_assert_not(ms.has_pgmajfault);
	cr_assert_eq(ms.file_bytes, 9);
}

Test(memstat, old_and_missing_and_bad)
{
	struct memstat ms;
	size_t len;
	char *buf = fixture("watch/memory.stat.v2-5.4", &len);

	cr_assert_eq(memstat_parse(buf, len, &ms), 0);
	cr_assert_eq(ms.refault_file, 10);
	cr_assert_eq(ms.activate_file, 4);
	free(buf);
	buf = fixture("watch/memory.stat.missing", &len);
	cr_assert_eq(memstat_parse(buf, len, &ms), 0);
	cr_assert_not(ms.has_refault);
	cr_assert_not(ms.has_activate);
	free(buf);
	buf = fixture("watch/memory.stat.bad", &len);
	cr_assert_eq(memstat_parse(buf, len, &ms), -1);
	cr_assert_eq(ms.bad_line, 2);
	free(buf);
}

Test(memstat, v2_from_ab_fixture_and_pre_5_9_names)
{
	struct memstat m;
	size_t len;
	char *buf = fixture("ab/memory.stat.v2", &len);

	cr_assert_eq(memstat_parse(buf, len, &m), 0);
	cr_expect(m.has_pgmajfault && m.has_refault && m.has_activate);
	cr_expect_eq(m.pgmajfault, 99999);
	cr_expect_eq(m.refault_file, 1234567);
	cr_expect_eq(m.activate_file, 1200000);
	parse_str("workingset_refault 7\nworkingset_activate 3\n", &m);
	cr_expect_eq(m.refault_file, 7, "pre-5.9 names");
	cr_expect_eq(m.activate_file, 3);
	cr_expect_not(m.has_pgmajfault);
	parse_str("workingset_refault 7\nworkingset_refault_file 8\n", &m);
	cr_expect_eq(m.refault_file, 8, "the _file name wins wherever it is");
	free(buf);
}

Test(memstat, strict_lines)
{
	static const char *const bad[] = {
		"pgmajfault\n",
		"pgmajfault 1x\n",
		"pgmajfault  1\n",
		"file 18446744073709551616\n",
		"anon -1\n",
		"nospace\n",
	};
	struct memstat ms;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		cr_assert_eq(memstat_parse(bad[i], strlen(bad[i]), &ms), -1,
			     "accepted %s", bad[i]);
	parse_str("unknown_key whatever\n\nfile 18446744073709551615", &ms);
	cr_assert_eq(ms.file_bytes, UINT64_MAX, "no final newline is fine");
	parse_str("pgmajfault 1\npgmajfault 2\n", &ms);
	cr_assert_eq(ms.pgmajfault, 1, "the first of two counts");
}
