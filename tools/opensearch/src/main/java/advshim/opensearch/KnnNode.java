// SPDX-License-Identifier: MIT
package advshim.opensearch;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Properties;

import org.opensearch.Version;
import org.opensearch.env.Environment;
import org.opensearch.node.Node;
import org.opensearch.plugins.PluginInfo;

/**
 * An OpenSearch node whose plugins come from the class path, as the test
 * framework's MockNode builds one: Node's protected constructor with a
 * PluginInfo per plugin.  A distribution's launcher instead finds them
 * under plugins/ and modules/ and gives each its own class loader; on
 * one class path the classes, the node's code paths and the files it maps
 * are the same.
 */
final class KnnNode extends Node {
	/** The k-NN plugin's entry point (its plugin-descriptor.properties). */
	static final String KNN_CLASS = "org.opensearch.knn.plugin.KNNPlugin";
	/** The HTTP/transport module every distribution loads. */
	static final String NETTY_CLASS = "org.opensearch.transport.Netty4ModulePlugin";

	KnnNode(Environment env, Collection<PluginInfo> plugins) {
		super(env, plugins, true);
	}

	/**
	 * The class-path plugins: transport-netty4 and, when @knnDescriptor
	 * exists (the plugin zip's plugin-descriptor.properties), the plugin
	 * it names.  Throws IOException when the descriptor cannot be read.
	 */
	static List<PluginInfo> plugins(Path knnDescriptor) throws IOException {
		List<PluginInfo> list = new ArrayList<>();

		list.add(classpath("transport-netty4", NETTY_CLASS));
		if (knnDescriptor != null && Files.isRegularFile(knnDescriptor))
			list.add(fromDescriptor(knnDescriptor));
		return list;
	}

	private static PluginInfo classpath(String name, String cls) {
		return new PluginInfo(name, "classpath plugin " + name, Version.CURRENT.toString(), Version.CURRENT,
				      Runtime.version().feature() + "", cls, null, List.of(), false);
	}

	/*
	 * The descriptor's name, version and class; extended.plugins is left
	 * out: lang-painless and transport-grpc are not loaded here, and k-NN
	 * only registers extensions with them when they are.
	 */
	private static PluginInfo fromDescriptor(Path file) throws IOException {
		Properties p = new Properties();

		try (InputStream in = Files.newInputStream(file)) {
			p.load(in);
		}
		String cls = p.getProperty("classname");

		if (cls == null)
			throw new IOException(file + ": no classname");
		return new PluginInfo(p.getProperty("name", "plugin"), p.getProperty("description", ""),
				      p.getProperty("version", "?"), Version.CURRENT,
				      p.getProperty("java.version", "21"), cls, null, List.of(), false);
	}
}
