// SPDX-License-Identifier: MIT
/*
 * test_load_zipf.c - the zipf sampler draws the zipf distribution.
 *
 * A chi-square goodness-of-fit test of rank frequencies against the exact
 * pmf at fixed seeds.  The same statistic is computed against a slightly
 * different exponent and against a uniform draw, which must fail: that is
 * what makes the bound meaningful (a wrong sampler cannot pass).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "tools/load/zipf.h"

#define DRAWS 2000000

/* Chi-square of @count (ranks 1..n) against zipf(n, theta). */
static double chi2(const uint64_t *count, uint64_t n, double theta,
		   uint64_t draws)
{
	double *p = calloc(n, sizeof(*p)), x = 0;

	cr_assert(p);
	cr_assert_eq(zipf_pmf(n, theta, p), 0);
	for (uint64_t k = 0; k < n; k++) {
		double e = p[k] * (double)draws;
		double d = (double)count[k] - e;

		x += d * d / e;
	}
	free(p);
	return x;
}

/* Upper bound for a chi-square with @df degrees of freedom, far in the
 * tail (Wilson-Hilferty at z = 4.75, p ~ 1e-6): a fixed seed passes a
 * correct sampler by a wide margin. */
static double chi2_bound(double df)
{
	double z = 4.75, a = 2.0 / (9.0 * df);

	return df * pow(1.0 - a + z * sqrt(a), 3);
}

static uint64_t *draw(uint64_t n, double theta, uint64_t seed)
{
	uint64_t *count = calloc(n, sizeof(*count));
	struct zipf z;
	struct rng r;

	cr_assert(count);
	cr_assert_eq(zipf_init(&z, n, theta), 0);
	rng_seed(&r, seed);
	for (int i = 0; i < DRAWS; i++) {
		uint64_t k = zipf_next(&z, &r);

		cr_assert(k >= 1 && k <= n, "rank %llu out of 1..%llu",
			  (unsigned long long)k, (unsigned long long)n);
		count[k - 1]++;
	}
	return count;
}

static void fits(uint64_t n, double theta, uint64_t seed)
{
	uint64_t *c = draw(n, theta, seed);
	double x = chi2(c, n, theta, DRAWS), b = chi2_bound((double)n - 1);

	cr_expect(x < b, "zipf(%llu, %g): chi2 %.1f >= bound %.1f",
		  (unsigned long long)n, theta, x, b);
	free(c);
}

Test(zipf, fits_theta_08_like_the_seed)
{
	fits(1000, 0.8, 1);
	fits(1000, 0.8, 2);
}

Test(zipf, fits_other_exponents)
{
	fits(500, 0.0, 3);	/* uniform */
	fits(500, 0.5, 4);
	fits(500, 1.0, 5);	/* the closed form divides by zero here */
	fits(500, 1.2, 6);
	fits(200, 2.5, 7);
}

Test(zipf, two_ranks_and_one)
{
	fits(2, 0.8, 8);
	uint64_t *c = draw(1, 0.8, 9);

	cr_expect_eq(c[0], DRAWS);
	free(c);
}

Test(zipf, the_check_rejects_a_wrong_exponent)
{
	uint64_t *c = draw(1000, 0.8, 1);
	double b = chi2_bound(999);

	cr_expect(chi2(c, 1000, 0.85, DRAWS) > b,
		  "zipf(0.8) draws passed as zipf(0.85): the check has no power");
	cr_expect(chi2(c, 1000, 0.75, DRAWS) > b);
	free(c);
}

Test(zipf, the_check_rejects_uniform_draws)
{
	uint64_t *c = calloc(1000, sizeof(*c));
	struct rng r;

	rng_seed(&r, 1);
	for (int i = 0; i < DRAWS; i++)
		c[rng_below(&r, 1000)]++;
	cr_expect(chi2(c, 1000, 0.8, DRAWS) > chi2_bound(999));
	free(c);
}

Test(zipf, head_share_matches_pmf_on_a_large_space)
{
	/* 61440 records = the default experiment's 240 MiB file. */
	const uint64_t n = 61440;
	double *p = calloc(n, sizeof(*p)), head = 0;
	uint64_t *c = draw(n, 0.8, 11), hits = 0;

	cr_assert(p);
	zipf_pmf(n, 0.8, p);
	for (int k = 0; k < 100; k++) {
		head += p[k];
		hits += c[k];
	}
	/* Binomial standard deviation is ~0.0002 of DRAWS here. */
	cr_expect(fabs((double)hits / DRAWS - head) < 0.002,
		  "top-100 share %.4f, expected %.4f", (double)hits / DRAWS, head);
	free(p);
	free(c);
}

Test(zipf, bad_parameters)
{
	struct zipf z;

	errno = 0;
	cr_expect_eq(zipf_init(&z, 0, 0.8), -1);
	cr_expect_eq(errno, EINVAL);
	cr_expect_eq(zipf_init(&z, 10, -0.1), -1);
	cr_expect_eq(zipf_init(&z, 10, NAN), -1);
	cr_expect_eq(zipf_init(&z, 10, INFINITY), -1);
}

Test(rng, below_is_uniform_and_in_range)
{
	uint64_t c[7] = { 0 };
	struct rng r;

	rng_seed(&r, 42);
	for (int i = 0; i < 700000; i++) {
		uint64_t v = rng_below(&r, 7);

		cr_assert(v < 7);
		c[v]++;
	}
	for (int i = 0; i < 7; i++)
		cr_expect(c[i] > 98000 && c[i] < 102000, "bucket %d: %llu", i,
			  (unsigned long long)c[i]);
}
