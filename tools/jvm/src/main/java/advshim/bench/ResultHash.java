// SPDX-License-Identifier: MIT
package advshim.bench;

import java.util.Locale;
import java.util.Arrays;
import java.util.List;

/**
 * The result hash: one 64-bit FNV-1a over every query's top-k ids, in query
 * order.
 *
 * Each query thread keeps its own Log of (query number, hash of that query's
 * ids); no locks on the query path.  Threads take query numbers from one
 * counter and always finish the query they took, so the numbers done form
 * 0..n-1 however the threads were scheduled, and combine() lays the
 * per-query hashes out by number before folding them: the hash depends only
 * on the index, the seed, k and n.
 */
public final class ResultHash {
	private static final long FNV_OFFSET = 0xcbf29ce484222325L;
	private static final long FNV_PRIME = 0x100000001b3L;

	private ResultHash() {
	}

	/** One thread's (query number, query hash) pairs; not thread-safe. */
	public static final class Log {
		private long[] numbers = new long[1024];
		private long[] hashes = new long[1024];
		private int n;

		public void add(long number, long hash) {
			if (n == numbers.length) {
				numbers = Arrays.copyOf(numbers, n * 2);
				hashes = Arrays.copyOf(hashes, n * 2);
			}
			numbers[n] = number;
			hashes[n] = hash;
			n++;
		}

		int size() {
			return n;
		}
	}

	/** The hash of one query's ids, in rank order (k then the ids). */
	public static long ofIds(int[] ids, int count) {
		long h = step(FNV_OFFSET, count);

		for (int i = 0; i < count; i++)
			h = step(h, ids[i]);
		return h;
	}

	/** Folds the little-endian bytes of @v into @h. */
	private static long step(long h, long v) {
		for (int i = 0; i < 8; i++) {
			h ^= (v >>> (8 * i)) & 0xff;
			h *= FNV_PRIME;
		}
		return h;
	}

	/**
	 * The run's hash over queries 0..total-1 from the threads' @logs
	 * (numbers from total on are left out: --hash-queries); throws
	 * IllegalStateException when a number below total is missing or
	 * repeated (a bug, never a scheduling effect).
	 */
	public static long combine(List<Log> logs, long total) {
		if (total > Integer.MAX_VALUE - 8)
			throw new IllegalStateException("too many queries to hash: " + total);
		long[] byNumber = new long[(int) total];
		boolean[] seen = new boolean[(int) total];

		for (Log log : logs) {
			for (int i = 0; i < log.n; i++) {
				long q = log.numbers[i];

				if (q >= total)
					continue;
				if (q < 0 || seen[(int) q])
					throw new IllegalStateException("query " + q + " logged twice or out of range");
				seen[(int) q] = true;
				byNumber[(int) q] = log.hashes[i];
			}
		}
		long h = FNV_OFFSET;

		for (int q = 0; q < total; q++) {
			if (!seen[q])
				throw new IllegalStateException("query " + q + " missing from the logs");
			h = step(h, byNumber[q]);
		}
		return h;
	}

	/** @h as 16 lower-case hex digits. */
	public static String hex(long h) {
		return String.format(Locale.ROOT, "%016x", h);
	}
}
