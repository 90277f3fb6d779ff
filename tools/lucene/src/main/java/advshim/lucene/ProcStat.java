// SPDX-License-Identifier: MIT
package advshim.lucene;

import advshim.bench.ProcText;

/**
 * This process's major page faults, the bytes it caused to be read from
 * storage (/proc/self, read by advshim.bench.ProcText) and its CPU time.
 */
final class ProcStat {
	private ProcStat() {
	}

	/** Major faults so far, or -1 when /proc cannot be read. */
	static long majorFaults() {
		return ProcText.counter("self", "stat", ProcText::majflt);
	}

	/** Bytes read from storage so far, or -1 when /proc cannot be read. */
	static long readBytes() {
		return ProcText.counter("self", "io", ProcText::readBytes);
	}

	/** CPU time (user + system, all threads) used so far in ms, or -1. */
	static long cpuMs() {
		return ProcessHandle.current().info().totalCpuDuration().map(d -> d.toMillis()).orElse(-1L);
	}
}
