// SPDX-License-Identifier: MIT
package advshim.bench;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Runs a query load and reports it: starts the QueryThreads, prints a row
 * every Load.intervalMs until Load.queries are done, Load.durationS has
 * passed, a query failed or SIGINT/SIGTERM came, then the summary and the
 * result hash.  On a signal the summary is printed first and the JVM exits
 * 0, like advshim-load.
 */
public final class Run {
	private Run() {
	}

	/**
	 * Runs @w as @load says, its rows on @report, the fault, read and CPU
	 * figures from @c; 0, or 1 when a query failed or the threads did not
	 * stop (the reason on stderr).
	 */
	public static int measure(Load load, QueryThreads<?, ?> w, Counters c, Report report)
		throws InterruptedException {
		CountDownLatch finished = new CountDownLatch(1);
		Thread hook = new Thread(() -> onSignal(w, finished), load.program() + "-exit");
		long t0 = System.nanoTime();
		long end = load.durationS() > 0 ? t0 + (long) (load.durationS() * 1e9) : Long.MAX_VALUE;
		long step = load.intervalMs() * 1000000L;
		long[] hist0 = w.histogram().snapshot(), prevHist = hist0;
		long flt0 = c.majorFaults(), prevFlt = flt0, prevDone = 0, prevT = t0;
		long read0 = c.readBytes(), cpu0 = c.cpuMs();

		Runtime.getRuntime().addShutdownHook(hook);
		w.start();
		for (long tick = t0 + step; ; tick += step) {
			boolean over = waitFor(w, Math.min(tick, end));
			long now = System.nanoTime(), flt = c.majorFaults(), done = w.done();
			long[] hist = w.histogram().snapshot();

			if (done > prevDone || !over)
				report.interval(new Report.Figures((now - t0) / 1000000, now / 1000000, done - prevDone,
					(now - prevT) / 1e9, LatencyHistogram.minus(hist, prevHist), c.faults(flt, prevFlt)));
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
		long now = System.nanoTime();
		Report.Figures all = new Report.Figures((now - t0) / 1000000, now / 1000000, w.done(), (now - t0) / 1e9,
			LatencyHistogram.minus(w.histogram().snapshot(), hist0), c.faults(c.majorFaults(), flt0));
		int rc = finish(load, w, report, all, Counters.delta(c.readBytes(), read0),
				Counters.delta(c.cpuMs(), cpu0));

		finished.countDown();
		try {
			Runtime.getRuntime().removeShutdownHook(hook);
		} catch (IllegalStateException e) {
			// Shutting down (a signal): the hook is waiting for `finished`.
		}
		return rc;
	}

	/** The summary (no hash while a thread still runs); the run's exit code. */
	private static int finish(Load load, QueryThreads<?, ?> w, Report report, Report.Figures all,
				  long readBytes, long cpuMs) {
		if (w.running()) {
			System.err.println(load.program() + ": query threads did not stop within 10 s; no result hash");
			report.summary(all, readBytes, cpuMs, "unavailable", 0);
			return 1;
		}
		report.summary(all, readBytes, cpuMs, w.resultHash(), w.hashed());
		if (w.failure() != null) {
			System.err.println(load.program() + ": query failed: " + w.failure());
			return 1;
		}
		return 0;
	}

	/** Sleeps until @wakeNs; true when the run is over (all done, stopped or failed). */
	private static boolean waitFor(QueryThreads<?, ?> w, long wakeNs) throws InterruptedException {
		for (;;) {
			if (!w.running() || w.failure() != null)
				return true;
			long left = wakeNs - System.nanoTime();

			if (left <= 0)
				return false;
			Thread.sleep(Math.min(left / 1000000 + 1, 50));
		}
	}

	/*
	 * SIGINT/SIGTERM: stop the workers, let the main thread print the
	 * summary, then exit 0 like advshim-load (halt: the JVM would
	 * otherwise exit 130/143 after the hooks).
	 */
	private static void onSignal(QueryThreads<?, ?> w, CountDownLatch finished) {
		w.stop();
		try {
			if (finished.await(15, TimeUnit.SECONDS))
				Runtime.getRuntime().halt(0);
		} catch (InterruptedException e) {
			Thread.currentThread().interrupt();
		}
	}
}
