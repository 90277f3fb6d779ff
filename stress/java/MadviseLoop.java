// SPDX-License-Identifier: MIT
// MadviseLoop (JDK 22+ FFM): the Lucene pattern in a sustained loop.
//
//   java --enable-native-access=ALL-UNNAMED MadviseLoop SECONDS THREADS FILE...
//
// THREADS threads, for SECONDS: map a file with FileChannel.map into a
// shared Arena's MemorySegment (as Lucene's MemorySegmentIndexInput does),
// call posix_madvise found through Linker.nativeLinker().defaultLookup()
// (Lucene's PosixNativeAccess) with RANDOM, sometimes SEQUENTIAL, NORMAL or
// an invalid value, read the segment, unmap it (close the arena).  Prints
// only what must not depend on the shim or on timing: each file's checksum
// and, per advice, the set of return values seen; then, prefixed "info",
// the counts and whether `rr` was in force after RANDOM.
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.atomic.AtomicLong;

public class MadviseLoop {
	static final int[] ADVICE = { 1, 1, 1, 1, 2, 0, 3, 99 };	// RANDOM mostly
	static final String[] NAME = { "normal", "random", "sequential", "willneed" };
	static MethodHandle madvise;
	static final Map<String, Set<Integer>> rets = new ConcurrentHashMap<>();
	static final Map<String, Long> sums = new ConcurrentHashMap<>();
	static final Set<String> rrAfterRandom = new ConcurrentSkipListSet<>();
	static final AtomicLong loops = new AtomicLong();
	static final AtomicLong errors = new AtomicLong();

	public static void main(String[] args) throws Throwable {
		long seconds = Long.parseLong(args[0]);
		int nthreads = Integer.parseInt(args[1]);
		Path[] files = new Path[args.length - 2];
		for (int i = 2; i < args.length; i++)
			files[i - 2] = Path.of(args[i]);
		Linker linker = Linker.nativeLinker();
		MemorySegment fn = linker.defaultLookup().find("posix_madvise").orElseThrow();
		madvise = linker.downcallHandle(fn, FunctionDescriptor.of(ValueLayout.JAVA_INT,
				ValueLayout.ADDRESS, ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT));
		long end = System.nanoTime() + seconds * 1_000_000_000L;
		Thread[] threads = new Thread[nthreads];
		for (int t = 0; t < nthreads; t++) {
			final int id = t;
			threads[t] = new Thread(() -> {
				long n = id;
				try {
					while (System.nanoTime() < end) {
						one(files[(int) (n % files.length)], ADVICE[(int) ((n / 3) % ADVICE.length)], n % 64 == 0);
						n++;
						loops.incrementAndGet();
					}
				} catch (Throwable e) {
					errors.incrementAndGet();
					System.err.println("thread " + id + ": " + e);
				}
			});
			threads[t].start();
		}
		for (Thread t : threads)
			t.join();
		for (Map.Entry<String, Long> e : new TreeMap<>(sums).entrySet())
			System.out.println("sum " + e.getKey() + " " + e.getValue());
		for (Map.Entry<String, Set<Integer>> e : new TreeMap<>(rets).entrySet())
			System.out.println("posix_madvise " + e.getKey() + " returned " + new TreeSet<>(e.getValue()));
		System.out.println("errors " + errors.get());
		System.out.println("info loops " + loops.get());
		System.out.println("info rr after random " + rrAfterRandom);
	}

	static void one(Path path, int advice, boolean checkFlags) throws Throwable {
		try (Arena arena = Arena.ofShared();
		     FileChannel ch = FileChannel.open(path, StandardOpenOption.READ)) {
			MemorySegment seg = ch.map(FileChannel.MapMode.READ_ONLY, 0, ch.size(), arena);
			int ret = (int) madvise.invokeExact(seg, seg.byteSize(), advice);
			String name = advice < NAME.length ? NAME[advice] : "invalid-" + advice;
			rets.computeIfAbsent(name, k -> new ConcurrentSkipListSet<>()).add(ret);
			long sum = 0;
			for (long off = 0; off < seg.byteSize(); off += 4096)
				sum += seg.get(ValueLayout.JAVA_BYTE, off);
			sums.put(path.getFileName().toString(), sum);
			if (checkFlags && advice == 1)
				rrAfterRandom.add(hasFlag(seg.address(), "rr") ? "rr" : "none");
		}
	}

	/** True if the VMA containing addr has VmFlags flag fl. */
	static boolean hasFlag(long addr, String fl) throws IOException {
		boolean in = false;
		for (String line : Files.readAllLines(Path.of("/proc/self/smaps"))) {
			int dash = line.indexOf('-');
			int sp = line.indexOf(' ');
			if (dash > 0 && sp > dash && !line.startsWith("VmFlags")
					&& line.substring(0, dash).matches("[0-9a-f]+")) {
				long s = Long.parseUnsignedLong(line.substring(0, dash), 16);
				long e = Long.parseUnsignedLong(line.substring(dash + 1, sp), 16);
				in = Long.compareUnsigned(addr, s) >= 0 && Long.compareUnsigned(addr, e) < 0;
			} else if (in && line.startsWith("VmFlags:")) {
				return (" " + line.substring(8) + " ").contains(" " + fl + " ");
			}
		}
		return false;
	}
}
