// SPDX-License-Identifier: MIT
package advshim.lucene;

import java.io.IOException;
import java.util.Set;

import org.apache.lucene.index.StoredFields;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.KnnFloatVectorQuery;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.TopDocs;

import advshim.bench.KnnQuery;

/**
 * One query thread's search of the index: a KnnFloatVectorQuery through the
 * shared IndexSearcher, then the stored id of every hit (a search node's
 * query and fetch phases; both timed, as send()).  Each thread has its own
 * StoredFields (open() runs in that thread).
 */
final class IndexQuery implements KnnQuery<float[], int[]> {
	private static final Set<String> ID_ONLY = Set.of(IndexMode.ID_FIELD);

	private final IndexSearcher searcher;
	private final StoredFields fields;
	private final int k;

	private IndexQuery(IndexSearcher searcher, int k) throws IOException {
		this.searcher = searcher;
		this.fields = searcher.storedFields();
		this.k = k;
	}

	/** Opens one IndexQuery per query thread on @searcher, for the @k nearest. */
	static KnnQuery.Opener<float[], int[]> opener(IndexSearcher searcher, int k) {
		return () -> new IndexQuery(searcher, k);
	}

	@Override
	public float[] request(float[] vector) {
		return vector;
	}

	/** The ids of the hits of @target, in rank order. */
	@Override
	public int[] send(float[] target) throws IOException {
		TopDocs top = searcher.search(new KnnFloatVectorQuery(IndexMode.VECTOR_FIELD, target, k), k);
		ScoreDoc[] docs = top.scoreDocs;
		int[] hits = new int[Math.min(docs.length, k)];

		for (int i = 0; i < hits.length; i++)
			hits[i] = fields.document(docs[i].doc, ID_ONLY).getField(IndexMode.ID_FIELD)
				.numericValue().intValue();
		return hits;
	}

	@Override
	public int ids(int[] answer, int[] ids) {
		int n = Math.min(answer.length, ids.length);

		System.arraycopy(answer, 0, ids, 0, n);
		return n;
	}
}
