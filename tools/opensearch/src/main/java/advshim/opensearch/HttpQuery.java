// SPDX-License-Identifier: MIT
package advshim.opensearch;

import java.io.IOException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import advshim.bench.KnnQuery;

/**
 * A k-NN query over HTTP: POST /INDEX/_search, a knn query on "vec", size
 * k, no _source.  send() (the timed part) is the round trip; the body is
 * built before it and the hits' ids are parsed after it.  Stateless: every
 * query thread shares the node's Http client.
 */
final class HttpQuery implements KnnQuery<String, String> {
	private static final Pattern ID = Pattern.compile("\"_id\"\\s*:\\s*\"(\\d+)\"");

	private final Http http;
	private final String path;
	private final int k;

	/** Queries for the @k nearest in @index through @http. */
	HttpQuery(Http http, String index, int k) {
		this.http = http;
		this.path = "/" + index + "/_search";
		this.k = k;
	}

	@Override
	public String request(float[] vector) {
		return body(vector, k);
	}

	@Override
	public String send(String body) throws IOException {
		return http.send("POST", path, body);
	}

	@Override
	public int ids(String resp, int[] ids) {
		return parseIds(resp, ids);
	}

	/** The query of vector @v for the @k nearest. */
	static String body(float[] v, int k) {
		StringBuilder b = new StringBuilder(v.length * 12 + 128);

		b.append("{\"size\":").append(k).append(",\"_source\":false,\"query\":{\"knn\":{\"vec\":{\"vector\":");
		Loader.appendVector(b, v);
		b.append(",\"k\":").append(k).append("}}}}");
		return b.toString();
	}

	/** The hits' ids of a search response, in order, into @ids; how many. */
	static int parseIds(String resp, int[] ids) {
		Matcher m = ID.matcher(resp);
		int n = 0;

		while (n < ids.length && m.find())
			ids[n++] = Integer.parseInt(m.group(1));
		return n;
	}
}
