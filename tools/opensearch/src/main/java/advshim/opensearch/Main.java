// SPDX-License-Identifier: MIT
package advshim.opensearch;

import java.nio.file.Path;
import java.util.Arrays;

/**
 * advshim-opensearch's entry point: `node HOME` runs the node (NodeMain),
 * `load` and `search` are the k-NN client (Client).  The launcher script
 * picks the JVM options for each.
 */
public final class Main {
	private Main() {
	}

	public static void main(String[] argv) throws Exception {
		if (argv.length >= 2 && argv[0].equals("node")) {
			String knn = System.getProperty("advshim.knn.descriptor");

			System.exit(NodeMain.run(Path.of(argv[1]), knn == null ? null : Path.of(knn),
						 Arrays.asList(argv).subList(2, argv.length)));
		}
		System.exit(Client.main(argv));
	}
}
