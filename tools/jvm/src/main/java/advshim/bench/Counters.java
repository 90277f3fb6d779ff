// SPDX-License-Identifier: MIT
package advshim.bench;

/**
 * The counters of the process that serves the queries (this JVM for
 * advshim-lucene, the node for advshim-opensearch), read at every interval
 * and at the end; each -1 when it cannot be read.
 */
public interface Counters {
	/** Major page faults so far, or -1. */
	long majorFaults();

	/** Bytes read from storage so far, or -1. */
	long readBytes();

	/** CPU time used so far in ms, or -1. */
	long cpuMs();

	/**
	 * The major faults between two readings as the rows print them: -1
	 * when either is unknown (advshim-lucene prints 0 there: it overrides).
	 */
	default long faults(long now, long before) {
		return delta(now, before);
	}

	/** @now - @before, or -1 when either is unknown (-1). */
	static long delta(long now, long before) {
		return now >= 0 && before >= 0 ? now - before : -1;
	}
}
