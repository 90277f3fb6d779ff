// SPDX-License-Identifier: MIT
/*
 * zipf.c - xoshiro256** and rejection-inversion zipf sampling.
 *
 * Rejection-inversion draws x from the continuous density h(x) = x^-theta
 * over [0.5, n + 0.5] by inverting its integral H, rounds x to the nearest
 * rank k and accepts k when the area of the bar [k - 0.5, k + 0.5] under h
 * covers the draw.  The helpers expm1(x)/x and log1p(x)/x keep H and its
 * inverse accurate for every theta, 1 included, where the closed form
 * (x^(1-theta) - 1) / (1 - theta) would divide by zero.
 */
#include <errno.h>
#include <math.h>

#include "tools/load/zipf.h"

static inline uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

void rng_seed(struct rng *r, uint64_t seed)
{
	for (int i = 0; i < 4; i++)
		r->s[i] = splitmix64(&seed);
}

uint64_t rng_next(struct rng *r)
{
	uint64_t *s = r->s;
	uint64_t out = rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return out;
}

double rng_double(struct rng *r)
{
	return (double)(rng_next(r) >> 11) * 0x1.0p-53;
}

uint64_t rng_below(struct rng *r, uint64_t n)
{
	/* Lemire's multiply-shift with rejection of the biased low part. */
	unsigned __int128 m = (unsigned __int128)rng_next(r) * n;
	uint64_t low = (uint64_t)m;

	if (low < n) {
		uint64_t floor = -n % n;

		while (low < floor) {
			m = (unsigned __int128)rng_next(r) * n;
			low = (uint64_t)m;
		}
	}
	return (uint64_t)(m >> 64);
}

/* expm1(x) / x, 1 at 0. */
static double expm1_over(double x)
{
	return fabs(x) > 1e-8 ? expm1(x) / x : 1.0 + x / 2.0;
}

/* log1p(x) / x, 1 at 0. */
static double log1p_over(double x)
{
	return fabs(x) > 1e-8 ? log1p(x) / x : 1.0 - x / 2.0;
}

/* h(x) = x^-theta */
static double zh(const struct zipf *z, double x)
{
	return exp(-z->theta * log(x));
}

/* H(x) = integral of h from 1 to x = (x^(1-theta) - 1) / (1 - theta) */
static double zH(const struct zipf *z, double x)
{
	double lx = log(x);

	return expm1_over((1.0 - z->theta) * lx) * lx;
}

/* The inverse of H. */
static double zH_inv(const struct zipf *z, double y)
{
	double t = (1.0 - z->theta) * y;

	/* Rounding can push t just below -1 at the far end of the range. */
	if (t < -1.0)
		t = -1.0;
	return exp(log1p_over(t) * y);
}

int zipf_init(struct zipf *z, uint64_t n, double theta)
{
	if (n == 0 || !isfinite(theta) || theta < 0) {
		errno = EINVAL;
		return -1;
	}
	z->n = n;
	z->theta = theta;
	z->h_x1 = zH(z, 1.5) - 1.0;
	z->h_n = zH(z, (double)n + 0.5);
	z->s = 2.0 - zH_inv(z, zH(z, 2.5) - zh(z, 2.0));
	return 0;
}

uint64_t zipf_next(const struct zipf *z, struct rng *r)
{
	for (;;) {
		double u = z->h_n + rng_double(r) * (z->h_x1 - z->h_n);
		double x = zH_inv(z, u);
		uint64_t k;

		k = (uint64_t)(x + 0.5);
		if (k < 1)
			k = 1;
		else if (k > z->n)
			k = z->n;
		/* Squeeze first: most draws are accepted without zH(). */
		if ((double)k - x <= z->s ||
		    u >= zH(z, (double)k + 0.5) - zh(z, (double)k))
			return k;
	}
}

int zipf_pmf(uint64_t n, double theta, double *p)
{
	double sum = 0;

	if (n == 0 || !isfinite(theta) || theta < 0) {
		errno = EINVAL;
		return -1;
	}
	for (uint64_t k = 1; k <= n; k++) {
		p[k - 1] = pow((double)k, -theta);
		sum += p[k - 1];
	}
	for (uint64_t k = 0; k < n; k++)
		p[k] /= sum;
	return 0;
}
