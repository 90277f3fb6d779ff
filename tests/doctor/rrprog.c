// SPDX-License-Identifier: MIT
/*
 * rrprog.c - a process that holds FILE mapped twice with MADV_RANDOM and
 * once more with MADV_SEQUENTIAL (a second file, when given), touching its
 * pages, then prints "ready" and sleeps until killed: what `advshim
 * doctor` must find in its smaps.  Built dynamic and static (-static) by
 * tests/doctor/module.mk.
 *
 * usage: rrprog FILE [SEQFILE]
 */
#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* Map @path whole with @advice and read every page; NULL on failure. */
static volatile char *map_advised(const char *path, int advice)
{
	struct stat st;
	volatile char *p;
	off_t off;
	int fd;

	fd = open(path, O_RDONLY);
	if (fd < 0 || fstat(fd, &st) || st.st_size <= 0) {
		perror(path);
		return NULL;
	}
	p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (p == MAP_FAILED || madvise((void *)p, (size_t)st.st_size, advice)) {
		perror("mmap/madvise");
		return NULL;
	}
	for (off = 0; off < st.st_size; off += 4096)
		(void)p[off];
	return p;
}

int main(int argc, char **argv)
{
	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: rrprog FILE [SEQFILE]\n");
		return 2;
	}
	/* The same file twice: doctor must count it once. */
	if (!map_advised(argv[1], MADV_RANDOM) ||
	    !map_advised(argv[1], MADV_RANDOM))
		return 1;
	if (argc == 3 && !map_advised(argv[2], MADV_SEQUENTIAL))
		return 1;
	printf("ready\n");
	fflush(stdout);
	for (;;)
		pause();
}
