// SPDX-License-Identifier: MIT
package advshim.lucene;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;

import org.apache.lucene.index.StoredFields;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.KnnFloatVectorQuery;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.TopDocs;

/**
 * The query threads: each takes the next query number, runs that query
 * (a KnnFloatVectorQuery through the shared IndexSearcher, one thread per
 * query, then the stored id of every hit, as a search node's query and
 * fetch phases), records its latency and logs the hash of its ids.
 *
 * A thread checks the stop flag before taking a number and always finishes
 * the query it took, so the queries done are 0..n-1 (ResultHash).
 *
 * --query-cycle H: query q asks query (q mod H)'s vector, and every answer
 * is compared with the first one to that vector (whichever thread gave
 * it): a repeat that differs is a mismatch (cycleMismatches).  Only queries
 * below --hash-queries are logged for the hash, so a long run's memory
 * stays bounded.
 */
final class Workers {
	private static final Set<String> ID_ONLY = Set.of(IndexMode.ID_FIELD);

	private final IndexSearcher searcher;
	private final Options o;
	private final int dims;
	private final AtomicLong next = new AtomicLong();
	private final AtomicLong done = new AtomicLong();
	private final AtomicBoolean stop = new AtomicBoolean();
	private final AtomicReference<Throwable> failure = new AtomicReference<>();
	private final LatencyHistogram histogram = new LatencyHistogram();
	private final List<ResultHash.Log> logs = new ArrayList<>();
	private final List<Thread> threads = new ArrayList<>();
	/** --query-cycle: the first answer's hash per vector; UNSET before. */
	private final AtomicLongArray firstAnswer;
	private final AtomicLong cycleChecked = new AtomicLong();
	private final AtomicLong cycleMismatches = new AtomicLong();
	private static final long UNSET = Long.MIN_VALUE;

	Workers(IndexSearcher searcher, Options o, int dims) {
		this.searcher = searcher;
		this.o = o;
		this.dims = dims;
		this.firstAnswer = o.queryCycle > 0 ? new AtomicLongArray((int) o.queryCycle) : null;
		if (firstAnswer != null)
			for (int i = 0; i < firstAnswer.length(); i++)
				firstAnswer.set(i, UNSET);
	}

	/** Starts o.threads threads (named lucene-query-N). */
	void start() {
		for (int i = 0; i < o.threads; i++) {
			ResultHash.Log log = new ResultHash.Log();
			Thread t = new Thread(() -> loop(log), "lucene-query-" + i);

			logs.add(log);
			threads.add(t);
			t.setDaemon(true);
		}
		for (Thread t : threads)
			t.start();
	}

	private void loop(ResultHash.Log log) {
		StoredFields fields;
		int[] ids = new int[o.k];

		try {
			fields = searcher.storedFields();
			while (!stop.get()) {
				long q = next.getAndIncrement();

				if (o.queries >= 0 && q >= o.queries)
					break;
				long vq = o.queryCycle > 0 ? q % o.queryCycle : q;
				float[] target = Vectors.query(o.seed, vq, dims);
				long t0 = System.nanoTime();
				int n = query(fields, target, ids);

				histogram.record(System.nanoTime() - t0);
				long h = ResultHash.ofIds(ids, n);

				if (o.hashQueries < 0 || q < o.hashQueries)
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
			System.err.printf(java.util.Locale.ROOT, "advshim-lucene: query %d (vector %d) answered %s,"
					  + " the first answer to that vector was %s%n", q, vq,
					  ResultHash.hex(h), ResultHash.hex(first));
	}

	/** Repeated queries compared with their vector's first answer (--query-cycle). */
	long cycleChecked() {
		return cycleChecked.get();
	}

	/** Of those, the ones whose ids differed. */
	long cycleMismatches() {
		return cycleMismatches.get();
	}

	/** Runs one query; fills @ids with the hits' ids, returns how many. */
	private int query(StoredFields fields, float[] target, int[] ids) throws IOException {
		TopDocs top = searcher.search(new KnnFloatVectorQuery(IndexMode.VECTOR_FIELD, target, o.k), o.k);
		int n = 0;

		for (ScoreDoc sd : top.scoreDocs) {
			if (n == ids.length)
				break;
			ids[n++] = fields.document(sd.doc, ID_ONLY).getField(IndexMode.ID_FIELD)
				.numericValue().intValue();
		}
		return n;
	}

	/** Asks every thread to stop after its current query. */
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
