// SPDX-License-Identifier: MIT
/*
 * anonprog - advice on memory that holds no file, for run.sh.
 *
 *   anonprog repeat N     N read hints (RANDOM, NORMAL, ...) on one 1 MiB
 *                         anonymous range: the harness counts, by strace,
 *                         the shim's questions to the kernel (one, not N)
 *   anonprog reuse FILE   RANDOM on an anonymous range (the shim learns
 *                         "no file" there), munmap through libc, then
 *                         FILE mapped at the same address by a raw system
 *                         call the shim does not see, and RANDOM again:
 *                         prints "rr=1" or "rr=0" for the file's VMA (a
 *                         rewrite policy must give 0: the shim asked the
 *                         kernel again instead of trusting its old answer)
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "tests/integration/shim/vmflags.h"

#define LEN	(1 << 20)

static int repeat(long n)
{
	char *p = mmap(NULL, LEN, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	long i;

	if (p == MAP_FAILED)
		return 1;
	for (i = 0; i < n; i++)
		if (madvise(p, LEN, i & 1 ? MADV_NORMAL : MADV_RANDOM) ||
		    posix_madvise(p, LEN, POSIX_MADV_SEQUENTIAL))
			return 1;
	printf("advised %ld\n", n);
	return 0;
}

static int reuse(const char *file)
{
	int fd = open(file, O_RDONLY | O_CLOEXEC);
	char *p = mmap(NULL, LEN, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	void *q;

	if (fd < 0 || p == MAP_FAILED || madvise(p, LEN, MADV_RANDOM) ||
	    madvise(p, LEN, MADV_NORMAL) || munmap(p, LEN))
		return 1;
	q = (void *)syscall(SYS_mmap, p, LEN, PROT_READ, MAP_SHARED | MAP_FIXED,
			    fd, 0);
	if (q != p || madvise(p, LEN, MADV_RANDOM))
		return 1;
	printf("rr=%d\n", has_flag(p, "rr"));
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "repeat"))
		return repeat(atol(argv[2]));
	if (argc == 3 && !strcmp(argv[1], "reuse"))
		return reuse(argv[2]);
	fprintf(stderr, "usage: anonprog repeat N | reuse FILE\n");
	return 2;
}
