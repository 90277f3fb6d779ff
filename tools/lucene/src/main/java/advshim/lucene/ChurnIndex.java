// SPDX-License-Identifier: MIT
package advshim.lucene;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.KeywordField;
import org.apache.lucene.document.KnnFloatVectorField;
import org.apache.lucene.document.NumericDocValuesField;
import org.apache.lucene.document.StoredField;
import org.apache.lucene.index.ConcurrentMergeScheduler;
import org.apache.lucene.index.FloatVectorValues;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.KnnVectorValues;
import org.apache.lucene.index.LeafReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.MergePolicy;
import org.apache.lucene.index.ReaderUtil;
import org.apache.lucene.index.TieredMergePolicy;
import org.apache.lucene.index.VectorSimilarityFunction;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.KnnFloatVectorQuery;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.SearcherManager;
import org.apache.lucene.store.MMapDirectory;

import advshim.bench.Vectors;

/**
 * search --churn DIR2: a second index that keeps changing while the main
 * one is searched, so that the process maps new segments, unmaps merged-away
 * ones and sees its advice change (SEQUENTIAL on a merge's inputs, RANDOM on
 * the new segment, under --read-advice context) all the time.
 *
 * One writer thread adds --churn-batch documents and commits, refreshes the
 * SearcherManager (new segments mapped, readers of merged-away ones closed:
 * unmapped), force-merges to one segment every --merge-every commits, and
 * after --churn-max documents deletes them all (every segment unmapped) and
 * starts a new cycle.  Merges run on Lucene's ConcurrentMergeScheduler
 * (counted as they finish), natural ones too (TieredMergePolicy, 3 segments
 * per tier: 3).  --churn-threads threads query the latest refreshed searcher
 * and check every hit: its stored (cycle, id) regenerate the vector it was
 * indexed with, which must equal, bit for bit, the vector Lucene reads back
 * from the segment's mapped .vec (a wrong page behind any of those mappings
 * is a mismatch).  Document vectors are deterministic; which reader a query
 * sees is not, so the churn queries are checked, never hashed.
 */
final class ChurnIndex {
	static final String CYCLE_FIELD = "cycle";
	private static final Set<String> STORED = Set.of(IndexMode.ID_FIELD, CYCLE_FIELD);
	private static final long CHURN_SALT = 0xc4a44c4a4L;

	private final Options o;
	private final int dims;
	private final AtomicBoolean stop = new AtomicBoolean();
	private final AtomicReference<Throwable> failure = new AtomicReference<>();
	private final AtomicLong commits = new AtomicLong(), merges = new AtomicLong();
	private final AtomicLong forceMerges = new AtomicLong(), resets = new AtomicLong();
	private final AtomicLong queries = new AtomicLong(), verified = new AtomicLong();
	private final AtomicLong mismatches = new AtomicLong(), refreshes = new AtomicLong();
	private final List<Thread> threads = new ArrayList<>();
	private MMapDirectory dir;
	private IndexWriter writer;
	private SearcherManager manager;

	ChurnIndex(Options o, int dims) {
		this.o = o;
		this.dims = dims;
	}

	/** Creates the (emptied) index in o.churn and starts the writer and query threads. */
	void start() throws IOException {
		TieredMergePolicy mp = new TieredMergePolicy();
		ConcurrentMergeScheduler cms = new ConcurrentMergeScheduler() {
			@Override
			protected void doMerge(MergeSource source, MergePolicy.OneMerge merge) throws IOException {
				super.doMerge(source, merge);
				merges.incrementAndGet();
			}
		};

		mp.setSegmentsPerTier(3);
		cms.disableAutoIOThrottle();
		dir = new MMapDirectory(o.churn);
		if (o.advice == Options.Advice.CONTEXT)
			ContextAdvice.apply(dir);
		writer = new IndexWriter(dir, new IndexWriterConfig().setMergePolicy(mp).setMergeScheduler(cms)
					 .setOpenMode(IndexWriterConfig.OpenMode.CREATE));
		writer.commit();
		manager = new SearcherManager(dir, null);
		threads.add(new Thread(this::writeLoop, "lucene-churn-writer"));
		for (int i = 0; i < o.churnThreads; i++) {
			long s = i;

			threads.add(new Thread(() -> queryLoop(s), "lucene-churn-query-" + i));
		}
		for (Thread t : threads) {
			t.setDaemon(true);
			t.start();
		}
	}

	/** The vector document @id of cycle @cycle was indexed with. */
	private float[] vectorOf(long cycle, long id) {
		return Vectors.query(o.seed ^ CHURN_SALT ^ Vectors.mix(cycle), id, dims);
	}

	private void writeLoop() {
		long cycle = 0, inCycle = 0;

		try {
			while (!stop.get()) {
				for (int i = 0; i < o.churnBatch && !stop.get(); i++)
					writer.addDocument(document(cycle, inCycle++));
				commit();
				if (commits.get() % o.mergeEvery == 0 && !stop.get()) {
					writer.forceMerge(1);
					forceMerges.incrementAndGet();
					commit();
				}
				if (inCycle >= o.churnMax && !stop.get()) {
					writer.deleteAll();
					commit();
					resets.incrementAndGet();
					cycle++;
					inCycle = 0;
				}
			}
		} catch (IOException | RuntimeException e) {
			failUnlessStopping(e);
		}
	}

	private void commit() throws IOException {
		writer.commit();
		commits.incrementAndGet();
		manager.maybeRefreshBlocking();
		refreshes.incrementAndGet();
	}

	private Document document(long cycle, long id) {
		Document d = new Document();

		d.add(new KnnFloatVectorField(IndexMode.VECTOR_FIELD, vectorOf(cycle, id),
					      VectorSimilarityFunction.DOT_PRODUCT));
		d.add(new StoredField(IndexMode.ID_FIELD, (int) id));
		d.add(new StoredField(CYCLE_FIELD, (int) cycle));
		d.add(new KeywordField(IndexMode.KEY_FIELD, cycle + "/" + id, Field.Store.NO));
		d.add(new NumericDocValuesField(IndexMode.SEQ_FIELD, id));
		return d;
	}

	private void queryLoop(long stream) {
		SplittableRandom rnd = new SplittableRandom(o.seed ^ Vectors.mix(stream + 1));

		try {
			while (!stop.get()) {
				IndexSearcher s = manager.acquire();

				try {
					if (s.getIndexReader().maxDoc() == 0) {
						Thread.sleep(5);
						continue;
					}
					float[] target = Vectors.query(o.seed ^ CHURN_SALT, rnd.nextLong(), dims);
					ScoreDoc[] hits = s.search(new KnnFloatVectorQuery(IndexMode.VECTOR_FIELD,
							target, o.k), o.k).scoreDocs;

					for (ScoreDoc sd : hits)
						check(s.getIndexReader().leaves(), sd.doc);
					queries.incrementAndGet();
				} finally {
					manager.release(s);
				}
			}
		} catch (IOException | RuntimeException e) {
			failUnlessStopping(e);
		} catch (InterruptedException e) {
			Thread.currentThread().interrupt();
		}
	}

	/* The hit @doc's vector as Lucene reads it must be the one its stored fields regenerate. */
	private void check(List<LeafReaderContext> leaves, int doc) throws IOException {
		LeafReaderContext leaf = leaves.get(ReaderUtil.subIndex(doc, leaves));
		LeafReader r = leaf.reader();
		int local = doc - leaf.docBase;
		Document d = r.storedFields().document(local, STORED);
		long id = d.getField(IndexMode.ID_FIELD).numericValue().longValue();
		long cycle = d.getField(CYCLE_FIELD).numericValue().longValue();
		FloatVectorValues values = r.getFloatVectorValues(IndexMode.VECTOR_FIELD);
		KnnVectorValues.DocIndexIterator it = values.iterator();
		float[] want = vectorOf(cycle, id);

		verified.incrementAndGet();
		if (it.advance(local) == local && Arrays.equals(values.vectorValue(it.index()), want))
			return;
		if (mismatches.getAndIncrement() < 10)
			System.err.printf(Locale.ROOT, "advshim-lucene: churn: doc %d (cycle %d id %d) of %s:"
					  + " the vector read back is not the one indexed%n", local, cycle, id, r);
	}

	private void fail(Throwable e) {
		failure.compareAndSet(null, e);
		stop.set(true);
	}

	/* Once stop() runs, the rollback makes the writer's calls throw: not a failure. */
	private void failUnlessStopping(Throwable e) {
		if (!stop.get())
			fail(e);
	}

	/*
	 * Stops every thread (waits up to @ms).  A writer still busy after
	 * STOP_GRACE_MS (a force merge on a loaded host can take minutes) is
	 * stopped by the rollback, which aborts the running merges and drops
	 * uncommitted work; then the searchers and the directory close.
	 */
	void stop(long ms) throws IOException, InterruptedException {
		long end = System.nanoTime() + ms * 1000000;

		stop.set(true);
		threads.get(0).join(STOP_GRACE_MS);
		writer.rollback();
		for (Thread t : threads)
			t.join(Math.max(1, (end - System.nanoTime()) / 1000000));
		for (Thread t : threads)
			if (t.isAlive())
				fail(new IllegalStateException(t.getName() + " did not stop within " + ms + " ms"));
		manager.close();
		dir.close();
	}

	private static final long STOP_GRACE_MS = 5000;

	Throwable failure() {
		return failure.get();
	}

	long mismatches() {
		return mismatches.get();
	}

	/** One "# churn ..." line: what the churn did and what its checks found. */
	String summary() {
		return String.format(Locale.ROOT, "# churn dir=%s commits=%d merges=%d force_merges=%d resets=%d"
				     + " refreshes=%d queries=%d verified=%d mismatches=%d", o.churn, commits.get(),
				     merges.get(), forceMerges.get(), resets.get(), refreshes.get(), queries.get(),
				     verified.get(), mismatches.get());
	}
}
