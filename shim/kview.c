// SPDX-License-Identifier: MIT
/*
 * kview.c - the kernel's view of one address: which VMA covers it (or
 * comes next) and which file backs it.
 *
 * Used for madvise ranges the table does not know (mapped before the shim
 * initialised, or by raw syscalls).  Linux 6.11+ answers with the
 * PROCMAP_QUERY ioctl on /proc/self/maps in one call; older kernels get
 * /proc/self/maps parsed through a stack buffer.  No malloc, no fd kept
 * (a daemon closing every descriptor must not break us).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/sysmacros.h>

#include "common/procmap.h"
#include "common/smaps.h"
#include "shim/calls.h"

static int no_procmap_query;	/* set once the ioctl is known missing */

/* *@out from a maps line or the ioctl's answer (@v->path may be out's). */
static void fill(struct kview_vma *out, const struct smaps_vma *v)
{
	size_t n;

	out->start = (uintptr_t)v->start;
	out->end = (uintptr_t)v->end;
	out->dev = makedev(v->dev_major, v->dev_minor);
	out->ino = (ino_t)v->inode;
	n = v->path_len < sizeof(out->path) ? v->path_len : sizeof(out->path) - 1;
	memmove(out->path, v->path, n);
	out->path[n] = '\0';
}

static int query_ioctl(int fd, uintptr_t addr, struct kview_vma *out)
{
	struct smaps_vma v;

	if (procmap_vma(fd, addr, out->path, sizeof(out->path), &v))
		return -1;
	fill(out, &v);
	return 0;
}

/*
 * One maps line (common/smaps.c parses it); returns 0 if it covers or
 * follows @addr (filled in).
 */
static int parse_line(const char *l, uintptr_t addr, struct kview_vma *out)
{
	struct smaps_vma v;

	if (smaps_header(l, strlen(l), &v) || v.end <= addr)
		return -1;
	fill(out, &v);
	return 0;
}

static int query_maps(int fd, uintptr_t addr, struct kview_vma *out)
{
	char buf[8192];
	size_t have = 0;
	ssize_t n;
	char *nl, *line;

	for (;;) {
		n = syscall(SYS_read, fd, buf + have, sizeof(buf) - 1 - have);
		if (n < 0)
			return -1;
		have += (size_t)n;
		buf[have] = '\0';
		line = buf;
		while ((nl = strchr(line, '\n'))) {
			*nl = '\0';
			if (!parse_line(line, addr, out))
				return 0;
			line = nl + 1;
		}
		if (n == 0) {
			errno = ENOENT;
			return -1;
		}
		have = (size_t)(buf + have - line);
		if (have == sizeof(buf) - 1)
			have = 0;	/* absurd line: drop it */
		memmove(buf, line, have);
	}
}

/* kview_query - see shim.h. */
int kview_query(uintptr_t addr, struct kview_vma *out)
{
	int fd, ret;

	STAT_INC(fallbacks);
	fd = (int)syscall(SYS_openat, AT_FDCWD, "/proc/self/maps",
			  O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ret = -1;
	if (!__atomic_load_n(&no_procmap_query, __ATOMIC_RELAXED)) {
		ret = query_ioctl(fd, addr, out);
		if (ret && errno == ENOTTY)
			__atomic_store_n(&no_procmap_query, 1, __ATOMIC_RELAXED);
		else if (ret && errno == ENOENT)
			goto out;
	}
	if (ret)
		ret = query_maps(fd, addr, out);
out:
	sys_close(fd);
	return ret;
}

void kview_force_maps(void)
{
	__atomic_store_n(&no_procmap_query, 1, __ATOMIC_RELAXED);
}
