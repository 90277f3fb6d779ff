// SPDX-License-Identifier: MIT
package advshim.opensearch;

import java.io.IOException;
import java.io.PrintStream;
import java.util.Locale;
import java.util.SplittableRandom;

import advshim.bench.Vectors;

/**
 * `load`: (re)creates the k-NN index (one shard, no replica, a knn_vector
 * field "vec" with an HNSW method: engine lucene or faiss, space l2, m 16,
 * ef_construction 100), bulk-loads N vectors from the seed with ids 0..N-1,
 * refreshes, force-merges to one segment and prints the segment's files.
 */
final class Loader {
	private static final int BATCH = 500;

	private Loader() {
	}

	static int run(Client o, Http http, PrintStream out) throws IOException {
		long t0 = System.nanoTime();

		try {
			http.send("DELETE", "/" + o.index, null);
		} catch (IOException e) {
			// No such index yet.
		}
		http.send("PUT", "/" + o.index, createBody(o));
		SplittableRandom rnd = Vectors.indexStream(o.seed);
		StringBuilder b = new StringBuilder();

		for (long id = 0; id < o.vectors; id++) {
			b.append("{\"index\":{\"_id\":\"").append(id).append("\"}}\n{\"vec\":");
			appendVector(b, Vectors.next(rnd, o.dims));
			b.append("}\n");
			if ((id + 1) % BATCH == 0 || id + 1 == o.vectors) {
				String r = http.send("POST", "/" + o.index + "/_bulk", b.toString());

				if (r.contains("\"errors\":true"))
					throw new IOException("bulk load failed: " + r.substring(0, Math.min(600, r.length())));
				b.setLength(0);
			}
		}
		http.send("POST", "/" + o.index + "/_refresh", null);
		http.send("POST", "/" + o.index + "/_forcemerge?max_num_segments=1", null);
		http.send("POST", "/" + o.index + "/_refresh", null);
		String segs = http.send("GET", "/_cat/segments/" + o.index + "?h=segment,docs.count,size.memory,committed,compound", null);

		out.printf(Locale.ROOT, "# advshim-opensearch load index=%s vectors=%d dims=%d seed=%d engine=%s store=%s"
			   + " compound=%d load_ms=%d%n", o.index, o.vectors, o.dims, o.seed, o.engine,
			   o.store == null ? "default" : o.store, o.compound ? 1 : 0, (System.nanoTime() - t0) / 1000000);
		for (String line : segs.split("\n"))
			if (!line.isBlank())
				out.println("# segment " + line.trim());
		return 0;
	}

	/** The index's settings and mapping. */
	static String createBody(Client o) {
		String store = o.store == null ? "" : ",\"store.type\":\"" + o.store + "\"";
		// Flushed segments (use_compound_file) and merged ones (compound_format).
		String compound = ",\"use_compound_file\":" + o.compound + ",\"compound_format\":" + o.compound;

		for (String kv : o.settings)
			store += "," + kv;

		return "{\"settings\":{\"index\":{\"number_of_shards\":1,\"number_of_replicas\":0,\"knn\":true"
			+ ",\"refresh_interval\":\"-1\"" + store + compound + "}},"
			+ "\"mappings\":{\"properties\":{\"vec\":{\"type\":\"knn_vector\",\"dimension\":" + o.dims
			+ ",\"method\":{\"name\":\"hnsw\",\"engine\":\"" + o.engine + "\",\"space_type\":\"l2\""
			+ ",\"parameters\":{\"m\":16,\"ef_construction\":100}}}}}}";
	}

	static void appendVector(StringBuilder b, float[] v) {
		b.append('[');
		for (int i = 0; i < v.length; i++) {
			if (i > 0)
				b.append(',');
			b.append(v[i]);
		}
		b.append(']');
	}
}
