// SPDX-License-Identifier: MIT
/*
 * test_common_utc.c - utc_stamp against the C library's gmtime_r: the
 * epoch, the days around it, leap days of the Gregorian rules (2000 a
 * leap year, 1900 and 2100 not), the ends of the range, a sweep of one
 * day a step over four centuries and pseudo-random seconds; short
 * buffers and out-of-range years refused; utc_stamp_now between two reads
 * of the clock.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "common/utc.h"

/* What gmtime_r says for @sec, in utc_stamp's format with @ms. */
static void libc_stamp(int64_t sec, unsigned int ms, char *buf, size_t len)
{
	time_t t = (time_t)sec;
	struct tm tm;

	cr_assert_not_null(gmtime_r(&t, &tm));
	snprintf(buf, len, "%04d-%02d-%02dT%02d:%02d:%02d.%03uZ",
		 tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
		 tm.tm_min, tm.tm_sec, ms);
}

static void same_as_libc(int64_t sec, unsigned int ms)
{
	char got[64], want[64];

	cr_assert_eq(utc_stamp(got, sizeof(got), sec, ms), UTC_STAMP_LEN - 1,
		     "sec %lld", (long long)sec);
	libc_stamp(sec, ms, want, sizeof(want));
	cr_assert_str_eq(got, want, "sec %lld", (long long)sec);
}

Test(utc, known_instants)
{
	char buf[UTC_STAMP_LEN];

	utc_stamp(buf, sizeof(buf), 0, 0);
	cr_assert_str_eq(buf, "1970-01-01T00:00:00.000Z");
	utc_stamp(buf, sizeof(buf), -1, 999);
	cr_assert_str_eq(buf, "1969-12-31T23:59:59.999Z");
	utc_stamp(buf, sizeof(buf), 951782400, 5);	/* 2000: leap */
	cr_assert_str_eq(buf, "2000-02-29T00:00:00.005Z");
	utc_stamp(buf, sizeof(buf), 4107542400LL, 0);	/* 2100: not */
	cr_assert_str_eq(buf, "2100-03-01T00:00:00.000Z");
	utc_stamp(buf, sizeof(buf), 1796667698, 123);
	cr_assert_str_eq(buf, "2026-12-07T18:21:38.123Z");
}

Test(utc, every_day_of_four_centuries_and_its_last_second)
{
	/* 1800-01-01 to 2200-01-01, a day a step, at 00:00:00 and 23:59:59 */
	for (int64_t d = -62091; d < 84006; d++) {
		same_as_libc(d * 86400, 0);
		same_as_libc(d * 86400 + 86399, 1);
	}
}

Test(utc, pseudo_random_seconds_over_the_range)
{
	uint64_t x = 0x9e3779b97f4a7c15ULL;

	for (int i = 0; i < 200000; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		/* 0001-01-01 to 9999-12-31 */
		same_as_libc(-62135596800LL +
			     (int64_t)(x % 315537897600ULL), (unsigned)(x % 1000));
	}
}

Test(utc, the_ends_of_the_range_and_what_is_refused)
{
	char buf[UTC_STAMP_LEN] = "x";

	cr_assert_eq(utc_stamp(buf, sizeof(buf), -62167219200LL, 0), 24);
	cr_assert_str_eq(buf, "0000-01-01T00:00:00.000Z");
	cr_assert_eq(utc_stamp(buf, sizeof(buf), 253402300799LL, 1500), 24);
	cr_assert_str_eq(buf, "9999-12-31T23:59:59.999Z");
	cr_assert_eq(utc_stamp(buf, sizeof(buf), 253402300800LL, 0), -1);
	cr_assert_str_eq(buf, "");
	cr_assert_eq(utc_stamp(buf, sizeof(buf), -62167219201LL, 0), -1);
	cr_assert_eq(utc_stamp(buf, sizeof(buf) - 1, 0, 0), -1);
	cr_assert_str_eq(buf, "");
}

/* Now: the stamp of CLOCK_REALTIME, between the clock read before and after. */
Test(utc, now_lies_between_two_reads_of_the_clock)
{
	char before[UTC_STAMP_LEN], now[UTC_STAMP_LEN], after[UTC_STAMP_LEN];
	struct timespec t0, t1;

	clock_gettime(CLOCK_REALTIME, &t0);
	cr_assert_eq(utc_stamp_now(now, sizeof(now)), UTC_STAMP_LEN - 1);
	clock_gettime(CLOCK_REALTIME, &t1);
	utc_stamp(before, sizeof(before), (int64_t)t0.tv_sec,
		  (unsigned int)(t0.tv_nsec / 1000000));
	utc_stamp(after, sizeof(after), (int64_t)t1.tv_sec,
		  (unsigned int)(t1.tv_nsec / 1000000));
	cr_assert(strcmp(before, now) <= 0 && strcmp(now, after) <= 0,
		  "%s not in %s .. %s", now, before, after);
	cr_assert_eq(utc_stamp_now(now, UTC_STAMP_LEN - 1), -1);
	cr_assert_str_eq(now, "");
}
