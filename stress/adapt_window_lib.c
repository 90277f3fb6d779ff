// SPDX-License-Identifier: MIT
/*
 * adapt_window_lib.c - libadvshim-adaptwindow.so, preloaded AFTER
 * libadvshim.so for advshim-adapt-race (stress/adapt_race.sh, mode
 * window): the shim's "real" madvise and posix_madvise (dlsym(RTLD_NEXT))
 * become these, which sleep ADAPT_WINDOW_US before the system call when
 * the advice is NORMAL or RANDOM.  That widens, for every application
 * call, the window a switch must hit to race it: after the shim read the
 * group's choice, before the call lands.  A switch landing there makes
 * the call's advice stale unless the shim re-checks the generation after
 * its call and redoes it (shim/adapt_table.c); without that re-check the
 * ranges advised while the last switch re-advised them keep the old
 * choice, which the program's final check reports.  The sampler's own
 * madvise is a raw system call: never delayed.
 */
#include <errno.h>
#include <stddef.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define ADAPT_WINDOW_US	500

static void window(int advice)
{
	struct timespec ts = { 0, ADAPT_WINDOW_US * 1000L };

	if (advice == MADV_NORMAL || advice == MADV_RANDOM)
		while (clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts) == EINTR)
			;
}

int madvise(void *addr, size_t len, int advice)
{
	window(advice);
	return (int)syscall(SYS_madvise, addr, len, advice);
}

int posix_madvise(void *addr, size_t len, int advice)
{
	int saved = errno, r;

	if (advice == POSIX_MADV_DONTNEED)
		return 0;	/* glibc's no-op */
	window(advice);
	r = syscall(SYS_madvise, addr, len, advice) ? errno : 0;
	errno = saved;
	return r;
}
