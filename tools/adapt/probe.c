// SPDX-License-Identifier: MIT
/*
 * probe.c - adapt-probe: what an unprivileged process can measure cheaply
 * about whether its files fit in its memory cgroup, printed once per
 * interval (a lab instrument for the adaptive advice, issue 13).
 *
 *   adapt-probe [-p PID] [-i MS] [-n COUNT] [-k SAMPLES] [-r ROOT] FILE...
 *
 * Per row: the memory cgroup of PID (default: self) from /proc/PID/cgroup,
 * its effective limit (the smallest of the cgroup's and its ancestors'
 * memory.max / memory.high, or v1 memory.limit_in_bytes) and usage, the
 * machine's MemTotal / MemAvailable, the FILEs' size and page-cache
 * residency by mincore over a mapping the probe makes (it touches no
 * page): all pages, and SAMPLES pages spread over each file, with the
 * time each took.  The probe maps the files without reading them, so it
 * adds nothing to the cgroup but its own few pages.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/cgroup_read.h"

#define MAX_FILES 16

struct pfile {
	const char *path;
	uint8_t *map;
	uint64_t pages;
};

static uint64_t mono_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

static uint64_t resident_all(const struct pfile *f, unsigned char *vec)
{
	uint64_t n = 0;

	if (mincore(f->map, f->pages * 4096, vec))
		return 0;
	for (uint64_t i = 0; i < f->pages; i++)
		n += vec[i] & 1;
	return n;
}

/* @k pages, one per stride at a random place in it; scaled to pages. */
static uint64_t resident_sampled(const struct pfile *f, unsigned int k)
{
	uint64_t stride = f->pages / k ? f->pages / k : 1, hits = 0, n = 0;
	unsigned char v;

	for (uint64_t p = 0; p + stride <= f->pages && n < k; p += stride, n++) {
		uint64_t pg = p + (uint64_t)rand() % stride;

		if (!mincore(f->map + pg * 4096, 4096, &v))
			hits += v & 1;
	}
	return n ? hits * f->pages / n : 0;
}

static int open_files(int argc, char **argv, struct pfile *fs)
{
	int n = 0;

	for (int i = 0; i < argc && n < MAX_FILES; i++, n++) {
		struct stat st;
		int fd = open(argv[i], O_RDONLY | O_CLOEXEC);

		if (fd < 0 || fstat(fd, &st) || st.st_size == 0) {
			fprintf(stderr, "adapt-probe: %s: %s\n", argv[i],
				fd < 0 ? strerror(errno) : "empty or unreadable");
			exit(2);
		}
		fs[n].path = argv[i];
		fs[n].pages = ((uint64_t)st.st_size + 4095) / 4096;
		fs[n].map = mmap(NULL, fs[n].pages * 4096, PROT_READ, MAP_SHARED, fd, 0);
		close(fd);
		if (fs[n].map == MAP_FAILED) {
			fprintf(stderr, "adapt-probe: mmap %s: %s\n", argv[i], strerror(errno));
			exit(2);
		}
	}
	return n;
}

/* The cgroup of @pid (0: self). */
static int locate(const char *root, int pid, struct cg_where *w)
{
	char proc[16];

	if (!pid)
		return cg_locate(root, w);
	snprintf(proc, sizeof(proc), "%d", pid);
	return cg_locate_proc(root, proc, w);
}

static void row(const char *root, int pid, struct pfile *fs, int nf,
		unsigned int k, unsigned char *vec)
{
	struct cg_where w = { 0 };
	struct cg_figures fig = { .limit = 0 };
	uint64_t total = 0, avail = 0, t0 = mono_us(), t1, t2, t3;
	uint64_t pages = 0, res = 0, sres = 0;
	char lim[32];
	int r = locate(root, pid, &w), rm;

	if (!r)
		r = cg_read_figures(root, &w, &fig);
	rm = cg_read_meminfo(root, &total, &avail);
	t1 = mono_us();
	for (int i = 0; i < nf; i++) {
		pages += fs[i].pages;
		res += resident_all(&fs[i], vec);
	}
	t2 = mono_us();
	for (int i = 0; i < nf; i++)
		sres += resident_sampled(&fs[i], k);
	t3 = mono_us();
	if (r || fig.limit == CG_UNLIMITED)
		snprintf(lim, sizeof(lim), "%s", r ? "-" : "max");
	else
		snprintf(lim, sizeof(lim), "%" PRIu64, fig.limit);
	printf("%" PRIu64 "\t%s\t%s\t%s\t%d\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64
	       "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64
	       "\t%" PRIu64 "\n", t0 / 1000,
	       r ? "-" : w.version == CG_V1 ? "v1" : "v2",
	       r ? strerror(-r) : w.path, lim, r ? -1 : fig.depth,
	       r ? 0 : fig.usage, rm ? 0 : total, rm ? 0 : avail, pages, res,
	       sres, t1 - t0, t2 - t1, t3 - t2);
}

int main(int argc, char **argv)
{
	struct pfile fs[MAX_FILES];
	unsigned int interval_ms = 1000, count = 1, k = 256;
	const char *root = NULL;
	unsigned char *vec;
	uint64_t maxpages = 0;
	int pid = 0, c, nf;

	while ((c = getopt(argc, argv, "p:i:n:k:r:")) != -1) {
		switch (c) {
		case 'p': pid = atoi(optarg); break;
		case 'i': interval_ms = (unsigned int)atoi(optarg); break;
		case 'n': count = (unsigned int)atoi(optarg); break;
		case 'k': k = (unsigned int)atoi(optarg); break;
		case 'r': root = optarg; break;
		default:
			fputs("usage: adapt-probe [-p PID] [-i MS] [-n COUNT] [-k SAMPLES] [-r ROOT] FILE...\n",
			      stderr);
			return 2;
		}
	}
	if (optind >= argc || !k) {
		fputs("adapt-probe: FILE expected\n", stderr);
		return 2;
	}
	nf = open_files(argc - optind, argv + optind, fs);
	for (int i = 0; i < nf; i++)
		if (fs[i].pages > maxpages)
			maxpages = fs[i].pages;
	vec = malloc(maxpages);
	if (!vec)
		return 1;
	srand((unsigned int)getpid());
	for (unsigned int i = 0; i < count; i++) {
		if (i)
			usleep(interval_ms * 1000);
		if (!i)
			puts("mono_ms\tcg\tcg_path\tlimit\tdepth\tusage\tmem_total\tmem_avail\tpages\tresident\tresident_sampled\tread_us\tmincore_us\tsampled_us");
		row(root, pid, fs, nf, k, vec);
		fflush(stdout);
	}
	return 0;
}
