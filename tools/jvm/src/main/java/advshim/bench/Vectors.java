// SPDX-License-Identifier: MIT
package advshim.bench;

import java.util.SplittableRandom;

/**
 * Deterministic random unit vectors, the same in advshim-lucene and
 * advshim-opensearch (one class for both: a seed gives one data set).
 *
 * Index vectors come from one stream seeded by the seed, in document order;
 * query i comes from its own stream seeded by (seed, i), so a query's vector
 * does not depend on which thread runs it or on how many queries ran before.
 * Components are Gaussian, so the normalised vectors are uniform on the
 * sphere.
 */
public final class Vectors {
	private static final long QUERY_SALT = 0x5eedc0ffee51L;

	private Vectors() {
	}

	/** A stream for the index vectors of @seed. */
	public static SplittableRandom indexStream(long seed) {
		return new SplittableRandom(seed);
	}

	/** The next unit vector of @dims dimensions drawn from @rnd. */
	public static float[] next(SplittableRandom rnd, int dims) {
		float[] v = new float[dims];
		double norm = 0;

		for (int i = 0; i < dims; i++) {
			double g = rnd.nextGaussian();

			v[i] = (float) g;
			norm += g * g;
		}
		float inv = (float) (1.0 / Math.sqrt(norm > 0 ? norm : 1));
		for (int i = 0; i < dims; i++)
			v[i] *= inv;
		return v;
	}

	/** Query number @index of @seed: the same vector in every run. */
	public static float[] query(long seed, long index, int dims) {
		return next(new SplittableRandom(mix(seed ^ QUERY_SALT) + mix(index)), dims);
	}

	/** SplitMix64's finaliser: spreads nearby seeds over the whole range. */
	public static long mix(long x) {
		long z = x + 0x9e3779b97f4a7c15L;

		z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
		z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
		return z ^ (z >>> 31);
	}
}
