// SPDX-License-Identifier: MIT
/*
 * shim_bench.c - what the shim costs on the calls it intercepts.
 *
 * usage: shim_bench [ROUNDS [MAPS [OPS]]]
 *   ROUNDS  rounds per operation (3..101, default 31)
 *   MAPS    live file mappings registered first (1000..1000000, default
 *           100000)
 *   OPS     comma-separated operation names to run in that order
 *           (default: all), e.g. "anon,dontneed" (names below)
 * (run it with and without libadvshim.so preloaded; bench/shim_bench.sh
 * does both, for 10k and 100k mappings, five times each)
 *
 * First registers MAPS live file mappings: MAPS one-page mmap() calls of
 * a sparse file into one reserved area at consecutive offsets (the kernel
 * merges them into one VMA, so vm.max_map_count is no limit, while the
 * shim's table holds MAPS ranges).  Then, per operation, alternates
 * rounds of A = the raw system call (syscall(2), never intercepted) and
 * B = the libc entry point (through the shim when it is preloaded) in
 * one process, and prints the median ns/op of each and B/A.
 *
 * Operations (OPS name: what):
 *   anon: anon mmap+munmap  4 pages, MAP_ANONYMOUS
 *   dontneed: madvise DONTNEED anon  16 untouched pages (pure call cost)
 *   hints: madvise RANDOM/NORMAL anon  alternately on one 1 MiB anonymous
 *                           range (advice the adaptive default examines:
 *                           the kernel's "no file" answer remembered)
 *   registered: posix_madvise RANDOM  one of 64 pages of a registered file
 *                           mapping (the shim rewrites it: table lookup +
 *                           policy; A issues the NORMAL the shim sends)
 *   same: posix_madvise same  the same registered page every time (a
 *                           thread's last hit is remembered)
 *   any: posix_madvise any  one of all MAPS registered pages, far apart
 *                           (a full descent of the table every time)
 *   willneed: posix_madvise WILLNEED  one of 64 registered pages, advice
 *                           no rule acts on (Lucene's prefetch under the
 *                           default policy): a counter and the real call
 *   file: file mmap+munmap  4 pages of the already-seen file
 *   dlsym: dlsym RTLD_DEFAULT  "fstat" (A: libc's dlsym, via dlopen)
 * Timing goals are in the README; nothing here passes or fails.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define PG		4096L
#define MAX_ROUNDS	101

static long nr_maps = 100000;
static int fd;
static char *area, *anon16, *anon1m;
static void *(*libc_dlsym)(void *, const char *);
static volatile uintptr_t sink;

/*
 * This thread's CPU time (user + system): on a shared machine preemption
 * by other work would otherwise dominate the differences measured here.
 */
static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* One op, variant 0 = raw syscall (A), 1 = libc entry point (B). */
typedef void (*op_fn)(int variant, long i);

static void op_anon(int v, long i)
{
	void *p;

	(void)i;
	if (!v) {
		p = (void *)syscall(SYS_mmap, NULL, 4 * PG, PROT_READ | PROT_WRITE,
				    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		syscall(SYS_munmap, p, 4 * PG);
	} else {
		p = mmap(NULL, 4 * PG, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		munmap(p, 4 * PG);
	}
}

static void op_dontneed(int v, long i)
{
	(void)i;
	if (!v)
		syscall(SYS_madvise, anon16, 16 * PG, MADV_DONTNEED);
	else
		madvise(anon16, 16 * PG, MADV_DONTNEED);
}

/* Read hints on anonymous memory, as a JIT or a database's heap sends. */
static void op_anon_hints(int v, long i)
{
	int advice = i & 1 ? MADV_NORMAL : MADV_RANDOM;

	if (!v)
		syscall(SYS_madvise, anon1m, 256 * PG, advice);
	else
		madvise(anon1m, 256 * PG, advice);
}

/*
 * One page of a registered mapping: A = the raw madvise(@raw) (what the
 * shim issues), B = posix_madvise(@advice) through the entry point.
 */
static void advise_page(int v, char *p, int raw, int advice)
{
	if (!v)
		syscall(SYS_madvise, p, PG, raw);
	else
		posix_madvise(p, PG, advice);
}

/*
 * Both variants advise the same registered pages.  The shim rewrites
 * RANDOM to NORMAL, so A issues NORMAL: the kernel does the same work
 * and B/A is the shim's own cost (table lookup among 100k ranges, policy
 * decision, counters).  Without the shim B really issues RANDOM.
 */
static void op_posix_madvise(int v, long i)
{
	advise_page(v, area + (i * 7 % 64) * PG, POSIX_MADV_NORMAL,
		    POSIX_MADV_RANDOM);
}

/*
 * Any of the 100k registered mappings, far from the previous one: no
 * per-thread state helps, every call descends the table (cold, since the
 * system call in between evicts it from the first-level cache).
 */
static void op_posix_madvise_spread(int v, long i)
{
	advise_page(v, area + (i * 40503 % nr_maps) * PG, POSIX_MADV_NORMAL,
		    POSIX_MADV_RANDOM);
}

/* The same mapping advised again and again (advice flips at runtime). */
static void op_posix_madvise_same(int v, long i)
{
	(void)i;
	advise_page(v, area + 4242 * PG, POSIX_MADV_NORMAL, POSIX_MADV_RANDOM);
}

/* Advice the default policy does not act on: counted, passed on. */
static void op_posix_madvise_willneed(int v, long i)
{
	advise_page(v, area + (i * 7 % 64) * PG, POSIX_MADV_WILLNEED,
		    POSIX_MADV_WILLNEED);
}

static void op_file(int v, long i)
{
	void *p;

	(void)i;
	if (!v) {
		p = (void *)syscall(SYS_mmap, NULL, 4 * PG, PROT_READ, MAP_SHARED,
				    fd, 0);
		syscall(SYS_munmap, p, 4 * PG);
	} else {
		p = mmap(NULL, 4 * PG, PROT_READ, MAP_SHARED, fd, 0);
		munmap(p, 4 * PG);
	}
}

static void op_dlsym(int v, long i)
{
	(void)i;
	sink += (uintptr_t)(v ? dlsym(RTLD_DEFAULT, "fstat") :
			       libc_dlsym(RTLD_DEFAULT, "fstat"));
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return v[n / 2];
}

static void measure(const char *name, op_fn op, long batch, int rounds,
		    const char *goal)
{
	double t[2][MAX_ROUNDS], start, a, b, amin, bmin;
	int r, v;
	long i;

	for (i = 0; i < batch / 10; i++) {	/* warm both paths */
		op(0, i);
		op(1, i);
	}
	for (r = 0; r < rounds; r++) {
		/* Alternate which variant goes first, to cancel drift. */
		for (v = 0; v < 2; v++) {
			int which = (r & 1) ? 1 - v : v;

			start = now_ns();
			for (i = 0; i < batch; i++)
				op(which, i);
			t[which][r] = (now_ns() - start) / batch;
		}
	}
	a = median(t[0], rounds);	/* sorts: [0] is the minimum */
	b = median(t[1], rounds);
	amin = t[0][0];
	bmin = t[1][0];
	printf("%-26s %9.1f %9.1f %7.3fx %7.3fx   %s\n", name, a, b, b / a,
	       bmin / amin, goal);
}

static int setup(void)
{
	char path[] = "/tmp/advshim-bench.XXXXXX";
	void *h;
	long i;

	fd = mkstemp(path);
	if (fd < 0 || ftruncate(fd, nr_maps * PG)) {
		perror("bench file");
		return -1;
	}
	unlink(path);		/* nothing left behind */
	area = mmap(NULL, nr_maps * PG, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
		    -1, 0);
	if (area == MAP_FAILED)
		return -1;
	for (i = 0; i < nr_maps; i++)
		if (mmap(area + i * PG, PG, PROT_READ, MAP_SHARED | MAP_FIXED, fd,
			 i * PG) == MAP_FAILED) {
			perror("mmap");
			return -1;
		}
	anon16 = mmap(NULL, 16 * PG, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	anon1m = mmap(NULL, 256 * PG, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	h = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
	libc_dlsym = h ? (void *(*)(void *, const char *))dlsym(h, "dlsym") : NULL;
	if (anon16 == MAP_FAILED || anon1m == MAP_FAILED || !libc_dlsym)
		return -1;
	return 0;
}

struct bench_op {
	const char *key, *name;
	op_fn fn;
	long batch;
	const char *goal;
};

static const struct bench_op ops[] = {
	{ "anon", "anon mmap+munmap", op_anon, 2000, "<= 1.03x" },
	{ "dontneed", "madvise DONTNEED anon", op_dontneed, 20000, "<= 1.03x" },
	{ "hints", "madvise RANDOM/NORMAL anon", op_anon_hints, 20000, "<= 1.05x" },
	{ "registered", "posix_madvise registered", op_posix_madvise, 20000, "<= 1.05x" },
	{ "same", "posix_madvise same range", op_posix_madvise_same, 20000, "<= 1.05x" },
	{ "any", "posix_madvise any range", op_posix_madvise_spread, 20000,
	  "none (cold descent, ~2x)" },
	{ "willneed", "posix_madvise WILLNEED", op_posix_madvise_willneed, 20000, "<= 1.05x" },
	{ "file", "file mmap+munmap (seen)", op_file, 2000, "<= 1.5x" },
	{ "dlsym", "dlsym RTLD_DEFAULT", op_dlsym, 20000, "<= 1.05x" },
};

/*
 * Run the operations named in the comma-separated @list, in its order
 * (NULL or empty: all, in table order); returns -1 on an unknown name.
 */
static int run_ops(const char *list, int rounds)
{
	const size_t nr = sizeof(ops) / sizeof(ops[0]);
	const char *p = list;
	size_t k, n;

	if (!list || !*list) {
		for (k = 0; k < nr; k++)
			measure(ops[k].name, ops[k].fn, ops[k].batch, rounds,
				ops[k].goal);
		return 0;
	}
	while (*p) {
		n = strcspn(p, ",");
		for (k = 0; k < nr; k++)
			if (strlen(ops[k].key) == n && !strncmp(p, ops[k].key, n))
				break;
		if (k == nr) {
			fprintf(stderr, "shim_bench: no operation '%.*s'\n", (int)n, p);
			return -1;
		}
		measure(ops[k].name, ops[k].fn, ops[k].batch, rounds, ops[k].goal);
		p += n + (p[n] == ',');
	}
	return 0;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 31;
	const char *list = argc > 3 ? argv[3] : NULL;
	const char *pre = getenv("LD_PRELOAD");

	if (rounds < 3 || rounds > MAX_ROUNDS)
		rounds = 31;
	if (argc > 2)
		nr_maps = atol(argv[2]);
	if (nr_maps < 1000 || nr_maps > 1000000) {
		fprintf(stderr, "shim_bench: MAPS must be 1000..1000000\n");
		return 2;
	}
	if (setup())
		return 1;
	printf("B = libc entry point %s; %ld file mappings registered; %d rounds, median CPU ns/op (min B/A: ratio of the fastest rounds)\n",
	       pre && strstr(pre, "libadvshim") ? "through libadvshim.so" : "(no shim)",
	       nr_maps, rounds);
	printf("%-26s %9s %9s %8s %8s   %s\n", "operation", "A raw", "B entry",
	       "B/A", "min B/A", "goal (shim)");
	return run_ops(list, rounds) ? 2 : 0;
}
