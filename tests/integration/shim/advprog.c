// SPDX-License-Identifier: MIT
/*
 * advprog.c - maps a file and advises it the way applications do, then
 * reports what the kernel has in force (VmFlags from /proc/self/smaps).
 * The shim's integration tests run it plain and under LD_PRELOAD.
 *
 * usage: advprog [options] FILE
 *   -f FUNC     madvise | posix_madvise | posix_fadvise (default posix_madvise)
 *   -l LOOKUP   direct | default (dlsym(RTLD_DEFAULT)) | libc
 *               (dlsym(dlopen("libc.so.6")))                    [direct]
 *   -a ADVICE   random | sequential | normal | willneed | dontneed | NUMBER
 *   -P PAGES    mapping size in pages                            [16]
 *   -o PG -n PG advise only pages [o, o+n) of the mapping         [all]
 *   -L          layout: file 4 pages | anonymous 2 | file 4, advised as one
 *   -M          move and grow the mapping with mremap(MAYMOVE|FIXED)
 *               before advising it (the table must follow the move)
 *   -r          map with a raw mmap system call (the shim never sees it:
 *               it must fall back to the kernel's view of the range)
 *   -p          print "ready PID ADDR" and wait for stdin to close
 *   -F          do it all again in a forked child as well; with -t: the
 *               main thread forks 40 children while the threads run (the
 *               shim's lock is contended at fork time), each child maps
 *               and advises once; a child stuck for 5 s counts as hung
 *   -D          madvise(MADV_DONTFORK) pages [o, o+n) of the mapping, fork;
 *               the child maps anonymous memory there (MAP_FIXED_NOREPLACE:
 *               they are not inherited), advises the whole mapping and
 *               reports "child"; -D -D adds MADV_DOFORK before the fork
 *               (then the child reports "child-kept": the file is there)
 *   -t N        N threads map, advise (whole, then in parts: the shim's
 *               lock-free path), check and unmap concurrently
 *   -i ITER     iterations per thread                            [200]
 * Output: one "result ..." line per check, e.g.
 *   result call=0 errno=0 rr=0 sr=0
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/integration/shim/vmflags.h"

#define PG 4096L

static const char *file, *func = "posix_madvise", *lookup = "direct";
static int advice = POSIX_MADV_RANDOM, fadv = POSIX_FADV_RANDOM;
static long pages = 16, off_pg = -1, nr_pg = -1, iters = 200;
static int layout, pause_it, do_fork, threads, raw, remap, dontfork;

typedef int (*madv_fn)(void *, size_t, int);
typedef int (*fadv_fn)(int, off_t, off_t, int);

static void *find(const char *name)
{
	void *h;

	if (!strcmp(lookup, "direct"))
		return NULL;
	if (!strcmp(lookup, "default"))
		return dlsym(RTLD_DEFAULT, name);
	h = dlopen("libc.so.6", RTLD_NOW);
	return h ? dlsym(h, name) : NULL;
}

static int parse_advice(const char *s)
{
	static const struct { const char *n; int m, f; } t[] = {
		{ "normal", POSIX_MADV_NORMAL, POSIX_FADV_NORMAL },
		{ "random", POSIX_MADV_RANDOM, POSIX_FADV_RANDOM },
		{ "sequential", POSIX_MADV_SEQUENTIAL, POSIX_FADV_SEQUENTIAL },
		{ "willneed", POSIX_MADV_WILLNEED, POSIX_FADV_WILLNEED },
		{ "dontneed", POSIX_MADV_DONTNEED, POSIX_FADV_DONTNEED },
		{ "noreuse", -1, POSIX_FADV_NOREUSE },
	};
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (!strcmp(s, t[i].n)) {
			fadv = t[i].f;
			return t[i].m;
		}
	fadv = atoi(s);
	return atoi(s);
}

/* Call the chosen entry point; returns 0 or an error number. */
static int advise(void *addr, size_t len, int fd)
{
	int r;

	if (!strcmp(func, "madvise")) {
		madv_fn f = find("madvise");

		r = f ? f(addr, len, advice) : madvise(addr, len, advice);
		return r ? errno : 0;
	}
	if (!strcmp(func, "posix_fadvise")) {
		fadv_fn f = find("posix_fadvise");

		return f ? f(fd, 0, 0, fadv) : posix_fadvise(fd, 0, 0, fadv);
	}
	{
		madv_fn f = find("posix_madvise");

		return f ? f(addr, len, advice) : posix_madvise(addr, len, advice);
	}
}

static void report(const char *what, int ret, char *base, long from, long n)
{
	long p;

	printf("result %s call=%d", what, ret);
	if (n > 64) {		/* big mappings: a summary */
		long rr = 0;

		for (p = from; p < from + n; p++)
			rr += has_flag(base + p * PG, "rr") == 1;
		printf(" pages=%ld rr_pages=%ld\n", n, rr);
		return;
	}
	for (p = from; p < from + n; p++)
		printf(" p%ld=%s%s", p, has_flag(base + p * PG, "rr") == 1 ? "rr" : "",
		       has_flag(base + p * PG, "sr") == 1 ? "sr" : "");
	printf("\n");
}

static int open_file(void)
{
	int fd = open(file, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		perror(file);
		exit(1);
	}
	return fd;
}

/* The layout test: file | anon | file, advised as one range. */
static int run_layout(void)
{
	int fd = open_file(), r;
	char *base = mmap(NULL, 10 * PG, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
			  -1, 0);

	if (base == MAP_FAILED ||
	    mmap(base, 4 * PG, PROT_READ, MAP_SHARED | MAP_FIXED, fd, 0) == MAP_FAILED ||
	    mmap(base + 4 * PG, 2 * PG, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED ||
	    mmap(base + 6 * PG, 4 * PG, PROT_READ, MAP_SHARED | MAP_FIXED, fd,
		 4 * PG) == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	r = advise(base + PG, 8 * PG, fd);	/* part of each piece */
	report("layout", r, base, 0, 10);
	munmap(base, 10 * PG);
	close(fd);
	return 0;
}

static int run_once(const char *what)
{
	int fd = open_file(), r;
	long from = off_pg < 0 ? 0 : off_pg;
	long n = nr_pg < 0 ? pages - from : nr_pg;
	char *base = raw ? (char *)syscall(SYS_mmap, NULL, pages * PG, PROT_READ,
					   MAP_SHARED, fd, 0) :
		     mmap(NULL, pages * PG, PROT_READ, MAP_SHARED, fd, 0);

	if (base == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	if (remap) {
		/* Shrink-map first, then move and grow to the full size. */
		char *dst = mmap(NULL, pages * PG, PROT_NONE,
				 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (dst == MAP_FAILED ||
		    mremap(base, pages * PG, pages * PG / 2, 0) != base ||
		    mremap(base, pages * PG / 2, pages * PG,
			   MREMAP_MAYMOVE | MREMAP_FIXED, dst) != dst) {
			perror("mremap");
			return 1;
		}
		base = dst;
	}
	r = advise(base + from * PG, n * PG, fd);
	if (pause_it) {
		printf("ready %d %p\n", getpid(), (void *)base);
		fflush(stdout);
		while (getchar() != EOF)
			;
	}
	report(what, r, base, 0, pages);
	if (raw)
		syscall(SYS_munmap, base, pages * PG);
	else
		munmap(base, pages * PG);
	close(fd);
	return 0;
}

/* -D: the range the parent marks DONTFORK, in the child anonymous memory. */
static int run_dontfork(void)
{
	int fd = open_file(), r, status;
	long from = off_pg < 0 ? 0 : off_pg;
	long n = nr_pg < 0 ? pages - from : nr_pg;
	/*
	 * Free pages right above the file: the child's first mappings (the
	 * shim moves its stats page) go to the top of the highest free gap,
	 * which must not be the range the child is to map itself.
	 */
	char *res = mmap(NULL, (pages + 16) * PG, PROT_NONE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), *a;
	char *base = res == MAP_FAILED ? res :
		     mmap(res, pages * PG, PROT_READ, MAP_SHARED | MAP_FIXED, fd, 0);
	pid_t pid;

	if (base == MAP_FAILED || munmap(base + pages * PG, 16 * PG) ||
	    madvise(base + from * PG, n * PG, MADV_DONTFORK) ||
	    (dontfork > 1 && madvise(base + from * PG, n * PG, MADV_DOFORK))) {
		perror("mmap/madvise");
		return 1;
	}
	pid = fork();
	if (pid == 0) {
		a = mmap(base + from * PG, n * PG, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
		if (a == MAP_FAILED && errno != EEXIST) {
			perror("child mmap");
			_exit(1);
		}
		if (a != MAP_FAILED && a != base + from * PG) {
			fprintf(stderr, "child mmap: no MAP_FIXED_NOREPLACE\n");
			_exit(1);
		}
		r = advise(base, pages * PG, fd);
		report(a == MAP_FAILED ? "child-kept" : "child", r, base, 0, pages);
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid) {
		perror("fork");
		return 1;
	}
	munmap(base, pages * PG);
	close(fd);
	return !WIFEXITED(status) || WEXITSTATUS(status);
}

static int thread_rr_seen;
static int thread_errors;
static int threads_stop;

static void *thread_main(void *arg)
{
	long i, j;
	int fd = open_file(), rr = 0, err = 0;

	(void)arg;
	for (i = 0; i < iters || (do_fork && !__atomic_load_n(&threads_stop,
							 __ATOMIC_RELAXED)); i++) {
		char *a = mmap(NULL, 4 * PG, PROT_READ, MAP_SHARED, fd, 0);
		char *anon = mmap(NULL, 2 * PG, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (a == MAP_FAILED || anon == MAP_FAILED) {
			err++;
			continue;
		}
		if (posix_madvise(a, 4 * PG, POSIX_MADV_RANDOM) ||
		    madvise(anon, 2 * PG, MADV_DONTNEED))
			err++;
		/*
		 * Advised again, in parts: once learnt, the shim decides these
		 * without its lock (its thread view) while the other threads
		 * keep changing the table.
		 */
		for (j = 0; j < 4; j++)
			if (posix_madvise(a + (j & 1) * 2 * PG, 2 * PG,
					  POSIX_MADV_RANDOM))
				err++;
		if (i % 16 == 0 && has_flag(a + PG, "rr") == 1)
			rr++;
		/* Partial unmap, then the rest: splits in the table. */
		munmap(a + PG, PG);
		munmap(a, PG);
		munmap(a + 2 * PG, 2 * PG);
		munmap(anon, 2 * PG);
	}
	close(fd);
	__atomic_fetch_add(&thread_rr_seen, rr, __ATOMIC_RELAXED);
	__atomic_fetch_add(&thread_errors, err, __ATOMIC_RELAXED);
	return NULL;
}

/*
 * A child forked while the threads run: map, advise, report rr by exit.
 * No stdio or malloc here: the sanitizers' allocators are not fork-safe
 * (a child forked while another thread held their lock would hang, shim
 * or not).
 */
static char smaps_buf[8 << 20];

static void fork_child(void)
{
	int fd = open(file, O_RDONLY | O_CLOEXEC);
	char *a = fd < 0 ? MAP_FAILED :
		  mmap(NULL, 4 * PG, PROT_READ, MAP_SHARED, fd, 0);

	if (a == MAP_FAILED || posix_madvise(a, 4 * PG, POSIX_MADV_RANDOM))
		_exit(1);
	_exit(10 + (has_flag_nomalloc(a, "rr", smaps_buf, sizeof(smaps_buf)) == 1));
}

/* Fork 40 children while the threads run; counts by outcome. */
static void fork_storm(void)
{
	int i, st, rr = 0, hung = 0, bad = 0, waited;
	pid_t pid, r;

	for (i = 0; i < 40; i++) {
		pid = fork();
		if (pid == 0)
			fork_child();
		if (pid < 0) {
			bad++;
			continue;
		}
		for (waited = 0; (r = waitpid(pid, &st, WNOHANG)) == 0 &&
		     waited < 500; waited++)
			usleep(10000);
		if (r == 0) {
			hung++;
			kill(pid, SIGKILL);
			waitpid(pid, &st, 0);
			break;		/* one deadlock is the verdict */
		} else if (WIFEXITED(st) && WEXITSTATUS(st) >= 10) {
			rr += WEXITSTATUS(st) == 11;
		} else {
			bad++;
		}
	}
	printf("result fork_storm children=40 rr_children=%d hung=%d failed=%d\n",
	       rr, hung, bad);
}

static int run_threads(void)
{
	pthread_t t[64];
	int i;

	if (threads > 64)
		threads = 64;
	for (i = 0; i < threads; i++)
		pthread_create(&t[i], NULL, thread_main, NULL);
	if (do_fork) {
		fork_storm();
		__atomic_store_n(&threads_stop, 1, __ATOMIC_RELAXED);
	}
	for (i = 0; i < threads; i++)
		pthread_join(t[i], NULL);
	printf("result threads=%d iters=%ld rr_seen=%d errors=%d\n", threads,
	       iters, thread_rr_seen, thread_errors);
	return thread_errors != 0;
}

int main(int argc, char **argv)
{
	int c, status, ret;
	pid_t pid;

	while ((c = getopt(argc, argv, "f:l:a:P:o:n:LMrpFDt:i:")) != -1) {
		switch (c) {
		case 'f': func = optarg; break;
		case 'l': lookup = optarg; break;
		case 'a': advice = parse_advice(optarg); break;
		case 'P': pages = atol(optarg); break;
		case 'o': off_pg = atol(optarg); break;
		case 'n': nr_pg = atol(optarg); break;
		case 'L': layout = 1; break;
		case 'r': raw = 1; break;
		case 'M': remap = 1; break;
		case 'p': pause_it = 1; break;
		case 'F': do_fork = 1; break;
		case 'D': dontfork++; break;
		case 't': threads = atoi(optarg); break;
		case 'i': iters = atol(optarg); break;
		default:
			fprintf(stderr, "usage: see the comment in advprog.c\n");
			return 2;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "advprog: FILE missing\n");
		return 2;
	}
	file = argv[optind];
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (threads)
		return run_threads();
	if (layout)
		return run_layout();
	if (dontfork)
		return run_dontfork();
	ret = run_once("parent");
	{
		int *calls = dlsym(RTLD_DEFAULT, "wrapnext_calls");

		if (calls)
			printf("result wrapnext_calls=%d\n", *calls);
	}
	if (!do_fork)
		return ret;
	pid = fork();
	if (pid == 0)
		_exit(run_once("child"));
	waitpid(pid, &status, 0);
	return ret || !WIFEXITED(status) || WEXITSTATUS(status);
}
