// SPDX-License-Identifier: MIT
/*
 * test_shim_stats.c - stats.c's per-thread counter slots: calls from more
 * threads than there are slots are all counted, exactly; a dead thread's
 * slot goes to a new thread with its counts kept; a fork child counts on
 * from the parent's numbers in a slot under its own TID, the parent's
 * other threads' slots free.  Children report through their exit status.
 */
#include <criterion/criterion.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/unit/shim_unit.h"

TestSuite(stats, .init = unit_init, .fini = unit_fini);

#define THREADS		(ADVSHIM_STATS_SLOTS + 16)
#define CALLS		500

static char *anon;
static pthread_barrier_t start, end;

#define DONTNEED_PASSED passed[ADV_FAMILY_MADVISE][ADV_DONTNEED]

/* Slots held by a thread (owner set). */
static int slots_held(void)
{
	int i, n = 0;

	for (i = 0; i < ADVSHIM_STATS_SLOTS; i++)
		n += __atomic_load_n(&shim_stats->slots[i].owner,
				     __ATOMIC_RELAXED) != 0;
	return n;
}

/*
 * CALLS DONTNEEDs at once with the others, none exiting before all are
 * done (a slot freed early could go to a late starter); returns whether
 * it had a slot.
 */
static void *caller(void *arg)
{
	int i;

	(void)arg;
	pthread_barrier_wait(&start);
	for (i = 0; i < CALLS; i++)
		madvise(anon, PG, MADV_DONTNEED);
	pthread_barrier_wait(&end);
	return (void *)(uintptr_t)(shim_stat_slot != NULL);
}

/* Run @n callers at once; returns how many ended with a slot. */
static int run_callers(int n)
{
	pthread_t t[THREADS];
	void *had;
	int i, with_slot = 0;

	anon = mmap(NULL, PG, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	cr_assert_neq(anon, MAP_FAILED);
	cr_assert_eq(pthread_barrier_init(&start, NULL, (unsigned int)n), 0);
	cr_assert_eq(pthread_barrier_init(&end, NULL, (unsigned int)n), 0);
	for (i = 0; i < n; i++)
		cr_assert_eq(pthread_create(&t[i], NULL, caller, NULL), 0);
	for (i = 0; i < n; i++) {
		cr_assert_eq(pthread_join(t[i], &had), 0);
		with_slot += had != NULL;
	}
	pthread_barrier_destroy(&start);
	pthread_barrier_destroy(&end);
	return with_slot;
}

Test(stats, more_threads_than_slots_count_every_call)
{
	uint64_t before = STAT(DONTNEED_PASSED);
	int free_slots = ADVSHIM_STATS_SLOTS - slots_held();
	int with_slot = run_callers(THREADS);

	/* The free slots taken, the other threads counted on the page. */
	cr_assert_eq(with_slot, free_slots, "%d threads had a slot, %d free",
		     with_slot, free_slots);
	cr_assert_eq(STAT(DONTNEED_PASSED), before + THREADS * CALLS);
}

Test(stats, a_dead_threads_slot_goes_to_a_new_thread)
{
	uint64_t before = STAT(DONTNEED_PASSED);

	run_callers(THREADS);
	cr_assert_eq(slots_held(), ADVSHIM_STATS_SLOTS);
	/* Every owner has exited: the next callers take their slots over. */
	cr_assert_eq(run_callers(8), 8);
	cr_assert_eq(STAT(DONTNEED_PASSED), before + (THREADS + 8) * CALLS);
}

/* In the child: 0 if its counts continue the parent's, else a reason. */
static int child_counts(uint64_t at_fork)
{
	int i, other = 0;

	if (STAT(DONTNEED_PASSED) != at_fork)
		return 1;
	if (!shim_stat_slot || shim_stat_slot->owner != (int32_t)syscall(SYS_gettid))
		return 2;
	for (i = 0; i < ADVSHIM_STATS_SLOTS; i++)
		other += shim_stats->slots[i].owner &&
			 &shim_stats->slots[i] != shim_stat_slot;
	if (other)
		return 3;
	for (i = 0; i < 10; i++)
		madvise(anon, PG, MADV_DONTNEED);
	return STAT(DONTNEED_PASSED) == at_fork + 10 ? 0 : 4;
}

Test(stats, a_fork_child_counts_on_from_the_parents_numbers)
{
	uint64_t at_fork;
	int status;
	pid_t pid;

	run_callers(4);		/* slots of threads that are gone */
	madvise(anon, PG, MADV_DONTNEED);	/* this thread's own slot */
	madvise(anon, PG, MADV_DONTNEED);
	cr_assert_not_null(shim_stat_slot);
	at_fork = STAT(DONTNEED_PASSED);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (!pid)
		_exit(child_counts(at_fork));
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFEXITED(status));
	cr_assert_eq(WEXITSTATUS(status), 0, "child: reason %d",
		     WEXITSTATUS(status));
	cr_assert_eq(STAT(DONTNEED_PASSED), at_fork);
}
