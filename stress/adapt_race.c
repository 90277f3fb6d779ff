// SPDX-License-Identifier: MIT
/*
 * adapt_race.c - advshim-adapt-race: the adaptive sampler's switches
 * racing with the application's own calls.
 *
 * usage: advshim-adapt-race DIR SECONDS [THREADS]
 *        (under LD_PRELOAD=libadvshim.so with a policy that has
 *        random = "adaptive" for the files in DIR and a fast sampler:
 *        stress/adapt_race.sh)
 *
 * DIR gets NR_FILES small files and one huge sparse file (twice the
 * machine's MemAvailable: the process has no memcg limit of its own).  A controller maps the huge file
 * and advises it RANDOM, then unmaps it, every TOGGLE_MS: the group's need
 * jumps above and below its capacity, so the sampler switches between
 * normal and RANDOM as often as its rate limit allows, re-advising every
 * range asked RANDOM.  Meanwhile THREADS workers map ranges of the small
 * files, advise them (RANDOM on the whole range, often again, RANDOM on a
 * part, SEQUENTIAL, NORMAL, WILLNEED; madvise and posix_madvise), trim,
 * move and unmap them; some fork children that advise again after the
 * shim's restart delay (their sampler restarts) and exit.  Every call's
 * result is checked.
 *
 * At the end (workers and controller stopped), for a moment no switch is
 * in flight: the shim's own stats page (found in /proc/self/maps) says the
 * group's choice, and every live range whose last read hint was RANDOM on
 * the whole range must show it (rr iff RANDOM), every range last advised
 * NORMAL on the whole must have no rr: a range left with a stale choice is
 * a lost race.  With ADVSHIM_RACE_STOP_SWITCHES=N in the environment the
 * workers stop just after the group's Nth switch instead (at most SECONDS):
 * the calls that switch raced are then the last on their ranges.  A
 * watchdog fails the run after SECONDS + 60 s (deadlock).
 * Exit: 0 ok, 1 a check failed, 2 usage/setup, 3 watchdog.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "shim/stats_layout.h"
#include "tests/integration/shim/vmflags.h"

#define PG		4096UL
#define NR_FILES	8
#define FILE_PAGES	64
#define MAX_PAGES	16
#define NR_SLOTS	8
#define MAX_THREADS	32
#define TOGGLE_MS	150

enum asked { A_NONE, A_RANDOM, A_NORMAL, A_OTHER };

struct slot {
	char *addr;
	size_t pages;
	enum asked asked;
};

static char dir[2048];
static size_t huge_len;
static atomic_bool stop;
static atomic_long failures, calls;
static struct slot slots[MAX_THREADS][NR_SLOTS];

static void fail(const char *what, int err)
{
	atomic_fetch_add(&failures, 1);
	fprintf(stderr, "advshim-adapt-race: FAIL %s: %s\n", what, strerror(err));
}

static unsigned long rnd(unsigned long *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static int open_file(const char *name)
{
	char path[sizeof(dir) + 32];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return open(path, O_RDONLY | O_CLOEXEC);
}

/* posix_madvise or madvise, checked; the model follows. */
static void advise(struct slot *s, size_t from, size_t n, int advice,
		   bool posix)
{
	int r = posix ? posix_madvise(s->addr + from * PG, n * PG, advice) :
		(madvise(s->addr + from * PG, n * PG, advice) ? errno : 0);
	bool whole = !from && n == s->pages;

	atomic_fetch_add(&calls, 1);
	if (r) {
		fail("advise", r);
		s->asked = A_OTHER;
		return;
	}
	if (advice == MADV_RANDOM)
		s->asked = whole || s->asked == A_RANDOM ? A_RANDOM : A_OTHER;
	else if (advice == MADV_NORMAL && whole)
		s->asked = A_NORMAL;
	else if (advice != MADV_WILLNEED)
		s->asked = A_OTHER;
}

static void map_slot(struct slot *s, int *fds, unsigned long *seed)
{
	size_t pages = 1 + rnd(seed) % MAX_PAGES;
	off_t off = (off_t)(rnd(seed) % (FILE_PAGES - pages + 1)) * (off_t)PG;
	char *p = mmap(NULL, pages * PG, PROT_READ, MAP_SHARED,
		       fds[rnd(seed) % NR_FILES], off);

	if (p == MAP_FAILED) {
		fail("mmap", errno);
		return;
	}
	*s = (struct slot){ p, pages, A_NONE };
}

static void unmap_slot(struct slot *s)
{
	if (munmap(s->addr, s->pages * PG))
		fail("munmap", errno);
	s->addr = NULL;
}

/* Move the range elsewhere (the tag must follow it). */
static void move_slot(struct slot *s)
{
	char *to = mmap(NULL, s->pages * PG, PROT_NONE,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), *q;

	if (to == MAP_FAILED)
		return;
	q = mremap(s->addr, s->pages * PG, s->pages * PG,
		   MREMAP_MAYMOVE | MREMAP_FIXED, to);
	if (q == MAP_FAILED) {
		fail("mremap", errno);
		munmap(to, s->pages * PG);
		return;
	}
	s->addr = q;
}

static void one_op(struct slot *s, int *fds, unsigned long *seed)
{
	unsigned long op = rnd(seed) % 16;
	size_t n;

	if (!s->addr) {
		map_slot(s, fds, seed);
		if (s->addr)
			advise(s, 0, s->pages, MADV_RANDOM, op & 1);
		return;
	}
	if (op < 6) {
		advise(s, 0, s->pages, MADV_RANDOM, op & 1);
	} else if (op < 8) {
		n = 1 + rnd(seed) % s->pages;
		advise(s, s->pages - n, n, MADV_RANDOM, op & 1);
	} else if (op == 8) {
		advise(s, 0, s->pages, MADV_SEQUENTIAL, true);
	} else if (op == 9) {
		advise(s, 0, s->pages, MADV_NORMAL, false);
	} else if (op == 10) {
		advise(s, 0, s->pages, MADV_WILLNEED, true);
	} else if (op == 11 && s->pages > 1) {
		/* Trim the tail: the remaining range keeps its tag. */
		if (munmap(s->addr + (s->pages - 1) * PG, PG))
			fail("munmap tail", errno);
		else
			s->pages--;
	} else if (op == 12) {
		move_slot(s);
	} else if (op == 13) {
		unmap_slot(s);
	}
}

/* A child: advise again after the shim's restart delay, then exit. */
static void child(struct slot *mine)
{
	struct timespec ts = { 1, 100 * 1000 * 1000 };
	int i;

	nanosleep(&ts, NULL);
	for (i = 0; i < NR_SLOTS; i++)
		if (mine[i].addr && posix_madvise(mine[i].addr, mine[i].pages * PG,
						  POSIX_MADV_RANDOM))
			_exit(1);
	_exit(0);
}

static void *worker(void *arg)
{
	long id = (long)arg;
	unsigned long seed = 0x9e3779b97f4a7c15UL * (unsigned long)(id + 1);
	struct slot *mine = slots[id];
	int fds[NR_FILES], i, st;
	char name[16];
	pid_t pid;

	for (i = 0; i < NR_FILES; i++) {
		snprintf(name, sizeof(name), "f%d", i);
		fds[i] = open_file(name);
		if (fds[i] < 0) {
			fail("open", errno);
			return NULL;
		}
	}
	while (!atomic_load(&stop)) {
		one_op(&mine[rnd(&seed) % NR_SLOTS], fds, &seed);
		if (id == 0 && rnd(&seed) % 4096 == 0) {
			pid = fork();
			if (pid == 0)
				child(mine);
			if (pid > 0 && (waitpid(pid, &st, 0) != pid ||
					!WIFEXITED(st) || WEXITSTATUS(st)))
				fail("child", EIO);
		}
	}
	for (i = 0; i < NR_FILES; i++)
		close(fds[i]);
	return NULL;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };

	nanosleep(&ts, NULL);
}

/* Map the huge file and advise it RANDOM, then unmap it, in turn. */
static void *controller(void *arg)
{
	size_t len = huge_len;
	int fd = open_file("huge");
	char *p;

	(void)arg;
	if (fd < 0) {
		fail("open huge", errno);
		return NULL;
	}
	while (!atomic_load(&stop)) {
		p = mmap(NULL, len, PROT_READ, MAP_SHARED | MAP_NORESERVE, fd, 0);
		if (p == MAP_FAILED) {
			fail("mmap huge", errno);
			break;
		}
		if (posix_madvise(p, len, POSIX_MADV_RANDOM))
			fail("advise huge", EIO);
		sleep_ms(TOGGLE_MS);
		munmap(p, len);
		sleep_ms(TOGGLE_MS);
	}
	close(fd);
	return NULL;
}

/* Where the shim's stats page is in this process (its memfd), or 0. */
static unsigned long stats_addr(void)
{
	char line[4096];
	unsigned long start, at = 0;
	FILE *f = fopen("/proc/self/maps", "re");

	while (f && fgets(line, sizeof(line), f))
		if (strstr(line, "/memfd:" ADVSHIM_STATS_NAME) &&
		    sscanf(line, "%lx-", &start) == 1)
			at = start;
	if (f)
		fclose(f);
	return at;
}

/*
 * A copy of the page's adaptive part, read as `advshim inspect` reads it
 * (through /proc/self/mem: the sampler writes it with plain stores, and a
 * direct read would be a data race to TSan); 0 or -1.
 */
static int read_adapt(int mem, unsigned long at, struct advshim_stats_adapt *a)
{
	off_t off = (off_t)(at + offsetof(struct advshim_stats, adapt));

	return pread(mem, a, sizeof(*a), off) == (ssize_t)sizeof(*a) ? 0 : -1;
}

/* Ranges that disagree with choice @random_in_force (rr iff RANDOM). */
static long stale_ranges(bool random_in_force, int threads)
{
	static char buf[32 << 20];
	ssize_t len = self_smaps(buf, sizeof(buf));
	long bad = 0;
	int t, i;
	size_t p;

	if (len < 0 || len == (ssize_t)sizeof(buf))
		return -1;
	for (t = 0; t < threads; t++)
		for (i = 0; i < NR_SLOTS; i++) {
			struct slot *s = &slots[t][i];
			bool want = s->asked == A_RANDOM && random_in_force;

			if (!s->addr || (s->asked != A_RANDOM && s->asked != A_NORMAL))
				continue;
			for (p = 0; p < s->pages; p++)
				if ((smaps_flag_at(buf, (size_t)len,
						   (uintptr_t)s->addr + p * PG,
						   "rr") == 1) != want) {
					bad++;
					break;
				}
		}
	return bad;
}

/*
 * Judge when no switch is in flight: the choice and the switch count the
 * same before and after, with two samples taken in between.
 */
static int final_check(int threads)
{
	static struct advshim_stats_adapt a, b;
	unsigned long at = stats_addr();
	int mem = open("/proc/self/mem", O_RDONLY | O_CLOEXEC), tries;
	long bad;

	if (!at || mem < 0) {
		fprintf(stderr, "advshim-adapt-race: FAIL no stats page (shim not loaded?)\n");
		return 1;
	}
	for (tries = 0; tries < 100; tries++) {
		if (read_adapt(mem, at, &a))
			break;
		do {
			sleep_ms(5);
		} while (!read_adapt(mem, at, &b) && b.samples < a.samples + 2);
		bad = stale_ranges(a.choice == 0 /* ADAPT_RANDOM */, threads);
		if (read_adapt(mem, at, &b) || b.switches != a.switches ||
		    b.choice != a.choice || (a.seq & 1))
			continue;	/* a switch came in between */
		close(mem);
		printf("advshim-adapt-race: %ld calls, %llu switches, %llu "
		       "ranges re-advised, final choice %s, %ld stale ranges\n",
		       atomic_load(&calls), (unsigned long long)a.switches,
		       (unsigned long long)a.ranges_applied,
		       a.choice ? "normal" : "random", bad);
		if (bad)
			fprintf(stderr, "advshim-adapt-race: FAIL %ld ranges keep "
				"a stale choice\n", bad);
		if (!a.switches)
			fprintf(stderr, "advshim-adapt-race: FAIL no switch\n");
		return bad || !a.switches;
	}
	close(mem);
	fprintf(stderr, "advshim-adapt-race: FAIL the choice never settled\n");
	return 1;
}

/*
 * Run the workers for @secs seconds, or (@stop_at > 0) until just after
 * the group's @stop_at-th switch, at most @secs: the calls in flight while
 * it re-advised are then the last ones on their ranges, so a call that
 * switch made stale is not hidden by a later one.
 */
static void run_for(int secs, unsigned long long stop_at)
{
	static struct advshim_stats_adapt a;
	unsigned long at = stop_at ? stats_addr() : 0;
	int mem = at ? open("/proc/self/mem", O_RDONLY | O_CLOEXEC) : -1;
	long ms;

	for (ms = 0; ms < secs * 1000L; ms++) {
		if (mem >= 0 && !read_adapt(mem, at, &a) && a.switches >= stop_at)
			break;
		sleep_ms(1);
	}
	atomic_store(&stop, true);
	if (mem >= 0)
		close(mem);
}

/* Twice MemAvailable (at least 1 GiB): need that never fits. */
static size_t huge_size(void)
{
	unsigned long kib = 0;
	char line[256];
	FILE *f = fopen("/proc/meminfo", "re");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "MemAvailable: %lu kB", &kib) == 1)
			break;
	if (f)
		fclose(f);
	kib = kib < (1UL << 20) / 2 ? (1UL << 20) / 2 : kib;
	return (size_t)kib * 2 * 1024;
}

static void watchdog(int sig)
{
	(void)sig;
	(void)!write(2, "advshim-adapt-race: FAIL watchdog (deadlock?)\n", 46);
	_exit(3);
}

static int make_files(void)
{
	char path[sizeof(dir) + 32];
	int i, fd;

	for (i = 0; i <= NR_FILES; i++) {
		if (i < NR_FILES)
			snprintf(path, sizeof(path), "%s/f%d", dir, i);
		else
			snprintf(path, sizeof(path), "%s/huge", dir);
		fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd < 0 || ftruncate(fd, i < NR_FILES ?
				(off_t)(FILE_PAGES * PG) : (off_t)huge_len)) {
			perror(path);
			return -1;
		}
		close(fd);
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *stop_at = getenv("ADVSHIM_RACE_STOP_SWITCHES");
	pthread_t t[MAX_THREADS], ctl;
	int secs, threads, i;

	if (argc < 3 || argc > 4) {
		fprintf(stderr, "usage: advshim-adapt-race DIR SECONDS [THREADS]\n");
		return 2;
	}
	snprintf(dir, sizeof(dir), "%s", argv[1]);
	secs = atoi(argv[2]);
	threads = argc > 3 ? atoi(argv[3]) : 8;
	huge_len = huge_size();
	if (secs <= 0 || threads <= 0 || threads > MAX_THREADS || make_files())
		return 2;
	signal(SIGALRM, watchdog);
	alarm((unsigned int)secs + 60);
	for (i = 0; i < threads; i++)
		pthread_create(&t[i], NULL, worker, (void *)(long)i);
	pthread_create(&ctl, NULL, controller, NULL);
	run_for(secs, stop_at ? strtoull(stop_at, NULL, 10) : 0);
	for (i = 0; i < threads; i++)
		pthread_join(t[i], NULL);
	pthread_join(ctl, NULL);
	if (final_check(threads))
		return 1;
	return atomic_load(&failures) ? 1 : 0;
}
