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
#include <sys/syscall.h>
#include <unistd.h>

#include "shim/shim.h"

/* The region: whole pages. */
#define STATS_REGION ((sizeof(struct advshim_stats) + 4095) & ~(size_t)4095)
/* Calls a thread counts atomically before it looks for a slot again. */
#define SLOT_RETRY_CALLS 65536

_Static_assert(ADV_NR_FAMILIES == ADVSHIM_STATS_FAMILIES, "families");
_Static_assert(ADV_NR_KINDS <= ADVSHIM_STATS_KINDS, "kinds");

static struct advshim_stats private_stats;
struct advshim_stats *shim_stats = &private_stats;
__thread struct advshim_stats_slot *shim_stat_slot
	__attribute__((tls_model("initial-exec")));
/* Calls left before this thread, refused a slot, looks again. */
static __thread unsigned int slot_retry __attribute__((tls_model("initial-exec")));
/* Set by stats_init: shim_stats no longer moves (but in a fork child). */
static bool settled;

/* A fresh shared region holding a copy of @from; NULL on any failure. */
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
	__atomic_store_n(&settled, true, __ATOMIC_RELEASE);
}

/* Whether thread @tid of this process has exited (ESRCH). */
static bool tid_gone(int32_t tid)
{
	return syscall(SYS_tgkill, (int)getpid(), (int)tid, 0) < 0 &&
	       errno == ESRCH;
}

/*
 * Take slot @i for @tid if free, or, when @reclaim, if its owner has
 * exited (an owner with @tid's own TID is a dead thread's, whose TID the
 * kernel gave to @tid).  A slot keeps its counts from owner to owner (a
 * reader adds every slot): nothing to move.
 */
static bool slot_take(struct advshim_stats *s, int i, int32_t tid, bool reclaim)
{
	int32_t owner = __atomic_load_n(&s->slots[i].owner, __ATOMIC_RELAXED);

	if (owner && (!reclaim || (owner != tid && !tid_gone(owner))))
		return false;
	return __atomic_compare_exchange_n(&s->slots[i].owner, &owner, tid,
					   false, __ATOMIC_RELAXED,
					   __ATOMIC_RELAXED);
}

void stats_hot_miss(uint64_t *field)
{
	struct advshim_stats *s = __atomic_load_n(&shim_stats, __ATOMIC_ACQUIRE);
	int32_t tid;
	int i, pass, saved = errno;

	__atomic_fetch_add(field, 1, __ATOMIC_RELAXED);
	if (!__atomic_load_n(&settled, __ATOMIC_ACQUIRE) || slot_retry) {
		if (slot_retry)
			slot_retry--;
		return;
	}
	tid = (int32_t)syscall(SYS_gettid);
	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < ADVSHIM_STATS_SLOTS; i++)
			if (slot_take(s, i, tid, pass)) {
				shim_stat_slot = &s->slots[i];
				errno = saved;
				return;
			}
	slot_retry = SLOT_RETRY_CALLS;
	errno = saved;
}

/*
 * In a fork child, @s the copy of @old: the forking thread's slot is now
 * @tid's, in @s; the other threads' slots are free (their counts stay).
 */
static void slots_after_fork(struct advshim_stats *s,
			     const struct advshim_stats *old, int32_t tid)
{
	const struct advshim_stats_slot *mine = shim_stat_slot;
	int i;

	shim_stat_slot = NULL;
	for (i = 0; i < ADVSHIM_STATS_SLOTS; i++) {
		if (mine == &old->slots[i]) {
			s->slots[i].owner = tid;
			shim_stat_slot = &s->slots[i];
		} else {
			s->slots[i].owner = 0;
		}
	}
}

/*
 * In a forked child the shared region would still be the parent's: give the
 * child its own region (raw syscalls only, no allocation) starting from the
 * parent's numbers, and release the parent's.
 */
void stats_after_fork(void)
{
	struct advshim_stats *old = shim_stats, *s;
	int32_t tid = (int32_t)syscall(SYS_gettid);

	if (old == &private_stats) {
		slots_after_fork(old, old, tid);
		return;
	}
	s = new_region(old);
	if (!s) {
		memcpy(&private_stats, old, sizeof(private_stats));
		s = &private_stats;
	}
	s->pid = (int32_t)getpid();
	slots_after_fork(s, old, tid);
	shim_stats = s;
	sys_munmap(old, STATS_REGION);
}
