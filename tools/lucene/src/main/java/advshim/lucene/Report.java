// SPDX-License-Identifier: MIT
package advshim.lucene;

import java.util.Locale;
import java.io.PrintStream;

/**
 * The search mode's output, in advshim-load random's shape (advshim-load(1),
 * parsed by advshim-ab's parse_load_row): a "# ..." parameter line and a
 * header, then one row per interval
 *
 *   elapsed_ms mono_ms queries qps reads_s p50_us p90_us p99_us majflt majflt_s
 *
 * and "# summary ..." at the end (with read_bytes, the bytes read from
 * storage during the run, and cpu_ms, the CPU time the whole JVM used in
 * it), followed by "# result-hash: HEX".  With
 * --json the same fields as objects with "event" start, interval, summary.
 * reads_s is queries/s here (a KNN query is one read of the index for
 * advshim-ab, which ranks arms by this column).  mono_ms is
 * CLOCK_MONOTONIC (System.nanoTime on Linux), comparable with
 * advshim-load stream's events.
 */
final class Report {
	/** One interval's (or the whole run's) figures. */
	record Figures(long elapsedMs, long monoMs, long queries, double seconds,
		       long[] histogram, long majflt) {
	}

	/** Bytes read from storage during the run (summary only; -1 unknown). */
	private long readBytes = -1;

	void readBytes(long bytes) {
		readBytes = bytes;
	}

	/** CPU time the JVM used during the run, ms (summary only; -1 unknown). */
	private long cpuMs = -1;

	void cpuMs(long ms) {
		cpuMs = ms;
	}

	private final PrintStream out;
	private final boolean json;

	Report(PrintStream out, boolean json) {
		this.out = out;
		this.json = json;
	}

	private long openMs, openMajflt = -1, openReadBytes = -1;

	/** What opening the index cost: time, major faults, bytes read (-1 unknown). */
	void open(long ms, long majflt, long readBytes) {
		openMs = ms;
		openMajflt = majflt;
		openReadBytes = readBytes;
	}

	/** The parameter line (and the TSV header). */
	void start(Options o, int docs, int segments, long startupMs) {
		long pid = ProcessHandle.current().pid();
		long mono = System.nanoTime() / 1000000;

		if (json) {
			out.printf(Locale.ROOT, "{\"event\":\"start\",\"mode\":\"search\",\"dir\":\"%s\",\"docs\":%d"
				   + ",\"segments\":%d,\"threads\":%d,\"k\":%d,\"seed\":%d,\"read_advice\":\"%s\""
				   + ",\"lucene\":\"%s\",\"open_ms\":%d,\"open_majflt\":%d,\"open_read_bytes\":%d"
				   + ",\"startup_ms\":%d,\"pid\":%d,\"mono_ms\":%d}%n",
				   jsonString(o.dir.toString()), docs, segments, o.threads, o.k, o.seed,
				   o.advice.name().toLowerCase(Locale.ROOT), Main.luceneVersion(), openMs, openMajflt,
				   openReadBytes, startupMs, pid, mono);
		} else {
			out.printf(Locale.ROOT, "# advshim-lucene search dir=%s docs=%d segments=%d threads=%d k=%d seed=%d"
				   + " read_advice=%s lucene=%s open_ms=%d open_majflt=%d open_read_bytes=%d startup_ms=%d"
				   + " pid=%d mono_ms=%d%n", o.dir, docs, segments, o.threads, o.k, o.seed,
				   o.advice.name().toLowerCase(Locale.ROOT), Main.luceneVersion(), openMs, openMajflt,
				   openReadBytes, startupMs, pid, mono);
			out.println("elapsed_ms\tmono_ms\tqueries\tqps\treads_s\tp50_us\tp90_us\tp99_us\tmajflt\tmajflt_s");
		}
		out.flush();
	}

	/** One interval row. */
	void interval(Figures f) {
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
	 * The summary over the whole run, with the result hash over the first
	 * @hashed queries (said on the hash line when fewer than were run).
	 */
	void summary(Figures f, String hash, long hashed) {
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
	static String jsonString(String s) {
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
