// SPDX-License-Identifier: MIT
// MadviseProbe for JDK 17 (jdk.incubator.foreign, JEP 412): the same
// shape as ../ffm/MadviseProbe.java with the incubator API: the symbol
// comes from CLinker.systemLookup(), which also dlsym()s a handle.
//
//   java --add-modules jdk.incubator.foreign --enable-native-access=ALL-UNNAMED MadviseProbe FILE
import java.io.IOException;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodType;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import jdk.incubator.foreign.CLinker;
import jdk.incubator.foreign.FunctionDescriptor;
import jdk.incubator.foreign.MemoryAddress;
import jdk.incubator.foreign.MemorySegment;

public class MadviseProbe {
	static final int POSIX_MADV_RANDOM = 1;

	public static void main(String[] args) throws Throwable {
		Path path = Path.of(args[0]);
		MemoryAddress fn = CLinker.systemLookup().lookup("posix_madvise").orElseThrow();
		MethodHandle madvise = CLinker.getInstance().downcallHandle(fn,
				MethodType.methodType(int.class, MemoryAddress.class, long.class, int.class),
				FunctionDescriptor.of(CLinker.C_INT, CLinker.C_POINTER, CLinker.C_LONG,
						CLinker.C_INT));
		try (FileChannel ch = FileChannel.open(path, StandardOpenOption.READ)) {
			MappedByteBuffer buf = ch.map(FileChannel.MapMode.READ_ONLY, 0, ch.size());
			MemorySegment seg = MemorySegment.ofByteBuffer(buf);
			int ret = (int) madvise.invokeExact(seg.address(), seg.byteSize(), POSIX_MADV_RANDOM);
			long addr = seg.address().toRawLongValue();
			boolean rr = hasFlag(addr, "rr");
			System.out.printf("result java call=%d rr=%d addr=%x size=%d%n",
					ret, rr ? 1 : 0, addr, seg.byteSize());
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
