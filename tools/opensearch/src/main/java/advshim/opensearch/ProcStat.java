// SPDX-License-Identifier: MIT
package advshim.opensearch;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import advshim.bench.Counters;

/**
 * The node's major page faults (/proc/PID/stat, field 12), bytes read
 * from storage (/proc/PID/io read_bytes) and CPU time: the process that
 * serves the queries, not this client.
 */
final class ProcStat implements Counters {
	private final long pid;

	ProcStat(long pid) {
		this.pid = pid;
	}

	long pid() {
		return pid;
	}

	/** Major faults so far, or -1 when /proc cannot be read. */
	@Override
	public long majorFaults() {
		try {
			return parseMajflt(read("stat"));
		} catch (IOException | RuntimeException e) {
			return -1;
		}
	}

	/** Bytes read from storage so far, or -1 (no /proc/PID/io access). */
	@Override
	public long readBytes() {
		try {
			return parseReadBytes(read("io"));
		} catch (IOException | RuntimeException e) {
			return -1;
		}
	}

	/** CPU time (utime + stime, all threads) in ms, or -1. */
	@Override
	public long cpuMs() {
		try {
			String[] f = fields(read("stat"));
			// f[0] is field 3; utime and stime are fields 14 and 15 (clock ticks, 100/s).
			return (Long.parseLong(f[11]) + Long.parseLong(f[12])) * 10;
		} catch (IOException | RuntimeException e) {
			return -1;
		}
	}

	private String read(String name) throws IOException {
		return new String(Files.readAllBytes(Path.of("/proc", Long.toString(pid), name)), StandardCharsets.US_ASCII);
	}

	/** A stat line's fields from field 3 (state) on; fields follow the last ')'. */
	private static String[] fields(String line) {
		int close = line.lastIndexOf(')');

		if (close < 0)
			throw new IllegalArgumentException("no ')' in stat line");
		String[] f = line.substring(close + 1).trim().split(" +");

		if (f.length < 13)
			throw new IllegalArgumentException("short stat line");
		return f;
	}

	/** The majflt field of a /proc/PID/stat line. */
	static long parseMajflt(String line) {
		return Long.parseLong(fields(line)[9]);
	}

	/** The read_bytes line of a /proc/PID/io buffer; IllegalArgumentException if absent. */
	static long parseReadBytes(String io) {
		for (String line : io.split("\n")) {
			if (line.startsWith("read_bytes:"))
				return Long.parseLong(line.substring(11).trim());
		}
		throw new IllegalArgumentException("no read_bytes line");
	}
}
