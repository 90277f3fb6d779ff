// SPDX-License-Identifier: MIT
/*
 * test_load_hist.c - latency histogram buckets and quantiles.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "tools/load/lathist.h"

Test(lathist, buckets_are_monotonic_and_tight)
{
	unsigned int prev = 0;

	for (uint64_t v = 0; v < 1000000; v += 1 + v / 64) {
		unsigned int i = lathist_index(v);
		uint64_t lo = lathist_lower(i), hi = lathist_lower(i + 1);

		cr_assert(i >= prev, "index fell at %llu", (unsigned long long)v);
		cr_assert(lo <= v && v < hi, "%llu not in [%llu, %llu)",
			  (unsigned long long)v, (unsigned long long)lo,
			  (unsigned long long)hi);
		cr_assert(hi - lo <= 1 + lo / 16, "bucket too wide at %llu",
			  (unsigned long long)v);
		prev = i;
	}
	cr_expect_eq(lathist_index(UINT64_MAX), LATHIST_NR - 1);
	cr_expect_eq(lathist_index((1ull << 41) - 1), LATHIST_NR - 1);
}

Test(lathist, quantiles)
{
	static struct lathist h;

	memset(&h, 0, sizeof(h));
	cr_expect_eq(lathist_quantile(&h, 0.5), 0);
	/* 1..1000 once each: p50 ~ 500, p90 ~ 900, p99 ~ 990 (+-6.25%). */
	for (uint64_t v = 1; v <= 1000; v++)
		lathist_add(&h, v, 1);
	cr_expect_eq(h.count, 1000);
	cr_expect(lathist_quantile(&h, 0.5) >= 470 && lathist_quantile(&h, 0.5) <= 532);
	cr_expect(lathist_quantile(&h, 0.9) >= 845 && lathist_quantile(&h, 0.9) <= 957);
	cr_expect(lathist_quantile(&h, 0.99) >= 930 && lathist_quantile(&h, 0.99) <= 1053);
	cr_expect_eq(lathist_quantile(&h, 0.0), 1);
}

Test(lathist, merge_adds_counts)
{
	static struct lathist a, b;

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	lathist_add(&a, 10, 99);
	lathist_add(&b, 100000, 1);
	lathist_merge(&a, &b);
	cr_expect_eq(a.count, 100);
	cr_expect_eq(lathist_quantile(&a, 0.99), 10);
	cr_expect(lathist_quantile(&a, 1.0) >= 98000);
}
