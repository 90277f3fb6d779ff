// SPDX-License-Identifier: MIT
package advshim.opensearch;

import java.io.PrintStream;
import java.util.Locale;

/**
 * The search mode's output, in advshim-lucene's and advshim-load random's
 * shape (parsed by advshim-ab's parse_load_row): a "# ..." parameter line
 * and a header, then one row per interval
 *
 *   elapsed_ms mono_ms queries qps reads_s p50_us p90_us p99_us majflt majflt_s
 *
 * then "# summary ..." (read_bytes and cpu_ms of the node process) and
 * "# result-hash: HEX".  majflt is the node's (the process that serves the
 * queries); reads_s is queries/s, as advshim-lucene's.
 */
final class Report {
	/** One interval's (or the whole run's) figures. */
	record Figures(long elapsedMs, long monoMs, long queries, double seconds, long[] histogram, long majflt) {
	}

	private final PrintStream out;

	Report(PrintStream out) {
		this.out = out;
	}

	/** The parameter line and the TSV header. */
	void start(Client o, long nodePid, long docs, int segments, String version) {
		out.printf(Locale.ROOT, "# advshim-opensearch search index=%s docs=%d segments=%d threads=%d k=%d seed=%d"
			   + " opensearch=%s node_pid=%d pid=%d mono_ms=%d%n", o.index, docs, segments, o.threads, o.k,
			   o.seed, version, nodePid, ProcessHandle.current().pid(), System.nanoTime() / 1000000);
		out.println("elapsed_ms\tmono_ms\tqueries\tqps\treads_s\tp50_us\tp90_us\tp99_us\tmajflt\tmajflt_s");
		out.flush();
	}

	/** One interval row. */
	void interval(Figures f) {
		double dt = f.seconds() > 0 ? f.seconds() : 1e-9;
		double qps = f.queries() / dt;

		out.printf(Locale.ROOT, "%d\t%d\t%d\t%.1f\t%.1f\t%.2f\t%.2f\t%.2f\t%d\t%.1f%n", f.elapsedMs(), f.monoMs(),
			   f.queries(), qps, qps, q(f, 0.5), q(f, 0.9), q(f, 0.99), f.majflt(), f.majflt() / dt);
		out.flush();
	}

	/** The summary and the hash over the first @hashed queries. */
	void summary(Figures f, long readBytes, long cpuMs, String hash, long hashed) {
		double dt = f.seconds() > 0 ? f.seconds() : 1e-9;
		double qps = f.queries() / dt;

		out.printf(Locale.ROOT, "# summary elapsed_ms=%d queries=%d qps=%.1f reads_s=%.1f p50_us=%.2f p90_us=%.2f"
			   + " p99_us=%.2f majflt=%d read_bytes=%d cpu_ms=%d%n", f.elapsedMs(), f.queries(), qps, qps,
			   q(f, 0.5), q(f, 0.9), q(f, 0.99), f.majflt(), readBytes, cpuMs);
		out.printf(Locale.ROOT, "# result-hash: %s%s%n", hash,
			   hashed < f.queries() ? " (first " + hashed + " queries)" : "");
		out.flush();
	}

	private static double q(Figures f, double q) {
		return LatencyHistogram.quantileUs(f.histogram(), q);
	}
}
