// SPDX-License-Identifier: MIT
package advshim.lucene;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The process's major page faults (/proc/self/stat, field 12) and the bytes
 * it caused to be read from storage (/proc/self/io read_bytes, which counts
 * mmap read-around too, where a fault that waits for another thread's
 * readahead is only a minor fault).
 */
final class ProcStat {
	private static final Path STAT = Path.of("/proc/self/stat");
	private static final Path IO = Path.of("/proc/self/io");

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

	/** Bytes read from storage so far, or -1 when /proc cannot be read. */
	static long readBytes() {
		try {
			return parseReadBytes(new String(Files.readAllBytes(IO), StandardCharsets.US_ASCII));
		} catch (IOException | RuntimeException e) {
			return -1;
		}
	}

	/** The read_bytes line of a /proc/PID/io buffer; IllegalArgumentException if absent. */
	static long parseReadBytes(String io) {
		for (String line : io.split("\n")) {
			if (line.startsWith("read_bytes:"))
				return Long.parseLong(line.substring(11).trim());
		}
		throw new IllegalArgumentException("no read_bytes line");
	}

	/** CPU time (user + system, all threads) used so far in ms, or -1. */
	static long cpuMs() {
		return ProcessHandle.current().info().totalCpuDuration().map(d -> d.toMillis()).orElse(-1L);
	}
}
