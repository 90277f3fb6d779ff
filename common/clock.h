/* SPDX-License-Identifier: MIT */
/*
 * clock.h - milliseconds of CLOCK_MONOTONIC, the clock the watcher ticks by
 * and the shim stamps its adaptive samples with (so the CLI can say how
 * long ago a sample was taken).
 */
#ifndef ADVSHIM_COMMON_CLOCK_H
#define ADVSHIM_COMMON_CLOCK_H

#include <stdint.h>
#include <time.h>

/* mono_ms - CLOCK_MONOTONIC in milliseconds.  Cannot fail. */
static inline uint64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

#endif /* ADVSHIM_COMMON_CLOCK_H */
