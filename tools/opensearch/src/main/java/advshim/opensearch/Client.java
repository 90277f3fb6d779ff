// SPDX-License-Identifier: MIT
package advshim.opensearch;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import advshim.bench.Args;

/**
 * The k-NN client's command line.  Both modes talk to the node whose home
 * directory is given (its http.port and node.pid files, NodeMain):
 *
 *   load HOME --vectors N --dims D [--index NAME] [--seed S] [--engine lucene|faiss]
 *             [--store hybridfs|mmapfs|niofs|fs] [--compound] [--setting KEY=VALUE]...
 *   search HOME --threads T (--duration S | --queries Q) [--index NAME] [--k 10]
 *             [--seed S] [--interval-ms MS] [--hash-queries N]
 *
 * Options take their value as the next word or after '=' (the words split
 * by advshim.bench.Args).
 */
final class Client {
	static final String USAGE =
		"usage: advshim-opensearch load HOME --vectors N --dims D [--index NAME] [--seed S]\n"
		+ "              [--engine lucene|faiss] [--store hybridfs|mmapfs|niofs|fs] [--compound]\n"
		+ "              [--setting KEY=VALUE]...   (an index setting under index., VALUE as JSON or a string)\n"
		+ "       advshim-opensearch search HOME --threads T (--duration S | --queries Q) [--index NAME]\n"
		+ "              [--k 10] [--seed S] [--interval-ms MS] [--hash-queries N]\n"
		+ "       advshim-opensearch node HOME   (the launcher script sets it up)";

	String mode;
	Path home;
	String index = "vectors";
	long vectors = -1;
	int dims = -1;
	long seed = 1;
	String engine = "lucene";
	String store;
	boolean compound;
	/** --setting index settings, as JSON members ("store.type":"mmapfs"). */
	final java.util.List<String> settings = new java.util.ArrayList<>();
	int threads = -1;
	double durationS = -1;
	long queries = -1;
	int k = 10;
	int intervalMs = 1000;
	long hashQueries = -1;

	/** Runs @argv; the exit status (2 on a usage error). */
	static int main(String[] argv) throws IOException, InterruptedException {
		Client o;

		try {
			o = parse(argv);
		} catch (IllegalArgumentException e) {
			System.err.println("advshim-opensearch: " + e.getMessage());
			System.err.println(USAGE);
			return 2;
		}
		Http http = new Http(o.port());

		if (o.mode.equals("load"))
			return Loader.run(o, http, System.out);
		return Searcher.run(o, http, new ProcStat(o.nodePid()), System.out);
	}

	/** The node's HTTP port from HOME/http.port; IOException when it is not up. */
	int port() throws IOException {
		return Integer.parseInt(readFile("http.port"));
	}

	long nodePid() throws IOException {
		return Long.parseLong(readFile("node.pid"));
	}

	private String readFile(String name) throws IOException {
		Path p = home.resolve(name);

		if (!Files.exists(p))
			throw new IOException(p + " does not exist: no node running in " + home);
		return Files.readString(p, StandardCharsets.US_ASCII).trim();
	}

	/** Parses @argv; IllegalArgumentException naming what is wrong. */
	static Client parse(String[] argv) {
		Client o = new Client();

		if (argv.length == 0 || !(argv[0].equals("load") || argv[0].equals("search")))
			throw new IllegalArgumentException(argv.length == 0 ? "no mode given" : "unknown mode '" + argv[0] + "'");
		o.mode = argv[0];
		for (Args w = new Args(argv, 1); w.next();) {
			String v;

			if (!w.isOption()) {
				if (o.home != null)
					throw new IllegalArgumentException("unexpected argument '" + w.word() + "'");
				o.home = Path.of(w.word());
			} else if (w.word().equals("--compound")) {
				// Only the bare word: --compound=VALUE is an unknown option.
				o.compound = true;
			} else if ((v = w.value()) == null) {
				throw new IllegalArgumentException(w.name() + " needs a value");
			} else {
				o.set(w.name(), v);
			}
		}
		o.validate();
		return o;
	}

	private void set(String a, String v) {
		switch (a) {
		case "--index" -> index = v;
		case "--vectors" -> vectors = number(a, v, 1);
		case "--dims" -> dims = (int) number(a, v, 1);
		case "--seed" -> seed = Long.parseLong(v);
		case "--engine" -> engine = oneOf(a, v, "lucene", "faiss");
		case "--store" -> store = oneOf(a, v, "hybridfs", "mmapfs", "niofs", "fs");
		case "--setting" -> settings.add(setting(v));
		case "--threads" -> threads = (int) number(a, v, 1);
		case "--duration" -> durationS = Double.parseDouble(v);
		case "--queries" -> queries = number(a, v, 1);
		case "--k" -> k = (int) number(a, v, 1);
		case "--interval-ms" -> intervalMs = (int) number(a, v, 10);
		case "--hash-queries" -> hashQueries = number(a, v, 0);
		default -> throw new IllegalArgumentException("unknown option " + a);
		}
	}

	private void validate() {
		if (home == null)
			throw new IllegalArgumentException("no node HOME given");
		if (mode.equals("load") && (vectors < 0 || dims < 0))
			throw new IllegalArgumentException("load needs --vectors and --dims");
		if (mode.equals("search") && (threads < 0 || (durationS <= 0 && queries < 0)))
			throw new IllegalArgumentException("search needs --threads and --duration or --queries");
	}

	/*
	 * KEY=VALUE as a JSON member of the index settings: VALUE as it is
	 * when it is a number, true/false or starts with [ or {, else quoted.
	 */
	private static String setting(String kv) {
		int eq = kv.indexOf('=');

		if (eq < 1)
			throw new IllegalArgumentException("--setting: not KEY=VALUE: '" + kv + "'");
		String k = kv.substring(0, eq), v = kv.substring(eq + 1);
		boolean raw = v.matches("-?[0-9.]+|true|false") || v.startsWith("[") || v.startsWith("{");

		return "\"" + k + "\":" + (raw ? v : "\"" + v.replace("\"", "\\\"") + "\"");
	}

	private static long number(String opt, String v, long min) {
		long n;

		try {
			n = Long.parseLong(v);
		} catch (NumberFormatException e) {
			throw new IllegalArgumentException(opt + ": not a number: '" + v + "'");
		}
		if (n < min)
			throw new IllegalArgumentException(opt + ": must be at least " + min);
		return n;
	}

	private static String oneOf(String opt, String v, String... allowed) {
		for (String s : allowed)
			if (s.equals(v))
				return v;
		throw new IllegalArgumentException(opt + ": '" + v + "' is not one of " + String.join(", ", allowed));
	}
}
