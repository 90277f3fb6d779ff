// SPDX-License-Identifier: MIT
/*
 * stats.c - the counters region that `advshim inspect` reads.
 *
 * See stats_layout.h.  Until init (and if memfd_create fails) counters go
 * to a private static copy, so STAT_INC never needs a NULL check.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>

#include "shim/shim.h"

#define STATS_REGION 4096

_Static_assert(sizeof(struct advshim_stats) <= STATS_REGION, "stats page");
_Static_assert(ADV_NR_FAMILIES == ADVSHIM_STATS_FAMILIES, "families");
_Static_assert(ADV_NR_KINDS <= ADVSHIM_STATS_KINDS, "kinds");

static struct advshim_stats private_stats;
struct advshim_stats *shim_stats = &private_stats;

/* A fresh shared page holding a copy of @from; NULL on any failure. */
static struct advshim_stats *new_region(const struct advshim_stats *from)
{
	struct advshim_stats *s;
	int fd, saved = errno;

	fd = (int)syscall(SYS_memfd_create, ADVSHIM_STATS_NAME, MFD_CLOEXEC);
	if (fd < 0)
		goto fail;
	if (syscall(SYS_ftruncate, fd, (off_t)STATS_REGION)) {
		sys_close(fd);
		goto fail;
	}
	s = sys_mmap(NULL, STATS_REGION, PROT_READ | PROT_WRITE, MAP_SHARED,
		     fd, 0);
	sys_close(fd);
	if (s == MAP_FAILED)
		goto fail;
	memcpy(s, from, sizeof(*s));
	errno = saved;
	return s;
fail:
	errno = saved;
	return NULL;
}

void stats_init(void)
{
	struct advshim_stats *s;

	private_stats.magic = ADVSHIM_STATS_MAGIC;
	private_stats.version = ADVSHIM_STATS_VERSION;
	private_stats.size = sizeof(private_stats);
	private_stats.pid = (int32_t)getpid();
	strncpy(private_stats.lib_version, ADVSHIM_VERSION,
		sizeof(private_stats.lib_version) - 1);
	s = new_region(&private_stats);
	if (s)
		__atomic_store_n(&shim_stats, s, __ATOMIC_RELEASE);
}

/*
 * In a forked child the shared page would still be the parent's: give the
 * child its own page (raw syscalls only, no allocation) starting from the
 * parent's numbers, and release the parent's.
 */
void stats_after_fork(void)
{
	struct advshim_stats *old = shim_stats, *s;

	if (old == &private_stats)
		return;
	s = new_region(old);
	if (!s) {
		memcpy(&private_stats, old, sizeof(private_stats));
		s = &private_stats;
	}
	s->pid = (int32_t)getpid();
	shim_stats = s;
	sys_munmap(old, STATS_REGION);
}
