/* SPDX-License-Identifier: MIT */
/*
 * zipf.h - a small fast PRNG and a zipf(theta) sampler for advshim-load.
 *
 * The sampler is rejection-inversion (Hoermann & Derflinger, "Rejection-
 * inversion to generate variates from monotone discrete distributions",
 * 1996): O(1) setup, O(1) expected time per draw, no tables, so a thread
 * can draw millions of ranks per second over any number of pages.
 * Ranks are 1..n with P(k) proportional to k^-theta (theta >= 0).
 * No locks: an rng belongs to one thread; a prepared zipf is read-only and
 * may be shared.  Only zipf_init and zipf_pmf can fail (said below).
 */
#ifndef ADVSHIM_LOAD_ZIPF_H
#define ADVSHIM_LOAD_ZIPF_H

#include <stdint.h>

/* xoshiro256** state; one per thread, never shared. */
struct rng {
	uint64_t s[4];
};

/* rng_seed - expand @seed (any value, 0 included) into a full state. */
void rng_seed(struct rng *r, uint64_t seed);

/* rng_next - the next 64 random bits. */
uint64_t rng_next(struct rng *r);

/* rng_double - uniform in [0, 1) with 53 random bits. */
double rng_double(struct rng *r);

/* rng_below - uniform integer in [0, @n), @n > 0 (no modulo bias). */
uint64_t rng_below(struct rng *r, uint64_t n);

struct zipf {
	uint64_t n;
	double theta;
	double h_x1;		/* H(1.5) - h(1) */
	double h_n;		/* H(n + 0.5) */
	double s;		/* squeeze bound: accept without evaluating H */
};

/*
 * zipf_init - prepare a sampler over ranks 1..@n with exponent @theta.
 * Returns 0, or -1 with errno = EINVAL when @n == 0 or @theta is negative
 * or not finite.
 */
int zipf_init(struct zipf *z, uint64_t n, double theta);

/* zipf_next - one rank in [1, n], drawn with @r. */
uint64_t zipf_next(const struct zipf *z, struct rng *r);

/*
 * zipf_pmf - the exact probabilities of ranks 1..n into @p[0..n-1] (for
 * tests and reports; O(n)).  Returns 0, or -1 with errno = EINVAL.
 */
int zipf_pmf(uint64_t n, double theta, double *p);

#endif /* ADVSHIM_LOAD_ZIPF_H */
