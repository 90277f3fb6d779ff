/* SPDX-License-Identifier: MIT */
/*
 * clock.h - the monotonic clock advshim-ab samples and waits by.
 */
#ifndef ADVSHIM_AB_CLOCK_H
#define ADVSHIM_AB_CLOCK_H

#include <stdint.h>
#include <time.h>

/* now_ns - CLOCK_MONOTONIC in nanoseconds.  Cannot fail. */
static inline uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/*
 * sleep_until - sleep until now_ns() reaches @deadline_ns, or less: a
 * signal cuts the sleep short (EINTR), and the caller checks why.
 */
static inline void sleep_until(uint64_t deadline_ns)
{
	uint64_t now = now_ns();
	struct timespec ts;

	if (now >= deadline_ns)
		return;
	ts.tv_sec = (time_t)((deadline_ns - now) / 1000000000ull);
	ts.tv_nsec = (long)((deadline_ns - now) % 1000000000ull);
	nanosleep(&ts, NULL);
}

#endif /* ADVSHIM_AB_CLOCK_H */
