// SPDX-License-Identifier: MIT
/*
 * kill.c - the kill switch: while the file ADVSHIM_DISABLE_FILE names
 * (default /run/advshim/disable; "" turns the switch off) exists, the shim
 * rewrites nothing and the running process needs no restart.
 *
 * Who looks: the adaptive sampler thread every interval_ms (sampler.c),
 * which then gives every range of the adaptive group the application's
 * RANDOM back and stops deciding until the file is gone; and the call path
 * of the other rules (decide.c), at most once per KILL_RECHECK_MS, which
 * then passes each call on as asked.  A range a fixed rule rewrote before
 * the switch keeps its advice until the application advises it again.
 * The look is one faccessat(2) raw system call: no allocation, no lock,
 * errno preserved, safe in the sampler's private descriptor table.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "shim/calls.h"

#define KILL_RECHECK_MS		1000

static char kill_path[256];
static uint64_t kill_next_ms;		/* atomic: the call path's next look */

void kill_init(const char *env)
{
	const char *p = env ? env : ADVSHIM_DISABLE_DEFAULT;

	if (strlen(p) >= sizeof(kill_path))
		p = "";			/* too long to be ours: no switch */
	memcpy(kill_path, p, strlen(p) + 1);
	kill_check();
}

static uint64_t coarse_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

bool kill_check(void)
{
	int saved = errno, was, now;

	now = kill_path[0] &&
	      !syscall(SYS_faccessat, AT_FDCWD, kill_path, F_OK, 0);
	errno = saved;
	was = __atomic_exchange_n(&shim.disabled, now, __ATOMIC_ACQ_REL);
	STAT_SET(disabled, now);
	if (was != now)
		gen_bump();	/* every thread's cached codes are stale */
	if (was != now)
		shim_log(POLICY_LOG_WARN, now ?
			 "kill switch %s present: passing advice through" :
			 "kill switch %s gone: the policy is in force again",
			 kill_path);
	return now;
}

bool kill_poll(void)
{
	uint64_t t;

	if (!kill_path[0])
		return false;		/* ADVSHIM_DISABLE_FILE="": no switch */
	t = coarse_ms();

	if (t >= __atomic_load_n(&kill_next_ms, __ATOMIC_RELAXED)) {
		__atomic_store_n(&kill_next_ms, t + KILL_RECHECK_MS,
				 __ATOMIC_RELAXED);
		return kill_check();
	}
	return __atomic_load_n(&shim.disabled, __ATOMIC_RELAXED);
}
