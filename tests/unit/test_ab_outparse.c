// SPDX-License-Identifier: MIT
/*
 * test_ab_outparse.c - parsers of what an arm's programs print: advshim-load
 * rows and events, advshim-watch's JSON log (fixtures in tests/fixtures/ab).
 * The kernel-text cases that lived here are in test_common_*.c.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "common/readfile.h"
#include "tools/ab/outparse.h"
#include "tools/ab/timeline.h"

static char *fixture(const char *name)
{
	char *buf;

	cr_assert_eq(read_file(name, &buf, NULL, 0), 0, "cannot read %s", name);
	return buf;
}

Test(ab_outparse, load_rows)
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

Test(ab_outparse, watch_log)
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
