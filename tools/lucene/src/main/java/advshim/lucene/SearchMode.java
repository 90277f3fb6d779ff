// SPDX-License-Identifier: MIT
package advshim.lucene;

import java.io.IOException;
import java.io.PrintStream;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CountDownLatch;

import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.FieldInfo;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.store.MMapDirectory;

/**
 * `advshim-lucene search`: opens the index through MMapDirectory (with
 * ADVISE_BY_CONTEXT for --read-advice context; the other values act
 * through the system property Main sets before Lucene loads), runs the
 * Workers and reports every interval until --queries are done, --duration
 * has passed, or SIGINT/SIGTERM (the summary is printed first).  With
 * --hold the index stays open after the summary until stdin ends.
 */
final class SearchMode {
	private SearchMode() {
	}

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

				report.open(openMs, delta(ProcStat.majorFaults(), openFlt),
					    delta(ProcStat.readBytes(), openRead));
				report.start(o, reader.maxDoc(), reader.leaves().size(), startupMs());
				Workers w = new Workers(searcher, o, dims);
				ChurnIndex churn = o.churn == null ? null : new ChurnIndex(o, dims);

				if (churn != null)
					churn.start();
				int rc = measure(o, w, report);

				rc = Math.max(rc, checks(o, w, churn, out));

				if (o.hold)
					holdUntilEof();
				return rc;
			}
		}
	}

	/*
	 * After the summary: --churn stops (its "# churn" line), then the
	 * "# checks" line (--query-cycle's repeats); 1 when a check failed or
	 * the churn threads did.
	 */
	private static int checks(Options o, Workers w, ChurnIndex churn, PrintStream out)
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
		out.printf(java.util.Locale.ROOT, "# checks cycle_checked=%d cycle_mismatches=%d%n",
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

	private static int measure(Options o, Workers w, Report report) throws InterruptedException {
		CountDownLatch finished = new CountDownLatch(1);
		Thread hook = new Thread(() -> onSignal(w, finished), "advshim-lucene-exit");
		long t0 = System.nanoTime();
		long end = o.durationS > 0 ? t0 + (long) (o.durationS * 1e9) : Long.MAX_VALUE;
		long step = o.intervalMs * 1000000L;
		long[] hist0 = w.histogram().snapshot(), prevHist = hist0;
		long flt0 = ProcStat.majorFaults(), prevFlt = flt0, prevDone = 0, prevT = t0;
		long read0 = ProcStat.readBytes(), cpu0 = ProcStat.cpuMs();

		Runtime.getRuntime().addShutdownHook(hook);
		w.start();
		for (long tick = t0 + step; ; tick += step) {
			long wake = Math.min(tick, end);
			boolean over = waitFor(w, wake);
			long now = System.nanoTime(), flt = ProcStat.majorFaults(), done = w.done();
			long[] hist = w.histogram().snapshot();

			if (done > prevDone || !over)
				report.interval(new Report.Figures((now - t0) / 1000000, now / 1000000,
					done - prevDone, (now - prevT) / 1e9,
					LatencyHistogram.minus(hist, prevHist), faults(flt, prevFlt)));
			prevHist = hist;
			prevFlt = flt;
			prevDone = done;
			prevT = now;
			if (over || now >= end)
				break;
			while (tick + step <= System.nanoTime())
				tick += step;
		}
		w.stop();
		w.join(10000);
		long now = System.nanoTime(), read = ProcStat.readBytes();

		report.readBytes(delta(read, read0));
		report.cpuMs(delta(ProcStat.cpuMs(), cpu0));
		int rc = finish(w, report, new Report.Figures((now - t0) / 1000000, now / 1000000, w.done(),
			(now - t0) / 1e9, LatencyHistogram.minus(w.histogram().snapshot(), hist0),
			faults(ProcStat.majorFaults(), flt0)), o.hashQueries);

		finished.countDown();
		try {
			Runtime.getRuntime().removeShutdownHook(hook);
		} catch (IllegalStateException e) {
			// Shutting down (a signal): the hook is waiting for `finished`.
		}
		return rc;
	}

	/** Sleeps until @wakeNs; true when the run is over (all done, stopped or failed). */
	private static boolean waitFor(Workers w, long wakeNs) throws InterruptedException {
		for (;;) {
			if (!w.running() || w.failure() != null)
				return true;
			long left = wakeNs - System.nanoTime();

			if (left <= 0)
				return false;
			Thread.sleep(Math.min(left / 1000000 + 1, 50));
		}
	}

	private static long faults(long now, long before) {
		return now >= 0 && before >= 0 ? now - before : 0;
	}

	/** @now - @before, or -1 when either is unknown (-1). */
	private static long delta(long now, long before) {
		return now >= 0 && before >= 0 ? now - before : -1;
	}

	private static int finish(Workers w, Report report, Report.Figures all, long hashQueries) {
		Throwable err = w.failure();

		if (w.running()) {
			System.err.println("advshim-lucene: query threads did not stop within 10 s; no result hash");
			report.summary(all, "unavailable", 0);
			return 1;
		}
		report.summary(all, w.resultHash(hashQueries), w.hashed(hashQueries));
		if (err != null) {
			System.err.println("advshim-lucene: query failed: " + err);
			return 1;
		}
		return 0;
	}

	/*
	 * SIGINT/SIGTERM: stop the workers, let the main thread print the
	 * summary, then exit 0 like advshim-load (halt: the JVM would
	 * otherwise exit 130/143 after the hooks).
	 */
	private static void onSignal(Workers w, CountDownLatch finished) {
		w.stop();
		try {
			if (finished.await(15, java.util.concurrent.TimeUnit.SECONDS))
				Runtime.getRuntime().halt(0);
		} catch (InterruptedException e) {
			Thread.currentThread().interrupt();
		}
	}
}
