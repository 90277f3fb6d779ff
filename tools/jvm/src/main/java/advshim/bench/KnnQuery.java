// SPDX-License-Identifier: MIT
package advshim.bench;

import java.io.IOException;

/**
 * How one query thread asks for the k nearest neighbours of a vector, in
 * three steps so that QueryThreads times exactly the middle one:
 * request() builds what is sent (not timed), send() is the search itself
 * (timed: what a search node's client waits for), ids() reads the hits'
 * ids out of the answer (not timed).
 *
 * A KnnQuery belongs to one thread (an Opener makes one per thread, in
 * that thread) and need not be thread-safe.
 *
 * @param <R> the request
 * @param <A> the answer
 */
public interface KnnQuery<R, A> {
	/** Makes a query thread's KnnQuery, in that thread. */
	interface Opener<R, A> {
		KnnQuery<R, A> open() throws IOException;
	}

	/** The request for the k nearest neighbours of @vector. */
	R request(float[] vector);

	/** Runs @request; its answer. */
	A send(R request) throws IOException;

	/** The hits' ids of @answer in rank order into @ids (at most ids.length); how many. */
	int ids(A answer, int[] ids);
}
