// SPDX-License-Identifier: MIT
// MadviseProbe (JDK 22+ FFM): advises a mapped file the way Lucene's
// PosixNativeAccess does, then reports the advice the kernel has in force
// for that mapping, read from the JVM's own /proc/self/smaps.
//
//   java --enable-native-access=ALL-UNNAMED MadviseProbe FILE
// prints: result java call=0 rr=1 addr=7f... size=N
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

public class MadviseProbe {
	static final int POSIX_MADV_RANDOM = 1;

	public static void main(String[] args) throws Throwable {
		Path path = Path.of(args[0]);
		Linker linker = Linker.nativeLinker();
		// Lucene: Linker.nativeLinker().defaultLookup().find("posix_madvise")
		MemorySegment fn = linker.defaultLookup().find("posix_madvise").orElseThrow();
		MethodHandle madvise = linker.downcallHandle(fn,
				FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS,
						ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT));
		try (Arena arena = Arena.ofShared();
		     FileChannel ch = FileChannel.open(path, StandardOpenOption.READ)) {
			MemorySegment seg = ch.map(FileChannel.MapMode.READ_ONLY, 0, ch.size(), arena);
			int ret = (int) madvise.invokeExact(seg, seg.byteSize(), POSIX_MADV_RANDOM);
			boolean rr = hasFlag(seg.address(), "rr");
			System.out.printf("result java call=%d rr=%d addr=%x size=%d%n",
					ret, rr ? 1 : 0, seg.address(), seg.byteSize());
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
