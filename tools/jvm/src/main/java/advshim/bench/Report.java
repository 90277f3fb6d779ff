// SPDX-License-Identifier: MIT
package advshim.bench;

import java.io.PrintStream;
import java.util.Locale;

/**
 * A query load's rows, in advshim-load random's shape (advshim-load(1),
 * parsed by advshim-ab's parse_load_row): after the program's own "# ..."
 * parameter line, a header and one row per interval
 *
 *   elapsed_ms mono_ms queries qps reads_s p50_us p90_us p99_us majflt majflt_s
 *
 * and "# summary ..." at the end (with read_bytes, the bytes read from
 * storage during the run, and cpu_ms, the CPU time the serving process used
 * in it), followed by "# result-hash: HEX".  With json (advshim-lucene
 * --json) the same fields as objects with "event" interval and summary.
 * reads_s is queries/s (a KNN query is one read of the index for
 * advshim-ab, which ranks arms by this column).  mono_ms is
 * CLOCK_MONOTONIC (System.nanoTime on Linux), comparable with advshim-load
 * stream's events.
 */
public final class Report {
	/** One interval's (or the whole run's) figures. */
	public record Figures(long elapsedMs, long monoMs, long queries, double seconds,
			      long[] histogram, long majflt) {
	}

	private final PrintStream out;
	private final boolean json;

	/** Rows on @out, as JSON objects when @json. */
	public Report(PrintStream out, boolean json) {
		this.out = out;
		this.json = json;
	}

	/** True when the rows are JSON objects. */
	public boolean json() {
		return json;
	}

	/** The TSV header (nothing in JSON); after the parameter line. */
	public void header() {
		if (!json)
			out.println("elapsed_ms\tmono_ms\tqueries\tqps\treads_s\tp50_us\tp90_us\tp99_us\tmajflt\tmajflt_s");
		out.flush();
	}

	/** One interval row. */
	public void interval(Figures f) {
		double dt = f.seconds() > 0 ? f.seconds() : 1e-9;
		double qps = f.queries() / dt;

		if (json)
			out.printf(Locale.ROOT, "{\"event\":\"interval\",%s,\"majflt_s\":%.1f}%n", fields(f, qps), f.majflt() / dt);
		else
			out.printf(Locale.ROOT, "%d\t%d\t%d\t%.1f\t%.1f\t%.2f\t%.2f\t%.2f\t%d\t%.1f%n", f.elapsedMs(), f.monoMs(),
				   f.queries(), qps, qps, q(f, 0.5), q(f, 0.9), q(f, 0.99), f.majflt(), f.majflt() / dt);
		out.flush();
	}

	/**
	 * The summary over the whole run (@readBytes, @cpuMs: -1 unknown), with
	 * the result hash over the first @hashed queries (said on the hash line
	 * when fewer than were run).
	 */
	public void summary(Figures f, long readBytes, long cpuMs, String hash, long hashed) {
		double dt = f.seconds() > 0 ? f.seconds() : 1e-9;
		double qps = f.queries() / dt;

		if (json) {
			out.printf(Locale.ROOT, "{\"event\":\"summary\",%s,\"read_bytes\":%d,\"cpu_ms\":%d,\"result_hash\":\"%s\""
				   + ",\"hashed_queries\":%d}%n", fields(f, qps), readBytes, cpuMs, hash, hashed);
		} else {
			out.printf(Locale.ROOT, "# summary elapsed_ms=%d queries=%d qps=%.1f reads_s=%.1f p50_us=%.2f p90_us=%.2f"
				   + " p99_us=%.2f majflt=%d read_bytes=%d cpu_ms=%d%n", f.elapsedMs(), f.queries(), qps,
				   qps, q(f, 0.5), q(f, 0.9), q(f, 0.99), f.majflt(), readBytes, cpuMs);
			out.printf(Locale.ROOT, "# result-hash: %s%s%n", hash,
				   hashed < f.queries() ? " (first " + hashed + " queries)" : "");
		}
		out.flush();
	}

	private static String fields(Figures f, double qps) {
		return String.format(Locale.ROOT, "\"elapsed_ms\":%d,\"mono_ms\":%d,\"queries\":%d,\"qps\":%.1f,\"reads_s\":%.1f"
				     + ",\"p50_us\":%.2f,\"p90_us\":%.2f,\"p99_us\":%.2f,\"majflt\":%d",
				     f.elapsedMs(), f.monoMs(), f.queries(), qps, qps, q(f, 0.5), q(f, 0.9),
				     q(f, 0.99), f.majflt());
	}

	private static double q(Figures f, double q) {
		return LatencyHistogram.quantileUs(f.histogram(), q);
	}

	/** @s with JSON's special characters escaped. */
	public static String jsonString(String s) {
		StringBuilder b = new StringBuilder(s.length() + 8);

		for (char c : s.toCharArray()) {
			if (c == '"' || c == '\\')
				b.append('\\').append(c);
			else if (c < 0x20)
				b.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
			else
				b.append(c);
		}
		return b.toString();
	}
}
