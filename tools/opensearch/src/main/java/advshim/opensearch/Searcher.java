// SPDX-License-Identifier: MIT
package advshim.opensearch;

import java.io.IOException;
import java.io.PrintStream;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * `search`: waits until the index is green (its shard open: after a node
 * restart HTTP answers first), reads its dimension and size, runs the
 * Workers and reports every interval until --queries are done, --duration
 * has passed or SIGINT/SIGTERM (the summary is printed first, exit 0).
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
		Report report = new Report(out);

		report.start(o, node.pid(), docs, (int) segs.lines().filter(l -> !l.isBlank()).count(), version);
		return measure(o, new Workers(http, o, dims), node, report);
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

	private static int measure(Client o, Workers w, ProcStat node, Report report) throws InterruptedException {
		CountDownLatch finished = new CountDownLatch(1);
		Thread hook = new Thread(() -> onSignal(w, finished), "knn-client-exit");
		long t0 = System.nanoTime();
		long end = o.durationS > 0 ? t0 + (long) (o.durationS * 1e9) : Long.MAX_VALUE;
		long step = o.intervalMs * 1000000L;
		long[] hist0 = w.histogram().snapshot(), prevHist = hist0;
		long flt0 = node.majorFaults(), prevFlt = flt0, prevDone = 0, prevT = t0;
		long read0 = node.readBytes(), cpu0 = node.cpuMs();

		Runtime.getRuntime().addShutdownHook(hook);
		w.start();
		for (long tick = t0 + step; ; tick += step) {
			boolean over = waitFor(w, Math.min(tick, end));
			long now = System.nanoTime(), flt = node.majorFaults(), done = w.done();
			long[] hist = w.histogram().snapshot();

			if (done > prevDone || !over)
				report.interval(new Report.Figures((now - t0) / 1000000, now / 1000000, done - prevDone,
					(now - prevT) / 1e9, LatencyHistogram.minus(hist, prevHist), delta(flt, prevFlt)));
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
		int rc = finish(o, w, node, report, t0, hist0, flt0, read0, cpu0);

		finished.countDown();
		try {
			Runtime.getRuntime().removeShutdownHook(hook);
		} catch (IllegalStateException e) {
			// Shutting down (a signal): the hook waits for `finished`.
		}
		return rc;
	}

	private static int finish(Client o, Workers w, ProcStat node, Report report, long t0, long[] hist0,
				  long flt0, long read0, long cpu0) {
		long now = System.nanoTime();
		Report.Figures all = new Report.Figures((now - t0) / 1000000, now / 1000000, w.done(), (now - t0) / 1e9,
			LatencyHistogram.minus(w.histogram().snapshot(), hist0), delta(node.majorFaults(), flt0));
		long read = delta(node.readBytes(), read0), cpu = delta(node.cpuMs(), cpu0);

		if (w.running()) {
			System.err.println("advshim-opensearch: query threads did not stop within 10 s; no result hash");
			report.summary(all, read, cpu, "unavailable", 0);
			return 1;
		}
		report.summary(all, read, cpu, w.resultHash(o.hashQueries), w.hashed(o.hashQueries));
		if (w.failure() != null) {
			System.err.println("advshim-opensearch: query failed: " + w.failure());
			return 1;
		}
		return 0;
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

	/** @now - @before, or -1 when either is unknown. */
	private static long delta(long now, long before) {
		return now >= 0 && before >= 0 ? now - before : -1;
	}

	/* SIGINT/SIGTERM: stop the workers, let main print the summary, exit 0. */
	private static void onSignal(Workers w, CountDownLatch finished) {
		w.stop();
		try {
			if (finished.await(15, TimeUnit.SECONDS))
				Runtime.getRuntime().halt(0);
		} catch (InterruptedException e) {
			Thread.currentThread().interrupt();
		}
	}
}
