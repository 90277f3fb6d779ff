// SPDX-License-Identifier: MIT
/*
 * remap_window.c - advshim-remap-window: the mremap table race, made
 * deterministic (see remap_window_lib.c and remap_race.c).
 *
 * usage: LD_PRELOAD="libadvshim.so libadvshim-remapwindow.so" \
 *        advshim-remap-window DIR      (policy: DIR/keep/ keeps RANDOM,
 *                                       DIR/rewrite/ rewrites it to normal)
 *
 * Maps DIR/rewrite/f, moves it with mremap(MAYMOVE|FIXED); inside the
 * window (after the syscall, before the shim records the move) the hook
 * maps DIR/keep/f at the addresses just freed (MAP_FIXED_NOREPLACE: the
 * kernel's own address reuse, made certain).
 * Then posix_madvise(RANDOM) on the moved rewrite mapping must leave no
 * `rr`.  Exit 1 if it does (the move was recorded with the keep file), 0
 * if not, 3 if the keep mapping did not land on the old addresses in 20
 * tries (inconclusive).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "tests/integration/shim/vmflags.h"

#define PG 4096UL
static int keep_fd;
/* volatile: glibc declares mremap "leaf" (no callbacks into this file). */
static void *volatile keep_at;

void remap_window_hook(void *old, size_t old_len);
void remap_window_hook(void *old, size_t old_len)
{
	(void)old_len;
	/* What the kernel often does by itself: reuse the freed addresses
	 * (MAP_FIXED_NOREPLACE makes it certain, and fails if not free). */
	keep_at = mmap(old, 2 * PG, PROT_READ, MAP_SHARED | MAP_FIXED_NOREPLACE,
		       keep_fd, 0);
	if (keep_at != old && keep_at != MAP_FAILED) {
		munmap(keep_at, 2 * PG);
		keep_at = NULL;
	}
}

int main(int argc, char **argv)
{
	char path[4096];
	int fd;

	if (argc < 2)
		return 2;
	snprintf(path, sizeof(path), "%s/keep/f", argv[1]);
	keep_fd = open(path, O_RDONLY | O_CLOEXEC);
	snprintf(path, sizeof(path), "%s/rewrite/f", argv[1]);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || keep_fd < 0) {
		perror("open");
		return 2;
	}
	for (int i = 0; i < 20; i++) {
		char *target = mmap(NULL, 2 * PG, PROT_NONE,
				    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		char *p = mmap(NULL, 2 * PG, PROT_READ, MAP_SHARED, fd, 0);
		char *q;
		int rr;

		if (p == MAP_FAILED || target == MAP_FAILED)
			return 2;
		keep_at = NULL;
		q = mremap(p, 2 * PG, 2 * PG, MREMAP_MAYMOVE | MREMAP_FIXED, target);
		if (q == MAP_FAILED)
			return 2;
		if (!keep_at) {
			munmap(q, 2 * PG);
			continue;
		}
		posix_madvise(q, 2 * PG, POSIX_MADV_RANDOM);
		rr = has_flag(q, "rr");
		printf("advshim-remap-window: keep mapped at the old %p; moved rewrite "
		       "mapping at %p has rr=%d (policy: none)\n", (void *)p, (void *)q, rr);
		return rr == 1 ? 1 : 0;
	}
	printf("advshim-remap-window: the keep mapping never landed on the old addresses\n");
	return 3;
}
