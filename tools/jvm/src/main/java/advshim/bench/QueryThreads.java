// SPDX-License-Identifier: MIT
package advshim.bench;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The query threads: each takes the next query number, asks that query's
 * vector (Vectors.query) through its own KnnQuery, records the latency of
 * send() and logs the hash of the hits' ids.
 *
 * A thread checks the stop flag before taking a number and always finishes
 * the query it took, so the queries done are 0..n-1 (ResultHash).  Only
 * queries below Load.hashQueries are logged for the hash, so a long run's
 * memory stays bounded.
 *
 * Load.queryCycle H > 0: query q asks query (q mod H)'s vector, and every
 * answer is compared with the first one to that vector (whichever thread
 * gave it): a repeat that differs is a mismatch (cycleMismatches).
 *
 * @param <R> the KnnQuery's request
 * @param <A> the KnnQuery's answer
 */
public final class QueryThreads<R, A> {
	private static final long UNSET = Long.MIN_VALUE;

	private final Load load;
	private final int dims;
	private final KnnQuery.Opener<R, A> opener;
	private final AtomicLong next = new AtomicLong();
	private final AtomicLong done = new AtomicLong();
	private final AtomicBoolean stop = new AtomicBoolean();
	private final AtomicReference<Throwable> failure = new AtomicReference<>();
	private final LatencyHistogram histogram = new LatencyHistogram();
	private final List<ResultHash.Log> logs = new ArrayList<>();
	private final List<Thread> threads = new ArrayList<>();
	/** queryCycle: the first answer's hash per vector; UNSET before. */
	private final AtomicLongArray firstAnswer;
	private final AtomicLong cycleChecked = new AtomicLong();
	private final AtomicLong cycleMismatches = new AtomicLong();

	/** Threads for @load on vectors of @dims dimensions, each with a KnnQuery from @opener. */
	public QueryThreads(Load load, int dims, KnnQuery.Opener<R, A> opener) {
		this.load = load;
		this.dims = dims;
		this.opener = opener;
		this.firstAnswer = load.queryCycle() > 0 ? new AtomicLongArray((int) load.queryCycle()) : null;
		if (firstAnswer != null)
			for (int i = 0; i < firstAnswer.length(); i++)
				firstAnswer.set(i, UNSET);
	}

	/** Starts load.threads threads (named load.threadName-N). */
	public void start() {
		for (int i = 0; i < load.threads(); i++) {
			ResultHash.Log log = new ResultHash.Log();
			Thread t = new Thread(() -> loop(log), load.threadName() + "-" + i);

			logs.add(log);
			threads.add(t);
			t.setDaemon(true);
		}
		for (Thread t : threads)
			t.start();
	}

	private void loop(ResultHash.Log log) {
		int[] ids = new int[load.k()];

		try {
			KnnQuery<R, A> query = opener.open();

			while (!stop.get()) {
				long q = next.getAndIncrement();

				if (load.queries() >= 0 && q >= load.queries())
					break;
				long vq = load.queryCycle() > 0 ? q % load.queryCycle() : q;
				R request = query.request(Vectors.query(load.seed(), vq, dims));
				long t0 = System.nanoTime();
				A answer = query.send(request);

				histogram.record(System.nanoTime() - t0);
				long h = ResultHash.ofIds(ids, query.ids(answer, ids));

				if (load.hashQueries() < 0 || q < load.hashQueries())
					log.add(q, h);
				if (firstAnswer != null)
					checkRepeat(q, (int) vq, h);
				done.incrementAndGet();
			}
		} catch (IOException | RuntimeException e) {
			failure.compareAndSet(null, e);
			stop.set(true);
		}
	}

	/*
	 * The first answer to vector @vq is kept (a hash of 2^-64 chance equal
	 * to UNSET would be taken for none, once); later ones must equal it.
	 */
	private void checkRepeat(long q, int vq, long h) {
		long first = firstAnswer.compareAndExchange(vq, UNSET, h);

		if (first == UNSET)
			return;
		cycleChecked.incrementAndGet();
		if (first != h && cycleMismatches.getAndIncrement() < 10)
			System.err.printf(Locale.ROOT, "%s: query %d (vector %d) answered %s,"
					  + " the first answer to that vector was %s%n", load.program(), q, vq,
					  ResultHash.hex(h), ResultHash.hex(first));
	}

	/** Repeated queries compared with their vector's first answer (queryCycle). */
	public long cycleChecked() {
		return cycleChecked.get();
	}

	/** Of those, the ones whose ids differed. */
	public long cycleMismatches() {
		return cycleMismatches.get();
	}

	/** Asks every thread to stop after its current query. */
	public void stop() {
		stop.set(true);
	}

	/** True while some thread runs. */
	public boolean running() {
		for (Thread t : threads)
			if (t.isAlive())
				return true;
		return false;
	}

	/** Waits up to @ms for every thread to end; true when all have. */
	public boolean join(long ms) throws InterruptedException {
		long end = System.nanoTime() + ms * 1000000;

		for (Thread t : threads) {
			long left = (end - System.nanoTime()) / 1000000;

			if (left <= 0)
				return !running();
			t.join(left);
		}
		return !running();
	}

	/** Queries finished so far. */
	public long done() {
		return done.get();
	}

	/** The latencies of send(), all threads. */
	public LatencyHistogram histogram() {
		return histogram;
	}

	/** The first exception a thread stopped on, or null. */
	public Throwable failure() {
		return failure.get();
	}

	/** How many queries the hash covers: load.hashQueries (when >= 0) or fewer. */
	public long hashed() {
		return load.hashQueries() < 0 ? done.get() : Math.min(load.hashQueries(), done.get());
	}

	/** The result hash over the first hashed() queries; once every thread has ended. */
	public String resultHash() {
		return ResultHash.hex(ResultHash.combine(logs, hashed()));
	}
}
