// SPDX-License-Identifier: MIT
package advshim.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.ToLongFunction;

/**
 * The numbers both programs' counters read from /proc/PID/stat (major
 * faults, CPU time) and /proc/PID/io (bytes read from storage, which
 * counts mmap read-around too, where a fault that waits for another
 * thread's readahead is only a minor fault).  Text in, numbers out; each
 * parser throws IllegalArgumentException (or NumberFormatException) on
 * text that is not what the kernel writes.
 */
public final class ProcText {
	private ProcText() {
	}

	/** /proc/WHO/NAME ("self" or a PID) as text. */
	public static String read(String who, String name) throws IOException {
		return new String(Files.readAllBytes(Path.of("/proc", who, name)), StandardCharsets.US_ASCII);
	}

	/**
	 * @parse of /proc/WHO/NAME, or -1 when the file cannot be read or is
	 * not what the kernel writes (a counter the rows print as unknown).
	 */
	public static long counter(String who, String name, ToLongFunction<String> parse) {
		try {
			return parse.applyAsLong(read(who, name));
		} catch (IOException | RuntimeException e) {
			return -1;
		}
	}

	/**
	 * A stat line's fields from field 3 (state) on: they are counted after
	 * the last ')' because the command name may hold spaces and brackets.
	 */
	public static String[] statFields(String line) {
		int close = line.lastIndexOf(')');

		if (close < 0)
			throw new IllegalArgumentException("no ')' in stat line");
		String[] f = line.substring(close + 1).trim().split(" +");

		if (f.length < 13)
			throw new IllegalArgumentException("short stat line");
		return f;
	}

	/** The majflt field (12) of a stat line. */
	public static long majflt(String line) {
		return Long.parseLong(statFields(line)[9]);
	}

	/** utime + stime (fields 14 and 15, clock ticks of 10 ms) of a stat line, in ms. */
	public static long cpuMs(String line) {
		String[] f = statFields(line);

		return (Long.parseLong(f[11]) + Long.parseLong(f[12])) * 10;
	}

	/** The read_bytes line of an io buffer. */
	public static long readBytes(String io) {
		for (String line : io.split("\n")) {
			if (line.startsWith("read_bytes:"))
				return Long.parseLong(line.substring(11).trim());
		}
		throw new IllegalArgumentException("no read_bytes line");
	}
}
