// SPDX-License-Identifier: MIT
package advshim.lucene;

import java.nio.file.Path;
import java.util.Set;

import advshim.bench.Args;

/**
 * The command line of both modes.  Options take their value as the next
 * word or after '=' (--threads 4, --threads=4; the words split by
 * advshim.bench.Args); every bad value is a UsageException naming the
 * option.
 */
final class Options {
	/** What --read-advice asks Lucene for. */
	enum Advice {
		/** Lucene's own choice (its default, or a -D the JVM got). */
		DEFAULT,
		RANDOM,
		NORMAL,
		SEQUENTIAL,
		/** MMapDirectory.ADVISE_BY_CONTEXT, as OpenSearch 3.x sets it. */
		CONTEXT
	}

	String mode;
	Path dir;
	long vectors = -1;
	int dims = -1;
	long seed = 1;
	boolean compound;
	int segments = 1;
	int threads = -1;
	double durationS = -1;
	long queries = -1;
	int k = 10;
	Advice advice = Advice.DEFAULT;
	int intervalMs = 1000;
	boolean json;
	boolean hold;
	long hashQueries = -1;
	long queryCycle = -1;
	Path churn;
	int churnThreads = 1;
	int churnBatch = 500;
	long churnMax = 40000;
	int mergeEvery = 4;

	static final String USAGE =
		"usage: advshim-lucene index DIR --vectors N --dims D [--seed S] [--compound] [--segments N]\n"
		+ "              [--read-advice default|random|normal|sequential|context]\n"
		+ "       advshim-lucene search DIR --threads T (--duration S | --queries Q) [--k 10]\n"
		+ "              [--seed S] [--read-advice default|random|normal|sequential|context]\n"
		+ "              [--interval-ms MS] [--json] [--hold] [--hash-queries N]\n"
		+ "              [--query-cycle N] [--churn DIR2 [--churn-threads T] [--churn-batch B]\n"
		+ "               [--churn-max N] [--merge-every C]]\n"
		+ "       advshim-lucene version";

	/** Parses @argv (mode first); throws UsageException on any error. */
	static Options parse(String[] argv) throws UsageException {
		Options o = new Options();

		if (argv.length == 0)
			throw new UsageException("no mode given");
		o.mode = argv[0];
		if (o.mode.equals("version"))
			return o;
		if (!o.mode.equals("index") && !o.mode.equals("search"))
			throw new UsageException("unknown mode '" + o.mode + "' (index, search or version)");
		for (Args w = new Args(argv, 1); w.next();) {
			String a = w.name(), v;

			if (!w.isOption()) {
				if (o.dir != null)
					throw new UsageException("unexpected argument '" + w.word() + "'");
				o.dir = Path.of(w.word());
			} else if (isFlag(a)) {
				if (w.inlineValue() != null)
					throw new UsageException(a + " takes no value");
				o.flag(a);
			} else if ((v = w.value()) == null) {
				throw new UsageException(a + " needs a value");
			} else {
				o.option(a, v);
			}
		}
		o.check();
		return o;
	}

	private static boolean isFlag(String a) {
		return a.equals("--json") || a.equals("--compound") || a.equals("--hold");
	}

	private void flag(String a) throws UsageException {
		if (a.equals("--json") && mode.equals("search"))
			json = true;
		else if (a.equals("--hold") && mode.equals("search"))
			hold = true;
		else if (a.equals("--compound") && mode.equals("index"))
			compound = true;
		else
			throw new UsageException(a + " is not an option of " + mode);
	}

	private static final Set<String> INDEX_ONLY = Set.of("--vectors", "--dims", "--segments");
	private static final Set<String> SEARCH_ONLY = Set.of("--threads", "--queries", "--k",
		"--interval-ms", "--duration", "--hash-queries", "--query-cycle", "--churn",
		"--churn-threads", "--churn-batch", "--churn-max", "--merge-every");

	private void option(String a, String v) throws UsageException {
		boolean index = mode.equals("index");

		if ((index && SEARCH_ONLY.contains(a)) || (!index && INDEX_ONLY.contains(a)))
			throw new UsageException(a + " is not an option of " + mode);
		switch (a) {
		case "--seed" -> seed = number(a, v, Long.MIN_VALUE, Long.MAX_VALUE);
		case "--vectors" -> vectors = number(a, v, 1, Integer.MAX_VALUE - 128);
		case "--dims" -> dims = (int) number(a, v, 1, 1024);
		case "--segments" -> segments = (int) number(a, v, 1, 1000);
		case "--threads" -> threads = (int) number(a, v, 1, 1024);
		case "--queries" -> queries = number(a, v, 1, Integer.MAX_VALUE - 8);
		case "--k" -> k = (int) number(a, v, 1, 10000);
		case "--interval-ms" -> intervalMs = (int) number(a, v, 10, 3600000);
		case "--duration" -> durationS = seconds(a, v);
		case "--read-advice" -> advice = advice(v);
		case "--hash-queries" -> hashQueries = number(a, v, 1, Integer.MAX_VALUE - 8);
		case "--query-cycle" -> queryCycle = number(a, v, 1, 1 << 26);
		case "--churn" -> churn = Path.of(v);
		case "--churn-threads" -> churnThreads = (int) number(a, v, 0, 64);
		case "--churn-batch" -> churnBatch = (int) number(a, v, 1, 1000000);
		case "--churn-max" -> churnMax = number(a, v, 1, Integer.MAX_VALUE - 8);
		case "--merge-every" -> mergeEvery = (int) number(a, v, 1, 1000000);
		default -> throw new UsageException("unknown option " + a);
		}
	}

	private void check() throws UsageException {
		if (dir == null)
			throw new UsageException(mode + ": no index directory given");
		if (mode.equals("index")) {
			if (vectors < 0 || dims < 0)
				throw new UsageException("index: --vectors and --dims are required");
			if (segments > vectors)
				throw new UsageException("index: --segments " + segments + " is more than --vectors " + vectors);
			return;
		}
		if (threads < 0)
			throw new UsageException("search: --threads is required");
		if ((durationS < 0) == (queries < 0))
			throw new UsageException("search: give exactly one of --duration and --queries");
		if (churn != null && churn.toAbsolutePath().normalize().equals(dir.toAbsolutePath().normalize()))
			throw new UsageException("search: --churn must name another directory than the index searched");
	}

	private static long number(String a, String v, long min, long max) throws UsageException {
		long n;

		try {
			n = Long.parseLong(v);
		} catch (NumberFormatException e) {
			throw new UsageException(a + ": '" + v + "' is not a whole number");
		}
		if (n < min || n > max)
			throw new UsageException(a + ": " + n + " is out of range (" + min + ".." + max + ")");
		return n;
	}

	private static double seconds(String a, String v) throws UsageException {
		double d;

		try {
			d = Double.parseDouble(v);
		} catch (NumberFormatException e) {
			throw new UsageException(a + ": '" + v + "' is not a number of seconds");
		}
		if (!(d > 0 && d <= 31 * 86400))
			throw new UsageException(a + ": " + v + " is out of range (0..2678400 s, not 0)");
		return d;
	}

	private static Advice advice(String v) throws UsageException {
		for (Advice a : Advice.values())
			if (a.name().equalsIgnoreCase(v))
				return a;
		throw new UsageException("--read-advice: '" + v
			+ "' is not one of default, random, normal, sequential, context");
	}
}
