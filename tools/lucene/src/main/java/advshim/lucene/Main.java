// SPDX-License-Identifier: MIT
package advshim.lucene;

import java.util.Locale;
import java.io.IOException;
import java.io.PrintStream;

/**
 * advshim-lucene: a real Lucene HNSW index and KNN search load, for
 * advshim's tests, benchmarks, advshim-ab and the lab (tools/lucene/README.md).
 * Exit status: 0 success, 1 an I/O or Lucene error, 2 a bad command line.
 */
public final class Main {
	static final String READ_ADVICE_PROPERTY = "org.apache.lucene.store.defaultReadAdvice";

	private Main() {
	}

	public static void main(String[] argv) {
		System.exit(run(argv, System.out));
	}

	static int run(String[] argv, PrintStream out) {
		Options o;

		if (argv.length > 0 && (argv[0].equals("-h") || argv[0].equals("--help"))) {
			out.println(Options.USAGE);
			return 0;
		}
		try {
			o = Options.parse(argv);
		} catch (UsageException e) {
			System.err.println("advshim-lucene: " + e.getMessage());
			System.err.println(Options.USAGE);
			return 2;
		}
		// Before any Lucene class initialises: Constants reads it once.
		setReadAdvice(o.advice);
		try {
			return switch (o.mode) {
			case "index" -> IndexMode.run(o, out);
			case "search" -> SearchMode.run(o, out);
			default -> version(out);
			};
		} catch (org.apache.lucene.index.IndexNotFoundException e) {
			System.err.println("advshim-lucene: " + o.dir + ": no Lucene index there"
					   + " (build one with advshim-lucene index)");
			return 1;
		} catch (IOException | RuntimeException e) {
			System.err.println("advshim-lucene: " + o.dir + ": " + e);
			return 1;
		} catch (InterruptedException e) {
			return 1;
		}
	}

	/*
	 * random/normal/sequential set Lucene's default read advice (every
	 * file); default and context leave the property as the JVM got it.
	 */
	private static void setReadAdvice(Options.Advice a) {
		switch (a) {
		case RANDOM, NORMAL, SEQUENTIAL -> System.setProperty(READ_ADVICE_PROPERTY, a.name());
		default -> {
		}
		}
	}

	private static int version(PrintStream out) {
		out.printf(Locale.ROOT, "advshim-lucene: lucene %s, java %s, madvise %s%n", luceneVersion(),
			   Runtime.version(), org.apache.lucene.store.MMapDirectory.supportsMadvise()
			   ? "available" : "unavailable (no native access)");
		return 0;
	}

	/** The lucene-core version on the class path. */
	static String luceneVersion() {
		return org.apache.lucene.util.Version.LATEST.toString();
	}
}
