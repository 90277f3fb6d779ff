// SPDX-License-Identifier: MIT
/*
 * seccomp_target.c - what the supervisor reads of a notified process:
 * the mapping behind an address (the PROCMAP_QUERY ioctl on its maps
 * file, Linux 6.11+, else the maps text), its thread group, start time,
 * major faults and executable, and the file behind a descriptor.
 *
 * Everything is read through /proc/TID of the notified thread: the
 * supervisor runs as the user who started `advshim run` and was that
 * process's own child, so ptrace access checks (PTRACE_MODE_READ) pass
 * as for any process of the same user.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/procmap.h"
#include "common/readbuf.h"
#include "common/smaps.h"
#include "tools/cli/seccomp.h"

int sect_maps_open(pid_t tid)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	return fd;
}

/* *@v from a maps line or the ioctl's answer (@m->path may be v's). */
static void vma_fill(struct sect_vma *v, const struct smaps_vma *m)
{
	v->start = m->start;
	v->end = m->end;
	v->inode = m->inode;
	v->dev_major = m->dev_major;
	v->dev_minor = m->dev_minor;
	if (m->path_len && m->path_len < sizeof(v->path)) {
		memmove(v->path, m->path, m->path_len);
		v->path[m->path_len] = '\0';
	} else {
		v->path[0] = '\0';
	}
}

/* The ioctl: 1, 0 (none above @addr), -ENOTTY/-EINVAL (no ioctl), ... */
static int vma_query(int fd, uint64_t addr, struct sect_vma *v)
{
	struct smaps_vma m;
	int r = procmap_vma(fd, addr, v->path, sizeof(v->path), &m);

	if (r)
		return r == -ENOENT ? 0 : r;
	vma_fill(v, &m);
	return 1;
}

/* Read all of @fd (from offset 0) into a malloc'd buffer; its length. */
static ssize_t slurp(int fd, char **out)
{
	size_t cap = 64 << 10, len = 0;
	char *buf = malloc(cap), *nb;
	ssize_t n;

	if (!buf)
		return -ENOMEM;
	for (;;) {
		if (len == cap) {
			if (cap >= (64u << 20)) {
				free(buf);
				return -EFBIG;
			}
			nb = realloc(buf, cap * 2);
			if (!nb) {
				free(buf);
				return -ENOMEM;
			}
			buf = nb;
			cap *= 2;
		}
		n = pread(fd, buf + len, cap - len, (off_t)len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			n = -errno;
			free(buf);
			return n;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	*out = buf;
	return (ssize_t)len;
}

/* The maps text: the first mapping ending above @addr. */
static int vma_text(int fd, uint64_t addr, struct sect_vma *v)
{
	struct smaps_cursor c;
	struct smaps_vma m;
	char *buf = NULL;
	ssize_t len = slurp(fd, &buf);
	int r;

	if (len < 0)
		return (int)len;
	if (!len) {
		/* A live process has mappings: this file's mm is gone (exec). */
		free(buf);
		return -ESRCH;
	}
	smaps_begin(&c, buf, (size_t)len);
	while ((r = smaps_next(&c, &m)) == 1) {
		if (m.end <= addr)
			continue;
		vma_fill(v, &m);
		break;
	}
	free(buf);
	return r < 0 ? -EINVAL : r;
}

int sect_vma_at(int maps_fd, uint64_t addr, struct sect_vma *v,
		bool *no_query)
{
	int r;

	if (!*no_query) {
		r = vma_query(maps_fd, addr, v);
		if (r != -ENOTTY && r != -EINVAL)
			return r;
		*no_query = true;
	}
	return vma_text(maps_fd, addr, v);
}

/* The unsigned decimal after the @n-th space-separated field of @s. */
static uint64_t field_after(const char *s, int n)
{
	while (n-- > 0 && s) {
		s = strchr(s, ' ');
		if (s)
			s++;
	}
	return s ? strtoull(s, NULL, 10) : 0;
}

int sect_proc_read(pid_t tid, struct sect_proc *p)
{
	char path[64], buf[4096], exe[4096];
	const char *t, *rp;
	ssize_t n;

	memset(p, 0, sizeof(*p));
	snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
	n = read_buf(path, buf, sizeof(buf));
	if (n < 0)
		return n == -ENOENT ? -ESRCH : (int)n;
	t = strstr(buf, "\nTgid:");
	if (!t)
		return -EINVAL;
	p->tgid = (pid_t)strtol(t + 6, NULL, 10);
	/* stat: "PID (COMM) S ..." - COMM may hold spaces and ')'. */
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)p->tgid);
	n = read_buf(path, buf, sizeof(buf));
	if (n < 0)
		return n == -ENOENT ? -ESRCH : (int)n;
	rp = strrchr(buf, ')');
	if (!rp || rp[1] != ' ')
		return -EINVAL;
	/* After ") ": field 3 (state) is index 0; 12 majflt, 22 starttime. */
	p->majflt = field_after(rp + 2, 12 - 3);
	p->start_time = field_after(rp + 2, 22 - 3);
	snprintf(path, sizeof(path), "/proc/%d/exe", (int)p->tgid);
	n = readlink(path, exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		t = strrchr(exe, '/');
		t = t ? t + 1 : exe;
		if (strlen(t) < sizeof(p->exe))
			memcpy(p->exe, t, strlen(t) + 1);
	}
	return 0;
}

int sect_fd_path(pid_t tid, int fd, char *buf, size_t size, uint64_t *dev,
		 uint64_t *ino)
{
	char path[64];
	struct stat st;
	ssize_t n;

	if (fd < 0)
		return -EBADF;
	snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)tid, fd);
	n = readlink(path, buf, size - 1);
	if (n < 0)
		return errno == ENOENT ? -EBADF : -errno;
	buf[n] = '\0';
	if (stat(path, &st))
		return -errno;
	*dev = (uint64_t)st.st_dev;
	*ino = (uint64_t)st.st_ino;
	return 0;
}
