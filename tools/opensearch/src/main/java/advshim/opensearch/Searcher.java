// SPDX-License-Identifier: MIT
package advshim.opensearch;

import java.io.IOException;
import java.io.PrintStream;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import advshim.bench.Load;
import advshim.bench.QueryThreads;
import advshim.bench.Report;
import advshim.bench.Run;

/**
 * `search`: waits until the index is green (its shard open: after a node
 * restart HTTP answers first), reads its dimension and size, prints the
 * parameter line and runs the query threads (advshim.bench.Run, with
 * HttpQuery; the node's counters): every interval until --queries are
 * done, --duration has passed or SIGINT/SIGTERM (the summary is printed
 * first, exit 0).
 */
final class Searcher {
	private Searcher() {
	}

	static int run(Client o, Http http, ProcStat node, PrintStream out) throws IOException, InterruptedException {
		// After a restart the node answers before its shards are open.
		http.send("GET", "/_cluster/health/" + o.index + "?wait_for_status=green&timeout=300s", null);
		int dims = (int) field(http.send("GET", "/" + o.index + "/_mapping", null), "dimension");
		long docs = field(http.send("GET", "/" + o.index + "/_count", null), "count");
		String segs = http.send("GET", "/_cat/segments/" + o.index + "?h=segment", null);
		String version = text(http.send("GET", "/", null), "number");
		Report report = new Report(out, false);
		Load load = new Load("advshim-opensearch", "knn-query", o.threads, o.k, o.seed, o.queries,
				     o.hashQueries, 0, o.durationS, o.intervalMs);
		HttpQuery query = new HttpQuery(http, o.index, o.k);

		out.printf(Locale.ROOT, "# advshim-opensearch search index=%s docs=%d segments=%d threads=%d k=%d seed=%d"
			   + " opensearch=%s node_pid=%d pid=%d mono_ms=%d%n", o.index, docs,
			   segs.lines().filter(l -> !l.isBlank()).count(), o.threads, o.k, o.seed, version, node.pid(),
			   ProcessHandle.current().pid(), System.nanoTime() / 1000000);
		report.header();
		return Run.measure(load, new QueryThreads<>(load, dims, () -> query), node, report);
	}

	/** The first numeric value of "@name" in @json; IOException when absent. */
	static long field(String json, String name) throws IOException {
		Matcher m = Pattern.compile("\"" + name + "\"\\s*:\\s*(\\d+)").matcher(json);

		if (!m.find())
			throw new IOException("no \"" + name + "\" in the node's answer: " + json);
		return Long.parseLong(m.group(1));
	}

	private static String text(String json, String name) {
		Matcher m = Pattern.compile("\"" + name + "\"\\s*:\\s*\"([^\"]*)\"").matcher(json);

		return m.find() ? m.group(1) : "?";
	}
}
