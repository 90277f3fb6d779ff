// SPDX-License-Identifier: MIT
/*
 * probe.c - a static program that advises with raw system calls, as Go
 * and bbolt do, for `make check-seccomp` (tests/seccomp/run.sh).  Built
 * with -static: no libc.so, no preload can reach it.
 *
 *   probe rr FILE            map FILE, madvise RANDOM; print the result and
 *                            the mapping's VmFlags rr (1/0) from smaps
 *   probe anon               the same on anonymous memory
 *   probe errors FILE        EINVAL (unaligned) and ENOMEM (a hole) of
 *                            madvise RANDOM: "einval=E enomem=E"
 *   probe fadv FILE          posix_fadvise RANDOM as fadvise64: its result
 *   probe exit N FILE        a trapped madvise, then exit N
 *   probe signal N FILE      a trapped madvise, then raise signal N
 *   probe after S FILE       sleep S seconds, then "rr FILE"
 *   probe spawn BIN FILE     fork; the child execs "BIN rr FILE"; the
 *                            parent does "rr FILE" after the child ended
 *   probe reexec BIN FILE    "rr FILE", then exec "BIN rr FILE" (same pid)
 *   probe bench N FILE       ns per call of N calls each: madvise RANDOM
 *                            (trapped), madvise NORMAL and getppid (not)
 *   probe listen             install an allow-all filter with a listener of
 *                            its own: "listener=0" or "listener=ERRNO"
 *   probe stack CMD ARGS     stack allow-all seccomp filters until the
 *                            kernel's limit on their total length
 *                            (MAX_INSNS_PER_PATH) refuses even one more
 *                            instruction, then exec CMD: a real reason for
 *                            CMD's own filter install to fail (ENOMEM)
 *
 * Output lines are "key=value ..." for the script to grep.  Exit status
 * 0, or 1 on a usage or setup error (said on stderr).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Raw madvise, as a static Go binary issues it. */
static long raw_madvise(void *p, size_t len, int advice)
{
	return syscall(SYS_madvise, p, len, advice);
}

/* "1" if smaps shows VmFlags rr on the mapping at @p, "0" if not. */
static int has_rr(void *p)
{
	char line[1024];
	unsigned long lo, hi, a = (unsigned long)p;
	int in = 0, rr = -1;
	FILE *f = fopen("/proc/self/smaps", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		/* Only a header has "HEX-HEX" ("AnonHugePages:" stops at 'n'). */
		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2) {
			in = a >= lo && a < hi;
			continue;
		}
		if (in && !strncmp(line, "VmFlags:", 8)) {
			rr = strstr(line, " rr") != NULL;
			break;
		}
	}
	fclose(f);
	return rr;
}

/* Map @path read-only shared; its length in *len.  Exits on failure. */
static void *map_file(const char *path, size_t *len)
{
	struct stat st;
	void *p;
	int fd = open(path, O_RDONLY);

	if (fd < 0 || fstat(fd, &st) || st.st_size <= 0) {
		fprintf(stderr, "probe: %s: %s\n", path, strerror(errno));
		exit(1);
	}
	*len = (size_t)st.st_size;
	p = mmap(NULL, *len, PROT_READ, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		fprintf(stderr, "probe: mmap %s: %s\n", path, strerror(errno));
		exit(1);
	}
	close(fd);
	return p;
}

static int do_rr(const char *path)
{
	size_t len;
	void *p = map_file(path, &len);
	long r = raw_madvise(p, len, MADV_RANDOM);
	int e = r ? errno : 0;

	printf("pid=%d madvise=%ld errno=%s rr=%d\n", (int)getpid(), r,
	       e ? strerrorname_np(e) : "0", has_rr(p));
	fflush(stdout);
	return 0;
}

static int do_anon(void)
{
	size_t len = 16 * 4096;
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	long r;

	if (p == MAP_FAILED)
		return 1;
	r = raw_madvise(p, len, MADV_RANDOM);
	printf("madvise=%ld rr=%d\n", r, has_rr(p));
	return 0;
}

static int do_errors(const char *path)
{
	size_t len, page = (size_t)sysconf(_SC_PAGESIZE);
	char *p = map_file(path, &len), *q;
	int einval, enomem;

	einval = raw_madvise(p + 1, page, MADV_RANDOM) ? errno : 0;
	/* Three pages, the middle one unmapped: the kernel says ENOMEM. */
	q = mmap(NULL, 3 * page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS,
		 -1, 0);
	if (q == MAP_FAILED || munmap(q + page, page))
		return 1;
	enomem = raw_madvise(q, 3 * page, MADV_RANDOM) ? errno : 0;
	printf("einval=%s enomem=%s\n", einval ? strerrorname_np(einval) : "0",
	       enomem ? strerrorname_np(enomem) : "0");
	return 0;
}

static int do_fadv(const char *path)
{
	int fd = open(path, O_RDONLY);
	long r;

	if (fd < 0)
		return 1;
	r = syscall(SYS_fadvise64, fd, 0L, 0L, POSIX_FADV_RANDOM);
	printf("fadvise=%ld errno=%s\n", r, r ? strerrorname_np(errno) : "0");
	return 0;
}

static int do_spawn(const char *bin, const char *path)
{
	pid_t c = fork();
	int st;

	if (c < 0)
		return 1;
	if (c == 0) {
		execl(bin, bin, "rr", path, (char *)NULL);
		_exit(127);
	}
	if (waitpid(c, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
		return 1;
	return do_rr(path);
}

static double ns_per(struct timespec a, struct timespec b, long n)
{
	return ((double)(b.tv_sec - a.tv_sec) * 1e9 +
		(double)(b.tv_nsec - a.tv_nsec)) / (double)n;
}

static int do_bench(long n, const char *path)
{
	struct timespec t0, t1, t2, t3;
	size_t len, page = (size_t)sysconf(_SC_PAGESIZE);
	char *p = map_file(path, &len);
	long i;

	(void)len;
	/* The untrapped calls first: nothing of the round trips before. */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < n; i++)
		raw_madvise(p, page, MADV_NORMAL);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	for (i = 0; i < n; i++)
		syscall(SYS_getppid);
	clock_gettime(CLOCK_MONOTONIC, &t2);
	for (i = 0; i < n; i++)
		raw_madvise(p, page, MADV_RANDOM);
	clock_gettime(CLOCK_MONOTONIC, &t3);
	printf("random_ns=%.0f normal_ns=%.0f getppid_ns=%.0f\n",
	       ns_per(t2, t3, n), ns_per(t0, t1, n), ns_per(t1, t2, n));
	return 0;
}

static int do_listen(void)
{
	struct sock_filter allow = BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	struct sock_fprog prog = { .len = 1, .filter = &allow };
	long fd;

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return 1;
	fd = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
		     SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
	printf("listener=%s\n", fd < 0 ? strerrorname_np(errno) : "0");
	return 0;
}

static int do_stack(char **cmd)
{
	static struct sock_filter allow[4096];
	struct sock_fprog prog = { .filter = allow };
	unsigned int i, n, total = 0;

	for (i = 0; i < 4096; i++)
		allow[i] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
							SECCOMP_RET_ALLOW);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return 1;
	for (n = 4096; n >= 1; n /= 2) {
		prog.len = (unsigned short)n;
		while (!syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog))
			total += n;
	}
	fprintf(stderr, "probe: %u instructions of filters stacked\n", total);
	execvp(cmd[0], cmd);
	return 127;
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : "";
	size_t len;
	void *p;

	if (!strcmp(cmd, "rr") && argc == 3)
		return do_rr(argv[2]);
	if (!strcmp(cmd, "anon") && argc == 2)
		return do_anon();
	if (!strcmp(cmd, "errors") && argc == 3)
		return do_errors(argv[2]);
	if (!strcmp(cmd, "fadv") && argc == 3)
		return do_fadv(argv[2]);
	if (!strcmp(cmd, "spawn") && argc == 4)
		return do_spawn(argv[2], argv[3]);
	if (!strcmp(cmd, "reexec") && argc == 4) {
		do_rr(argv[3]);
		execl(argv[2], argv[2], "rr", argv[3], (char *)NULL);
		return 127;
	}
	if (!strcmp(cmd, "bench") && argc == 4)
		return do_bench(atol(argv[2]), argv[3]);
	if (!strcmp(cmd, "listen") && argc == 2)
		return do_listen();
	if (!strcmp(cmd, "stack") && argc >= 3)
		return do_stack(argv + 2);
	if (!strcmp(cmd, "after") && argc == 4) {
		sleep((unsigned int)atoi(argv[2]));
		return do_rr(argv[3]);
	}
	if ((!strcmp(cmd, "exit") || !strcmp(cmd, "signal")) && argc == 4) {
		p = map_file(argv[3], &len);
		raw_madvise(p, len, MADV_RANDOM);
		if (!strcmp(cmd, "exit"))
			return atoi(argv[2]);
		signal(atoi(argv[2]), SIG_DFL);
		raise(atoi(argv[2]));
		return 1;
	}
	fprintf(stderr, "usage: probe rr|anon|errors|fadv|exit|signal|after|"
		"spawn|reexec|bench|listen|stack ...\n");
	return 1;
}
