// SPDX-License-Identifier: MIT
/*
 * leakfd.c - check-peers' control: a preload that holds a descriptor the
 * way libadvshim.so did before issue 18.
 *
 * From the moment it is loaded it keeps /dev/null open at the lowest free
 * descriptor number (O_CLOEXEC, as the shim's log file was).  A child
 * spawned with fd 0 closed then finds fd 0 open: CPython's test_posix
 * TestPosixSpawn.test_close_file and TestPosixSpawnP.test_close_file fail
 * on it.  check-peers runs test_posix under this library and fails unless
 * the verdicts differ from the plain run, which proves that the check sees
 * this kind of damage.  Built uninstrumented: it is preloaded without a
 * sanitizer runtime.
 */
#include <fcntl.h>

/*
 * leakfd_init() - open /dev/null at the lowest free number and keep it.
 * Context: run by the dynamic loader before main().  A failed open leaves
 * nothing held; check-peers then reports that the control did not differ.
 */
__attribute__((constructor)) static void leakfd_init(void)
{
	(void)open("/dev/null", O_RDONLY | O_CLOEXEC);
}
