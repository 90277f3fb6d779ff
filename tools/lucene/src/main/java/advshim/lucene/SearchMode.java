// SPDX-License-Identifier: MIT
package advshim.lucene;

import java.io.IOException;
import java.io.PrintStream;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;

import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.FieldInfo;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.store.MMapDirectory;

import advshim.bench.Counters;
import advshim.bench.Load;
import advshim.bench.QueryThreads;
import advshim.bench.Report;
import advshim.bench.Run;

/**
 * `advshim-lucene search`: opens the index through MMapDirectory (with
 * ADVISE_BY_CONTEXT for --read-advice context; the other values act
 * through the system property Main sets before Lucene loads), prints its
 * parameter line, and runs the query threads (advshim.bench.Run: every
 * interval until --queries are done, --duration has passed, or
 * SIGINT/SIGTERM; the summary is printed first).  With --hold the index
 * stays open after the summary until stdin ends.
 */
final class SearchMode {
	private SearchMode() {
	}

	/** This JVM's counters; a major-fault count it cannot read counts none. */
	private static final Counters SELF = new Counters() {
		@Override
		public long majorFaults() {
			return ProcStat.majorFaults();
		}

		@Override
		public long readBytes() {
			return ProcStat.readBytes();
		}

		@Override
		public long cpuMs() {
			return ProcStat.cpuMs();
		}

		@Override
		public long faults(long now, long before) {
			return now >= 0 && before >= 0 ? now - before : 0;
		}
	};

	/** Runs the search; 0, or 1 when a query failed (the error on stderr). */
	static int run(Options o, PrintStream out) throws IOException, InterruptedException {
		long openStart = System.nanoTime();
		long openFlt = ProcStat.majorFaults(), openRead = ProcStat.readBytes();

		try (MMapDirectory dir = new MMapDirectory(o.dir)) {
			if (o.advice == Options.Advice.CONTEXT)
				ContextAdvice.apply(dir);
			try (DirectoryReader reader = DirectoryReader.open(dir)) {
				int dims = dimensions(reader);
				IndexSearcher searcher = new IndexSearcher(reader);
				long openMs = (System.nanoTime() - openStart) / 1000000;
				Report report = new Report(out, o.json);
				Load load = new Load("advshim-lucene", "lucene-query", o.threads, o.k, o.seed, o.queries,
						     o.hashQueries, o.queryCycle, o.durationS, o.intervalMs);
				Opened cost = new Opened(openMs, Counters.delta(ProcStat.majorFaults(), openFlt),
							 Counters.delta(ProcStat.readBytes(), openRead), startupMs());

				start(out, o, reader.maxDoc(), reader.leaves().size(), cost);
				report.header();
				QueryThreads<float[], int[]> w = new QueryThreads<>(load, dims, IndexQuery.opener(searcher, o.k));
				ChurnIndex churn = o.churn == null ? null : new ChurnIndex(o, dims);

				if (churn != null)
					churn.start();
				int rc = Run.measure(load, w, SELF, report);

				rc = Math.max(rc, checks(w, churn, out));

				if (o.hold)
					holdUntilEof();
				return rc;
			}
		}
	}

	/** What opening the index cost, and the JVM's start-up time (each -1 unknown). */
	private record Opened(long ms, long majflt, long readBytes, long startupMs) {
	}

	/** The parameter line (JSON's start event with --json). */
	private static void start(PrintStream out, Options o, int docs, int segments, Opened cost) {
		long pid = ProcessHandle.current().pid();
		long mono = System.nanoTime() / 1000000;
		String advice = o.advice.name().toLowerCase(Locale.ROOT);

		if (o.json)
			out.printf(Locale.ROOT, "{\"event\":\"start\",\"mode\":\"search\",\"dir\":\"%s\",\"docs\":%d"
				   + ",\"segments\":%d,\"threads\":%d,\"k\":%d,\"seed\":%d,\"read_advice\":\"%s\""
				   + ",\"lucene\":\"%s\",\"open_ms\":%d,\"open_majflt\":%d,\"open_read_bytes\":%d"
				   + ",\"startup_ms\":%d,\"pid\":%d,\"mono_ms\":%d}%n",
				   Report.jsonString(o.dir.toString()), docs, segments, o.threads, o.k, o.seed,
				   advice, Main.luceneVersion(), cost.ms(), cost.majflt(), cost.readBytes(),
				   cost.startupMs(), pid, mono);
		else
			out.printf(Locale.ROOT, "# advshim-lucene search dir=%s docs=%d segments=%d threads=%d k=%d seed=%d"
				   + " read_advice=%s lucene=%s open_ms=%d open_majflt=%d open_read_bytes=%d startup_ms=%d"
				   + " pid=%d mono_ms=%d%n", o.dir, docs, segments, o.threads, o.k, o.seed,
				   advice, Main.luceneVersion(), cost.ms(), cost.majflt(), cost.readBytes(),
				   cost.startupMs(), pid, mono);
	}

	/*
	 * After the summary: --churn stops (its "# churn" line), then the
	 * "# checks" line (--query-cycle's repeats); 1 when a check failed or
	 * the churn threads did.
	 */
	private static int checks(QueryThreads<?, ?> w, ChurnIndex churn, PrintStream out)
		throws IOException, InterruptedException {
		int rc = 0;

		if (churn != null) {
			churn.stop(60000);
			out.println(churn.summary());
			if (churn.failure() != null) {
				System.err.println("advshim-lucene: churn failed: " + churn.failure());
				rc = 1;
			}
			if (churn.mismatches() > 0)
				rc = 1;
		}
		out.printf(Locale.ROOT, "# checks cycle_checked=%d cycle_mismatches=%d%n",
			   w.cycleChecked(), w.cycleMismatches());
		out.flush();
		return w.cycleMismatches() > 0 ? 1 : rc;
	}

	/*
	 * --hold: keep the index open (its mappings and their advice in
	 * place) until standard input ends, so that a test or a benchmark can
	 * read /proc/PID/smaps or run advshim inspect after the summary.
	 */
	private static void holdUntilEof() throws IOException {
		byte[] buf = new byte[256];

		while (System.in.read(buf) >= 0) {
			// Discard: only the end of input matters.
		}
	}

	/** The vector field's dimension count; IOException when it has none. */
	private static int dimensions(DirectoryReader reader) throws IOException {
		for (LeafReaderContext leaf : reader.leaves()) {
			FieldInfo fi = leaf.reader().getFieldInfos().fieldInfo(IndexMode.VECTOR_FIELD);

			if (fi != null && fi.getVectorDimension() > 0)
				return fi.getVectorDimension();
		}
		throw new IOException("no vector field \"" + IndexMode.VECTOR_FIELD
				      + "\" in the index (build it with advshim-lucene index)");
	}

	/** Milliseconds since the JVM process started (from /proc), or -1. */
	private static long startupMs() {
		return ProcessHandle.current().info().startInstant()
			.map(s -> Duration.between(s, Instant.now()).toMillis()).orElse(-1L);
	}
}
