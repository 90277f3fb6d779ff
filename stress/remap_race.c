// SPDX-License-Identifier: MIT
/*
 * remap_race.c - reproducer: mremap's table update races with an mmap that
 * reuses the old addresses.
 *
 * usage: advshim-remap-race DIR SECONDS   (under LD_PRELOAD=libadvshim.so,
 *        with a policy that rewrites RANDOM for DIR/rewrite/ and keeps
 *        it for DIR/keep/; DIR/rewrite/f and DIR/keep/f exist, 64 KiB)
 *
 * Thread 0 maps DIR/rewrite/f, moves the mapping with mremap(MAYMOVE|
 * FIXED) to a reserved spot (its old addresses become free), then calls
 * posix_madvise(RANDOM) on the new place: the policy says normal, so the
 * kernel must not show `rr` there.  The other threads map and unmap
 * DIR/keep/f as fast as they can, so one of them often gets the addresses
 * thread 0's mremap just freed (two more keep the table's read lock busy
 * with posix_madvise, so writers queue and the window widens).  The shim updates its table after mremap
 * returns, taking "the file of the range at the old address": if a keep
 * mapping was registered there in between, the moved rewrite mapping is
 * recorded as the keep file, and RANDOM reaches the kernel.
 * Exit 1 (with the count) when `rr` was seen on the rewrite mapping.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "tests/integration/shim/vmflags.h"

#define PG 4096UL
static char keep[4096], rewrite[4096];
static atomic_bool stop;

static void *grabber(void *arg)
{
	int fd = open(keep, O_RDONLY | O_CLOEXEC);

	(void)arg;
	while (!atomic_load(&stop)) {
		void *p = mmap(NULL, 2 * PG, PROT_READ, MAP_SHARED, fd, 0);

		if (p != MAP_FAILED)
			munmap(p, 2 * PG);
	}
	close(fd);
	return NULL;
}

/* Keeps the table's read lock busy, so writers queue (a wider window). */
static void *reader(void *arg)
{
	int fd = open(keep, O_RDONLY | O_CLOEXEC);
	void *p = mmap(NULL, 2 * PG, PROT_READ, MAP_SHARED, fd, 0);

	(void)arg;
	close(fd);
	if (p == MAP_FAILED)
		return NULL;
	while (!atomic_load(&stop))
		posix_madvise(p, 2 * PG, POSIX_MADV_NORMAL);
	munmap(p, 2 * PG);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[16];
	int nt = argc > 3 ? atoi(argv[3]) : 3;
	long bad = 0, rounds = 0;
	time_t end;
	int fd;

	if (argc < 3)
		return 2;
	snprintf(keep, sizeof(keep), "%s/keep/f", argv[1]);
	snprintf(rewrite, sizeof(rewrite), "%s/rewrite/f", argv[1]);
	end = time(NULL) + atoi(argv[2]);
	fd = open(rewrite, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		perror(rewrite);
		return 2;
	}
	for (int i = 0; i < nt && i < 16; i++)
		pthread_create(&t[i], NULL, i < 2 ? reader : grabber, NULL);
	while (time(NULL) < end) {
		char *p = mmap(NULL, 2 * PG, PROT_READ, MAP_SHARED, fd, 0);
		char *target = mmap(NULL, 2 * PG, PROT_NONE,
				    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		char *q;

		if (p == MAP_FAILED || target == MAP_FAILED)
			return 2;
		q = mremap(p, 2 * PG, 2 * PG, MREMAP_MAYMOVE | MREMAP_FIXED, target);
		if (q == MAP_FAILED)
			return 2;
		posix_madvise(q, 2 * PG, POSIX_MADV_RANDOM);
		if (has_flag(q, "rr") == 1)
			bad++;
		munmap(q, 2 * PG);
		rounds++;
	}
	atomic_store(&stop, 1);
	for (int i = 0; i < nt && i < 16; i++)
		pthread_join(t[i], NULL);
	printf("advshim-remap-race: %ld rounds, %ld with rr on the moved rewrite mapping\n",
	       rounds, bad);
	return bad ? 1 : 0;
}
