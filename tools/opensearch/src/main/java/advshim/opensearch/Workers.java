// SPDX-License-Identifier: MIT
package advshim.opensearch;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The query threads: each takes the next query number, sends that k-NN
 * query (POST /INDEX/_search, a knn query on "vec", size k, no _source)
 * and waits for the answer, records the latency and logs the hash of the
 * hits' ids in rank order.  A thread checks the stop flag before taking a
 * number and always finishes the query it took, so the queries done are
 * 0..n-1 (ResultHash).
 */
final class Workers {
	private static final Pattern ID = Pattern.compile("\"_id\"\\s*:\\s*\"(\\d+)\"");

	private final Http http;
	private final Client o;
	private final int dims;
	private final AtomicLong next = new AtomicLong();
	private final AtomicLong done = new AtomicLong();
	private final AtomicBoolean stop = new AtomicBoolean();
	private final AtomicReference<Throwable> failure = new AtomicReference<>();
	private final LatencyHistogram histogram = new LatencyHistogram();
	private final List<ResultHash.Log> logs = new ArrayList<>();
	private final List<Thread> threads = new ArrayList<>();

	Workers(Http http, Client o, int dims) {
		this.http = http;
		this.o = o;
		this.dims = dims;
	}

	/** Starts o.threads threads (named knn-query-N). */
	void start() {
		for (int i = 0; i < o.threads; i++) {
			ResultHash.Log log = new ResultHash.Log();
			Thread t = new Thread(() -> loop(log), "knn-query-" + i);

			logs.add(log);
			threads.add(t);
			t.setDaemon(true);
		}
		for (Thread t : threads)
			t.start();
	}

	private void loop(ResultHash.Log log) {
		int[] ids = new int[o.k];

		try {
			while (!stop.get()) {
				long q = next.getAndIncrement();

				if (o.queries >= 0 && q >= o.queries)
					break;
				String body = body(Vectors.query(o.seed, q, dims), o.k);
				long t0 = System.nanoTime();
				String resp = http.send("POST", "/" + o.index + "/_search", body);

				histogram.record(System.nanoTime() - t0);
				log.add(q, ResultHash.ofIds(ids, parseIds(resp, ids)));
				done.incrementAndGet();
			}
		} catch (IOException | RuntimeException e) {
			failure.compareAndSet(null, e);
			stop.set(true);
		}
	}

	/** The query of vector @v for the @k nearest. */
	static String body(float[] v, int k) {
		StringBuilder b = new StringBuilder(v.length * 12 + 128);

		b.append("{\"size\":").append(k).append(",\"_source\":false,\"query\":{\"knn\":{\"vec\":{\"vector\":");
		Loader.appendVector(b, v);
		b.append(",\"k\":").append(k).append("}}}}");
		return b.toString();
	}

	/** The hits' ids of a search response, in order, into @ids; how many. */
	static int parseIds(String resp, int[] ids) {
		Matcher m = ID.matcher(resp);
		int n = 0;

		while (n < ids.length && m.find())
			ids[n++] = Integer.parseInt(m.group(1));
		return n;
	}

	void stop() {
		stop.set(true);
	}

	/** True while some thread runs. */
	boolean running() {
		for (Thread t : threads)
			if (t.isAlive())
				return true;
		return false;
	}

	/** Waits up to @ms for every thread to end; true when all have. */
	boolean join(long ms) throws InterruptedException {
		long end = System.nanoTime() + ms * 1000000;

		for (Thread t : threads) {
			long left = (end - System.nanoTime()) / 1000000;

			if (left <= 0)
				return !running();
			t.join(left);
		}
		return !running();
	}

	long done() {
		return done.get();
	}

	LatencyHistogram histogram() {
		return histogram;
	}

	Throwable failure() {
		return failure.get();
	}

	/** How many queries the hash covers: @limit (when >= 0) or fewer. */
	long hashed(long limit) {
		return limit < 0 ? done.get() : Math.min(limit, done.get());
	}

	/** The result hash over the first hashed(@limit) queries; once every thread has ended. */
	String resultHash(long limit) {
		return ResultHash.hex(ResultHash.combine(logs, hashed(limit)));
	}
}
