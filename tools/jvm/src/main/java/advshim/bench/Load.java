// SPDX-License-Identifier: MIT
package advshim.bench;

/**
 * What a query load runs (the options advshim-lucene search and
 * advshim-opensearch search share).
 *
 * @param program     the program's name, for its messages on stderr
 * @param threadName  the query threads' name prefix (NAME-0, NAME-1, ...)
 * @param threads     query threads
 * @param k           neighbours per query
 * @param seed        the data set's seed (Vectors.query)
 * @param queries     queries in all, or -1 for no limit
 * @param hashQueries queries the result hash covers (and logs), or -1 for all
 * @param queryCycle  H > 0: query q asks vector q mod H and repeats are
 *                    checked against the first answer; 0 or -1: off
 * @param durationS   seconds to run, or <= 0 for no limit
 * @param intervalMs  milliseconds per interval row
 */
public record Load(String program, String threadName, int threads, int k, long seed, long queries,
		   long hashQueries, long queryCycle, double durationS, long intervalMs) {
}
