// SPDX-License-Identifier: MIT
package advshim.lucene;

import java.util.Locale;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.util.Arrays;
import java.util.SplittableRandom;

import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.KeywordField;
import org.apache.lucene.document.KnnFloatVectorField;
import org.apache.lucene.document.NumericDocValuesField;
import org.apache.lucene.document.StoredField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.SerialMergeScheduler;
import org.apache.lucene.index.TieredMergePolicy;
import org.apache.lucene.index.VectorSimilarityFunction;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.MMapDirectory;

import advshim.bench.Vectors;

/**
 * `advshim-lucene index`: N random unit vectors (the seed's stream, in
 * document order) in a KNN vector field "vec" (Lucene's default HNSW
 * format, dot product), each document with a stored int "id" (its
 * number), and, like an OpenSearch shard's _id and _seq_no, a keyword "key"
 * (terms, postings, doc values) and a numeric doc value "seq", so that the
 * index has the usual non-vector files too; force-merged to one segment.  One thread and a serial merge
 * scheduler, so the same arguments build the same graph.  Separate files
 * per format unless --compound (then the segment is one _N.cfs).
 * --segments N flushes every vectors/N documents, so that the force merge
 * really merges (and Lucene advises the merge's inputs); --read-advice
 * acts as in search mode, through the MMapDirectory the writer reads with.
 */
final class IndexMode {
	static final String VECTOR_FIELD = "vec";
	static final String ID_FIELD = "id";
	static final String KEY_FIELD = "key";
	static final String SEQ_FIELD = "seq";

	private IndexMode() {
	}

	/** Builds the index; throws IOException from Lucene or the file system. */
	static int run(Options o, PrintStream out) throws IOException {
		long t0 = System.nanoTime();
		IndexWriterConfig iwc = new IndexWriterConfig()
			.setOpenMode(IndexWriterConfig.OpenMode.CREATE)
			.setRAMBufferSizeMB(256)
			.setMergeScheduler(new SerialMergeScheduler())
			.setUseCompoundFile(o.compound);
		TieredMergePolicy mp = new TieredMergePolicy();

		if (o.segments > 1) {
			// Flush by count only (the setters check that one is on).
			iwc.setMaxBufferedDocs((int) ((o.vectors + o.segments - 1) / o.segments));
			iwc.setRAMBufferSizeMB(IndexWriterConfig.DISABLE_AUTO_FLUSH);
		}
		mp.setNoCFSRatio(o.compound ? 1.0 : 0.0);
		iwc.setMergePolicy(mp);
		Files.createDirectories(o.dir);
		try (MMapDirectory dir = new MMapDirectory(o.dir)) {
			if (o.advice == Options.Advice.CONTEXT)
				ContextAdvice.apply(dir);
			try (IndexWriter w = new IndexWriter(dir, iwc)) {
				SplittableRandom rnd = Vectors.indexStream(o.seed);

				for (long i = 0; i < o.vectors; i++) {
					Document d = new Document();

					d.add(new KnnFloatVectorField(VECTOR_FIELD, Vectors.next(rnd, o.dims),
								      VectorSimilarityFunction.DOT_PRODUCT));
					d.add(new StoredField(ID_FIELD, (int) i));
					d.add(new KeywordField(KEY_FIELD, Long.toString(i), Field.Store.NO));
					d.add(new NumericDocValuesField(SEQ_FIELD, i));
					w.addDocument(d);
				}
				w.forceMerge(1);
				w.commit();
			}
			report(o, dir, out, (System.nanoTime() - t0) / 1000000);
		}
		return 0;
	}

	/** Prints the files, their sizes and the segment count. */
	private static void report(Options o, Directory dir, PrintStream out, long elapsedMs)
		throws IOException {
		String[] files = dir.listAll();
		long total = 0;
		int segments;

		try (DirectoryReader r = DirectoryReader.open(dir)) {
			segments = r.leaves().size();
		}
		Arrays.sort(files);
		out.printf(Locale.ROOT, "# advshim-lucene index dir=%s vectors=%d dims=%d seed=%d compound=%d"
			   + " flushed_segments=%d read_advice=%s lucene=%s%n", o.dir, o.vectors, o.dims, o.seed,
			   o.compound ? 1 : 0, o.segments, o.advice.name().toLowerCase(Locale.ROOT),
			   Main.luceneVersion());
		out.println("file\tbytes");
		for (String f : files) {
			if (f.equals("write.lock"))
				continue;
			long n = dir.fileLength(f);

			total += n;
			out.printf(Locale.ROOT, "%s\t%d%n", f, n);
		}
		out.printf(Locale.ROOT, "# size bytes=%d mib=%.1f segments=%d elapsed_ms=%d%n",
			   total, total / 1048576.0, segments, elapsedMs);
	}
}
