// SPDX-License-Identifier: MIT
/*
 * errprog.c - error and errno contracts.  Prints one line per case:
 * "NAME ret=R errno=E".  The test runs it plain and under the shim and
 * requires identical output: the shim must return what libc returns, set
 * errno where libc sets it, and leave it alone everywhere else (errno is
 * primed with 777 before every call).  Also prints the wrapnext counter
 * when libwrapnext.so is loaded.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#define PG 4096

#define CASE(name, expr) do {					\
		long r_;						\
		errno = 777;						\
		r_ = (long)(expr);					\
		printf("%-34s ret=%ld errno=%d\n", name, r_, errno);	\
	} while (0)

int main(int argc, char **argv)
{
	int fd, pfd[2], *calls;
	char *m, *hole;

	if (argc != 2) {
		fprintf(stderr, "usage: errprog FILE\n");
		return 2;
	}
	fd = open(argv[1], O_RDONLY | O_CLOEXEC);
	m = mmap(NULL, 8 * PG, PROT_READ, MAP_SHARED, fd, 0);
	hole = mmap(NULL, 4 * PG, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (fd < 0 || m == MAP_FAILED || hole == MAP_FAILED || pipe(pfd))
		return 1;
	munmap(m + 2 * PG, PG);		/* a hole inside the file range */

	/*
	 * The first RANDOM call may start the shim's adaptive sampler, whose
	 * thread stack is mapped then: the hole is made after it.
	 */
	CASE("madvise ok", madvise(m, 2 * PG, MADV_RANDOM));
	munmap(hole, 4 * PG);		/* now certainly unmapped */
	CASE("madvise unaligned", madvise(m + 1, PG, MADV_RANDOM) == -1 ? -1 : 0);
	CASE("madvise unmapped", madvise(hole, PG, MADV_RANDOM));
	CASE("madvise across hole", madvise(m, 8 * PG, MADV_RANDOM));
	CASE("madvise len 0", madvise(m, 0, MADV_RANDOM));
	CASE("madvise NULL 0 23 (HotSpot)", madvise(NULL, 0, 23));
	CASE("madvise bad advice", madvise(m, PG, 12345));
	CASE("posix_madvise ok", posix_madvise(m, 2 * PG, POSIX_MADV_RANDOM));
	CASE("posix_madvise unmapped", posix_madvise(hole, PG, POSIX_MADV_RANDOM));
	CASE("posix_madvise across hole", posix_madvise(m, 8 * PG, POSIX_MADV_RANDOM));
	CASE("posix_madvise unaligned", posix_madvise(m + 1, PG, POSIX_MADV_RANDOM));
	CASE("posix_madvise dontneed", posix_madvise(m, PG, POSIX_MADV_DONTNEED));
	CASE("posix_fadvise ok", posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM));
	CASE("posix_fadvise bad fd", posix_fadvise(999, 0, 0, POSIX_FADV_RANDOM));
	CASE("posix_fadvise closed fd", posix_fadvise(-1, 0, 0, POSIX_FADV_NORMAL));
	CASE("posix_fadvise pipe", posix_fadvise(pfd[0], 0, 0, POSIX_FADV_RANDOM));
	CASE("posix_fadvise bad advice", posix_fadvise(fd, 0, 0, 77));
	CASE("posix_fadvise64 bad fd", posix_fadvise64(999, 0, 0, POSIX_FADV_RANDOM));
	CASE("mmap bad fd", mmap(NULL, PG, PROT_READ, MAP_SHARED, 999, 0) == MAP_FAILED);
	CASE("mmap bad offset", mmap(NULL, PG, PROT_READ, MAP_SHARED, fd, 1) == MAP_FAILED);
	CASE("munmap unaligned", munmap(m + 1, PG));
	CASE("munmap len 0", munmap(m, 0));
	CASE("mremap bad", mremap(m + 1, PG, 2 * PG, 0) == MAP_FAILED);
	CASE("mremap shrink", mremap(m, 2 * PG, PG, 0) == m);
	CASE("munmap ok", munmap(m, PG));
	calls = dlsym(RTLD_DEFAULT, "wrapnext_calls");
	if (calls)
		printf("wrapnext calls>0: %d\n", *calls > 0);
	return 0;
}
