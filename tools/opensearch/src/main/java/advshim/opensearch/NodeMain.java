// SPDX-License-Identifier: MIT
package advshim.opensearch;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

import org.opensearch.common.logging.LogConfigurator;
import org.opensearch.common.settings.Settings;
import org.opensearch.env.Environment;
import org.opensearch.http.HttpServerTransport;
import org.opensearch.node.InternalSettingsPreparer;

/**
 * `advshim-opensearch node HOME [-Ek=v]...`: one OpenSearch node configured from
 * HOME/config/opensearch.yml and log4j2.properties (the launcher writes
 * them), its data and logs where that file says.  After start it writes
 * HOME/http.port (the bound HTTP port) and HOME/node.pid, and runs until
 * SIGTERM/SIGINT, when it closes the node (Node.close) and removes both.
 */
final class NodeMain {
	private NodeMain() {
	}

	/**
	 * Runs the node of @home with the -Ekey=value settings in @args (they
	 * override opensearch.yml, as bin/opensearch -E does); returns when it
	 * has been closed.  IllegalArgumentException on another argument.
	 */
	static int run(Path home, Path knnDescriptor, List<String> args) throws Exception {
		Path config = home.resolve("config");
		Settings.Builder b = Settings.builder().put("path.home", home.toString());

		for (String a : args) {
			int eq = a.indexOf('=');

			if (!a.startsWith("-E") || eq < 3)
				throw new IllegalArgumentException("node: not a -Ekey=value setting: " + a);
			b.put(a.substring(2, eq), a.substring(eq + 1));
		}
		Settings input = b.build();
		Environment env = InternalSettingsPreparer.prepareEnvironment(input, Map.of(), config,
									     () -> "advshim-knn");
		long t0 = System.nanoTime();

		LogConfigurator.registerErrorListener();
		LogConfigurator.setNodeName(env.settings().get("node.name", "advshim-knn"));
		LogConfigurator.configure(env);
		KnnNode node = new KnnNode(env, KnnNode.plugins(knnDescriptor));
		CountDownLatch closed = new CountDownLatch(1);

		Runtime.getRuntime().addShutdownHook(new Thread(() -> stop(node, home, closed), "advshim-node-stop"));
		node.start();
		int port = node.injector().getInstance(HttpServerTransport.class).boundAddress()
			.publishAddress().getPort();

		writeAtomically(home.resolve("node.pid"), ProcessHandle.current().pid() + "\n");
		writeAtomically(home.resolve("http.port"), port + "\n");
		System.err.printf("advshim-opensearch: node up: http://127.0.0.1:%d pid %d start_ms %d%n", port,
				  ProcessHandle.current().pid(), (System.nanoTime() - t0) / 1000000);
		closed.await();
		return 0;
	}

	private static void stop(KnnNode node, Path home, CountDownLatch closed) {
		try {
			Files.deleteIfExists(home.resolve("http.port"));
			Files.deleteIfExists(home.resolve("node.pid"));
			node.close();
			node.awaitClose(20, java.util.concurrent.TimeUnit.SECONDS);
		} catch (IOException | InterruptedException e) {
			System.err.println("advshim-opensearch: closing the node: " + e);
		} finally {
			closed.countDown();
		}
	}

	/** Writes @text to @file through a temporary file and a rename. */
	static void writeAtomically(Path file, String text) throws IOException {
		Path tmp = file.resolveSibling(file.getFileName() + ".tmp");

		Files.writeString(tmp, text, StandardCharsets.US_ASCII);
		Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
	}
}
