// SPDX-License-Identifier: MIT
/*
 * test_ab_summary.c - summaries computed from recorded timelines
 * (the TSV files in tests/fixtures/ab; the tests run in that directory).
 *
 * The fixtures are 60 one-second samples: baseline 1000 reads/s, a cold
 * read from 30 s to 33 s, 50 reads/s until 39 s, back to 1000 from 40 s.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/readfile.h"
#include "tools/ab/timeline.h"

static void load(const char *path, struct arm_result *r)
{
	char *buf, err[256];

	cr_assert_eq(read_file(path, &buf, NULL, 0), 0, "cannot read %s", path);
	cr_assert_eq(tsv_read_arm(buf, r, err, sizeof(err)), 0, "%s: %s", path, err);
	free(buf);
}

#define near(a, b) cr_expect(fabs((a) - (b)) < 1e-6, #a " = %g, expected %g", (double)(a), (double)(b))

Test(ab_summary, recovers_after_the_cold_read)
{
	struct arm_result r;
	struct summary s;

	load("recover.tsv", &r);
	cr_assert_eq(r.n, 60);
	cr_expect_str_eq(r.name, "recover");
	cr_expect_str_eq(r.label, "recover label");
	cr_expect_eq(r.nfiles, 2);
	cr_expect_str_eq(r.files[1], "cold");
	near(r.event_start, 30);
	near(r.event_end, 33);
	summarize(&r, &s);
	near(s.pre_median, 1000);	/* warm-up (100) left out */
	near(s.warmup_s, 6);		/* 1000 from the sample ending at 6 */
	near(s.worst_after, 50);
	near(s.recovery_s, 6);		/* sample ending at 40 starts at 39 */
	near(s.settle_s, 8);		/* <= 100/s from the sample ending at 42 */
	near(s.tail_pct, 100);		/* samples ending 39..60: 50, then 21 x 1000 */
	near(s.ages_per_min, 2);	/* 2 would-be agings in 60 s */
	near(s.majflt_after, 11 * 5000 + 19 * 50);
	near(s.gib_after, 11 * 20 / 1024.0);
	near(s.p99_before, 2.0);
	near(s.p99_after, 2.5);
	cr_expect_eq(s.rr_seen, 1);
	cr_expect_eq(s.gens_added, 1);
	cr_expect(r.watch.enabled && r.watch.dry_run);
	cr_expect_eq(r.watch.thrash, 4);
	cr_expect_eq(r.watch.would_age, 2);
	arm_free(&r);
}

Test(ab_summary, a_later_dip_restarts_the_clock)
{
	struct arm_result r;
	struct summary s;

	load("dip.tsv", &r);
	summarize(&r, &s);
	near(s.recovery_s, 17);		/* 700 < 800 at 50 s: streak from 51 */
	near(s.worst_after, 50);
	arm_free(&r);
}

Test(ab_summary, never_recovers)
{
	struct arm_result r;
	struct summary s;

	load("never.tsv", &r);
	summarize(&r, &s);
	near(s.pre_median, 1000);
	near(s.worst_after, 50);
	cr_expect(isnan(s.recovery_s), "recovery %g, expected never", s.recovery_s);
	cr_expect(isnan(s.settle_s), "settle %g, expected never", s.settle_s);
	near(s.majflt_after, 30 * 5000);
	near(s.tail_pct, 5);		/* 50 reads/s to the end: the stall's tail */
	arm_free(&r);
}

Test(ab_summary, without_an_event)
{
	struct arm_result r;
	struct summary s;

	load("noevent.tsv", &r);
	cr_expect(isnan(r.event_start));
	summarize(&r, &s);
	near(s.pre_median, 1000);	/* whole run */
	near(s.warmup_s, 6);		/* no event needed */
	cr_expect(isnan(s.worst_after) && isnan(s.recovery_s) && isnan(s.settle_s));
	cr_expect(isnan(s.tail_pct));
	cr_expect_eq(s.gens_added, -1);
	arm_free(&r);
}

Test(ab_summary, event_not_finished)
{
	struct arm_result r;
	struct summary s;

	load("unfinished.tsv", &r);
	summarize(&r, &s);
	near(s.worst_after, 50);
	cr_expect(isnan(s.recovery_s) && isnan(s.settle_s) && isnan(s.p99_after));
	arm_free(&r);
}

Test(ab_summary, median)
{
	double v[] = { 5, NAN, 1, 3 }, w[] = { 4, 1, 3, 2 };

	near(median_of(v, 4), 3);
	near(median_of(w, 4), 2.5);
	cr_expect(isnan(median_of(v + 1, 1)));
}

Test(ab_summary, tsv_round_trip)
{
	struct arm_result a, b;
	char *buf = NULL, err[256];
	size_t len = 0;
	FILE *f;

	load("recover.tsv", &a);
	snprintf(a.note, sizeof(a.note), "a note");
	f = open_memstream(&buf, &len);
	cr_assert_eq(tsv_write_arm(f, &a), 0);
	fclose(f);
	cr_assert_eq(tsv_read_arm(buf, &b, err, sizeof(err)), 0, "%s", err);
	cr_expect_eq(b.n, a.n);
	cr_expect_str_eq(b.note, "a note");
	cr_expect_str_eq(b.io_source, "proc-io");
	for (size_t i = 0; i < a.n; i++) {
		near(b.s[i].reads_s, a.s[i].reads_s);
		near(b.s[i].resid_mib[1], a.s[i].resid_mib[1]);
		cr_expect(isnan(b.s[i].activ_s));
		cr_expect_eq(b.s[i].max_seq, a.s[i].max_seq);
		cr_expect_eq(b.s[i].rr, 1);
	}
	free(buf);
	arm_free(&a);
	arm_free(&b);
}

Test(ab_summary, summary_tsv)
{
	struct arm_result r[2];
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	load("recover.tsv", &r[0]);
	load("never.tsv", &r[1]);
	f = open_memstream(&buf, &len);
	cr_assert_eq(tsv_write_summary(f, r, 2), 0);
	fclose(f);
	cr_expect(strstr(buf, "\nrecover\trecover label\t1000.0\t50.0\t5.0\t6.0\t8.0\t55950\t0.215\t2.00\t2.50\tyes\t1\tdry-run\t4\t0\t2\t0\t6.0\t100.0\t2.00\n") != NULL,
		  "%s", buf);
	cr_expect(strstr(buf, "\nnever\tnever label\t1000.0\t50.0\t5.0\t-\t-\t") != NULL, "%s", buf);
	free(buf);
	arm_free(&r[0]);
	arm_free(&r[1]);
}

Test(ab_summary, bad_tsv)
{
	struct arm_result r;
	char err[256];

	cr_expect_eq(tsv_read_arm("# arm\tx\nfoo\tbar\n", &r, err, sizeof(err)), -1);
	cr_expect(strstr(err, "line 2: not an advshim-ab timeline header") != NULL, "%s", err);
	cr_expect_eq(tsv_read_arm("# arm\tx\nt_s\treads_s\tqps\tp99_us\tmajflt_s\trefault_s\tactiv_s\tread_mib_s\tmin_seq\tmax_seq\trr\n1\t2\n",
				  &r, err, sizeof(err)), -1);
	cr_expect(strstr(err, "line 3: 2 fields, expected 11") != NULL, "%s", err);
	cr_expect_eq(tsv_read_arm("# arm\tx\nt_s\treads_s\tqps\tp99_us\tmajflt_s\trefault_s\tactiv_s\tread_mib_s\tmin_seq\tmax_seq\trr\n1\tx\t-\t-\t-\t-\t-\t-\t-\t-\t-\n",
				  &r, err, sizeof(err)), -1);
	cr_expect(strstr(err, "line 3: field 2 \"x\" is not a number") != NULL, "%s", err);
	cr_expect_eq(tsv_read_arm("t_s\treads_s\tqps\tp99_us\tmajflt_s\trefault_s\tactiv_s\tread_mib_s\tmin_seq\tmax_seq\trr\n",
				  &r, err, sizeof(err)), -1);
	cr_expect(strstr(err, "no \"# arm\" line") != NULL, "%s", err);
}
