// SPDX-License-Identifier: MIT
package advshim.bench;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * A log-linear latency histogram shared by the query threads: 16 buckets
 * per power of two (<= 6.25% relative error, as advshim-load's lathist),
 * nanoseconds up to 2^40 (larger values land in the last bucket).
 *
 * record() is lock-free (one atomic increment); the reporter takes
 * snapshot()s and subtracts the previous one to get an interval.
 */
public final class LatencyHistogram {
	private static final int SUB_BITS = 4;
	private static final int SUB = 1 << SUB_BITS;
	private static final int MAX_EXP = 40;
	public static final int BUCKETS = (MAX_EXP - SUB_BITS + 1) * SUB + SUB;

	private final AtomicLongArray counts = new AtomicLongArray(BUCKETS);

	/** The bucket of @ns (always < BUCKETS). */
	static int index(long ns) {
		if (ns < SUB)
			return ns < 0 ? 0 : (int) ns;
		int exp = 63 - Long.numberOfLeadingZeros(ns);

		if (exp > MAX_EXP)
			return BUCKETS - 1;
		int sub = (int) (ns >>> (exp - SUB_BITS)) & (SUB - 1);

		return (exp - SUB_BITS + 1) * SUB + sub;
	}

	/** The smallest value of bucket @idx. */
	static long lower(int idx) {
		if (idx < SUB)
			return idx;
		int exp = idx / SUB - 1 + SUB_BITS;

		return (long) (SUB + idx % SUB) << (exp - SUB_BITS);
	}

	/** The width of bucket @idx. */
	static long width(int idx) {
		return idx < SUB ? 1 : 1L << (idx / SUB - 1);
	}

	/** Counts one query that took @ns nanoseconds; thread-safe. */
	public void record(long ns) {
		counts.incrementAndGet(index(ns));
	}

	/** A copy of the counts (each bucket read atomically). */
	public long[] snapshot() {
		long[] s = new long[BUCKETS];

		for (int i = 0; i < BUCKETS; i++)
			s[i] = counts.get(i);
		return s;
	}

	/** @cur minus @prev, bucket by bucket. */
	public static long[] minus(long[] cur, long[] prev) {
		long[] d = new long[BUCKETS];

		for (int i = 0; i < BUCKETS; i++)
			d[i] = cur[i] - prev[i];
		return d;
	}

	/**
	 * The value below which a fraction @q (0..1) of the counted values of
	 * @h lie, as the middle of its bucket, in microseconds; 0 when empty.
	 */
	public static double quantileUs(long[] h, double q) {
		long total = 0;

		for (long c : h)
			total += c;
		if (total == 0)
			return 0;
		long rank = Math.max(1, (long) Math.ceil(q * total));
		long seen = 0;

		for (int i = 0; i < BUCKETS; i++) {
			seen += h[i];
			if (seen >= rank)
				return (lower(i) + width(i) / 2.0) / 1000.0;
		}
		return (lower(BUCKETS - 1) + width(BUCKETS - 1) / 2.0) / 1000.0;
	}
}
