// SPDX-License-Identifier: MIT
package advshim.opensearch;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * The node's REST API over plain HTTP/1.1 on 127.0.0.1 (java.net.http):
 * one shared client, JSON bodies in and out as strings.
 */
final class Http {
	private final HttpClient client;
	private final String base;

	Http(int port) {
		this.client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
			.connectTimeout(Duration.ofSeconds(10)).build();
		this.base = "http://127.0.0.1:" + port;
	}

	/**
	 * @method @path with @body (JSON, or NDJSON for _bulk; null for none);
	 * the response body.  IOException with the status and body on any
	 * status but 2xx.
	 */
	String send(String method, String path, String body) throws IOException {
		HttpRequest.BodyPublisher pub = body == null ? HttpRequest.BodyPublishers.noBody()
			: HttpRequest.BodyPublishers.ofString(body);
		String type = path.contains("_bulk") ? "application/x-ndjson" : "application/json";
		HttpRequest req = HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofMinutes(10))
			.header("Content-Type", type).method(method, pub).build();
		HttpResponse<String> resp;

		try {
			resp = client.send(req, HttpResponse.BodyHandlers.ofString());
		} catch (InterruptedException e) {
			Thread.currentThread().interrupt();
			throw new IOException(method + " " + path + ": interrupted", e);
		}
		if (resp.statusCode() / 100 != 2)
			throw new IOException(method + " " + path + ": HTTP " + resp.statusCode() + ": "
					      + clip(resp.body()));
		return resp.body();
	}

	private static String clip(String s) {
		return s.length() > 600 ? s.substring(0, 600) + "..." : s;
	}
}
