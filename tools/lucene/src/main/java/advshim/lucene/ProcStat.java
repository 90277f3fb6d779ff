// SPDX-License-Identifier: MIT
package advshim.lucene;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** The process's major page faults, from /proc/self/stat (field 12). */
final class ProcStat {
	private static final Path STAT = Path.of("/proc/self/stat");

	private ProcStat() {
	}

	/** Major faults so far, or -1 when /proc cannot be read. */
	static long majorFaults() {
		try {
			return parseMajflt(new String(Files.readAllBytes(STAT), StandardCharsets.US_ASCII));
		} catch (IOException | RuntimeException e) {
			return -1;
		}
	}

	/**
	 * The majflt field of a /proc/PID/stat line: fields are counted after
	 * the last ')' because the command name may hold spaces and brackets.
	 * Throws IllegalArgumentException on a malformed line.
	 */
	static long parseMajflt(String line) {
		int close = line.lastIndexOf(')');

		if (close < 0)
			throw new IllegalArgumentException("no ')' in stat line");
		String[] f = line.substring(close + 1).trim().split(" +");

		// f[0] is field 3 (state), so field 12 (majflt) is f[9].
		if (f.length < 10)
			throw new IllegalArgumentException("short stat line");
		return Long.parseLong(f[9]);
	}
}
