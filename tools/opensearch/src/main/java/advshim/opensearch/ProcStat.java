// SPDX-License-Identifier: MIT
package advshim.opensearch;

import advshim.bench.Counters;
import advshim.bench.ProcText;

/**
 * The node's major page faults, bytes read from storage and CPU time
 * (/proc/PID, read by advshim.bench.ProcText): the process that serves
 * the queries, not this client.
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
		return ProcText.counter(Long.toString(pid), "stat", ProcText::majflt);
	}

	/** Bytes read from storage so far, or -1 (no /proc/PID/io access). */
	@Override
	public long readBytes() {
		return ProcText.counter(Long.toString(pid), "io", ProcText::readBytes);
	}

	/** CPU time (utime + stime, all threads) in ms, or -1. */
	@Override
	public long cpuMs() {
		return ProcText.counter(Long.toString(pid), "stat", ProcText::cpuMs);
	}
}
