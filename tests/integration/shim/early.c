// SPDX-License-Identifier: MIT
/*
 * early.c - libearly.so: maps a file and advises it from a constructor.
 * earlyprog links against it, so with the shim in LD_PRELOAD this
 * constructor runs before the shim's (dependencies initialise first, and
 * libearly comes after libadvshim in load order): the shim must
 * initialise lazily and still rewrite the advice.  Reports like advprog.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "tests/integration/shim/vmflags.h"

__attribute__((constructor)) static void early(void)
{
	const char *file = getenv("EARLY_FILE");
	int fd, r;
	char *p;

	if (!file)
		return;
	fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		perror(file);
		return;
	}
	p = mmap(NULL, 4 * 4096, PROT_READ, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		perror("mmap");
		return;
	}
	r = posix_madvise(p, 4 * 4096, POSIX_MADV_RANDOM);
	printf("result early call=%d rr=%d\n", r, has_flag(p, "rr"));
	fflush(stdout);
	munmap(p, 4 * 4096);
	close(fd);
}
