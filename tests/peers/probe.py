# probe.py DIR: is libadvshim.so loaded in this process, and does it act?
#
# Run by check-peers with each configuration's environment, by Debian's
# /usr/bin/python3.11, as the suites are.  Maps a 64 KiB file in DIR,
# calls mmap.madvise(MADV_RANDOM) on the whole mapping, then reads its own
# /proc/self/smaps for up to 3 s and prints one line:
#     shim=yes|no rr=yes|no
# shim: libadvshim.so is mapped; rr: the kernel's VmFlags for the mapping
# hold "rr" (VM_RAND_READ).  Without the shim the kernel keeps rr; under
# the default policy the adaptive choice turns it to normal advice within
# a sample (the file fits); the act-on-everything policy rewrites it at
# once.  The same smaps judgement the project's own tests use.
import mmap
import os
import sys
import time


def mapping_flags(addr):
    """VmFlags of the smaps entry that starts at addr, or None."""
    want = "%x-" % addr
    found = False
    with open("/proc/self/smaps") as f:
        for line in f:
            if line.startswith(want):
                found = True
            elif found and line.startswith("VmFlags:"):
                return line.split()[1:]
    return None


def main():
    path = os.path.join(sys.argv[1], "probe-%d.dat" % os.getpid())
    with open(path, "wb") as f:
        f.write(b"\1" * 65536)
    with open(path, "rb") as f:
        m = mmap.mmap(f.fileno(), 65536, prot=mmap.PROT_READ)
    os.unlink(path)
    m.madvise(mmap.MADV_RANDOM)
    with open("/proc/self/maps") as f:
        shim = "libadvshim.so" in f.read()
    start = None
    with open("/proc/self/maps") as f:
        for line in f:
            if "probe-%d.dat" % os.getpid() in line:
                start = int(line.split("-")[0], 16)
    rr = None
    deadline = time.monotonic() + 3.0
    while start is not None:
        flags = mapping_flags(start) or []
        rr = "rr" in flags
        if not rr or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    m.close()
    if rr is None:
        print("probe: FAILED: the mapping is not in /proc/self/maps")
        return 1
    print("shim=%s rr=%s" % ("yes" if shim else "no", "yes" if rr else "no"))
    return 0


sys.exit(main())
