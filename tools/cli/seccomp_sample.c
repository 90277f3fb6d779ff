// SPDX-License-Identifier: MIT
/*
 * seccomp_sample.c - one sample of a supervised process for its adaptive
 * rule, as the shim's sampler takes it of its own process: the memory
 * cgroup's limit, usage, page cache and refaults, the machine's
 * MemAvailable, the process's major faults, and the need and residency of
 * the files it asked RANDOM (windows spread over each, bounded work).
 * Read from outside: /proc/PID/cgroup, the cgroup's files, the files
 * through /proc/PID/root.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cgroup_read.h"
#include "common/memstat.h"
#include "common/readbuf.h"
#include "tools/cli/seccomp.h"

/* The memory cgroup of @tgid into @x (limit, usage, file, refault). */
static int read_memcg(pid_t tgid, struct adapt_sample *x)
{
	char proc[24], path[CG_PATH_MAX + 64], stat[16384];
	struct cg_where w = { 0 };
	struct cg_figures f;
	struct memstat ms;
	uint64_t total;
	ssize_t n;
	int r;

	snprintf(proc, sizeof(proc), "%d", (int)tgid);
	r = cg_locate_proc(NULL, proc, &w);
	if (!r)
		r = cg_read_figures(NULL, &w, &f);
	if (!r)
		r = cg_file_path(path, sizeof(path), NULL, w.version, w.path,
				 "memory.stat");
	if (r)
		return r;
	n = read_buf(path, stat, sizeof(stat));
	if (n == -ENOENT && !strcmp(w.path, "/")) {
		x->file = x->refault = 0;
	} else if (n < 0) {
		return (int)n;
	} else {
		if (memstat_parse(stat, (size_t)n, &ms) || !ms.has_file)
			return -EINVAL;
		x->file = ms.file_bytes;
		x->refault = ms.has_refault ? ms.refault_file : 0;
	}
	x->limit = f.limit == CG_UNLIMITED ? ADAPT_NO_LIMIT : f.limit;
	x->usage = f.usage;
	if (cg_read_meminfo(NULL, &total, &x->mem_avail))
		x->mem_avail = 0;
	return 0;
}

/*
 * The resident share of the first @need bytes of the file open as @fd,
 * from SAMPLE_WINDOWS windows of SAMPLE_PAGES pages spread evenly over
 * them (as the shim samples): mapped PROT_READ, never touched (mincore
 * faults nothing in).  Bounded work whatever the file's size.  Returns
 * the estimated resident bytes, or -1 when it cannot be mapped.
 */
#define SAMPLE_WINDOWS	64
#define SAMPLE_PAGES	4

static int64_t sample_resident(int fd, uint64_t need)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE), len, step, off;
	unsigned int w, i, in = 0, all = 0;
	unsigned char vec[SAMPLE_PAGES];
	size_t win;
	char *m;

	len = (need + page - 1) & ~(page - 1);
	if (!len)
		return 0;
	m = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED)
		return -1;
	step = len / SAMPLE_WINDOWS;
	step = step < page ? page : step & ~(page - 1);
	for (w = 0, off = 0; w < SAMPLE_WINDOWS && off < len; w++,
	     off += step) {
		win = (size_t)(len - off < SAMPLE_PAGES * page ?
			       len - off : SAMPLE_PAGES * page);
		if (mincore(m + off, win, vec))
			break;
		for (i = 0; i < (win + page - 1) / page; i++, all++)
			in += vec[i] & 1;
	}
	munmap(m, len);
	return all ? (int64_t)(need * in / all) : -1;
}

/* need and resident of @e's files, through the target's root. */
static void read_files(const struct secd_proc *e, struct adapt_sample *x)
{
	char path[600];
	struct stat st;
	int64_t cached;
	uint64_t need;
	unsigned int i;
	int fd;

	x->need = x->resident = 0;
	for (i = 0; i < e->nr_files; i++) {
		need = e->files[i].asked;
		snprintf(path, sizeof(path), "/proc/%d/root%s", (int)e->tgid,
			 e->files[i].path);
		fd = open(path, O_RDONLY | O_CLOEXEC | O_NOATIME);
		if (fd < 0)
			fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd >= 0 && !fstat(fd, &st) && S_ISREG(st.st_mode) &&
		    (uint64_t)st.st_size < need)
			need = (uint64_t)st.st_size;
		x->need += need;
		cached = fd >= 0 ? sample_resident(fd, need) : -1;
		if (cached > 0)
			x->resident += (uint64_t)cached;
		if (fd >= 0)
			close(fd);
	}
}

void secd_sample(const struct secd_proc *e, struct adapt_sample *x)
{
	struct sect_proc sp;

	x->status = read_memcg(e->tgid, x);
	read_files(e, x);
	if (!x->status)
		x->status = sect_proc_read(e->tgid, &sp);
	x->majflt = x->status ? 0 : sp.majflt;
}
