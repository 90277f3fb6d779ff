// SPDX-License-Identifier: MIT
/*
 * memcg.c - create, fill, read and remove the arms' memory cgroups.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/cgroup_read.h"
#include "common/readfile.h"
#include "tools/ab/memcg.h"

int memcg_detect(const char *cgroot, const char *parent,
		 struct memcg_root *r, char *why, size_t size)
{
	char path[PATH_MAX];
	int v;

	memset(r, 0, sizeof(*r));
	v = cg_detect_mount(cgroot, r->hier, sizeof(r->hier));
	if (v < 0) {
		if (v == -ENAMETOOLONG)
			snprintf(why, size, "cgroup root path too long");
		else
			snprintf(why, size, "no memory controller: neither cgroup v2 with \"memory\" in %s/cgroup.controllers (or %s/unified) nor a cgroup v1 memory hierarchy at %s/memory; mount one (e.g. mount -t cgroup2 none %s)",
				 cgroot, cgroot, cgroot, cgroot);
		return -1;
	}
	r->version = v;
	if (path_join(r->parent, sizeof(r->parent), r->hier,
		      parent && *parent ? parent : "")) {
		snprintf(why, size, "cgroup parent path too long");
		return -1;
	}
	if (access(r->parent, W_OK)) {
		snprintf(why, size, "cannot create memory cgroups in %s: %s (advshim-ab must run as root)",
			 r->parent, strerror(errno));
		return -1;
	}
	if (r->version == 2) {
		/* The parent must hand the memory (and io, for io.stat)
		 * controllers down; "+io" may be refused, memory may not. */
		path_join(path, sizeof(path), r->parent, "cgroup.subtree_control");
		write_file_at(NULL, path, "+memory +io", 11, 0);
		if (write_file_at(NULL, path, "+memory", 7, 0) && errno != EBUSY) {
			char *buf = NULL;

			if (read_file(path, &buf, NULL, 0) ||
			    !cg_parse_has_memory(buf, strlen(buf))) {
				snprintf(why, size, "cannot enable the memory controller in %s: %s",
					 path, strerror(errno));
				free(buf);
				return -1;
			}
			free(buf);
		}
	}
	return 0;
}

static int put(const struct memcg *m, const char *name, const char *val)
{
	char path[PATH_MAX];

	if (path_join(path, sizeof(path), m->fs, name))
		return -1;
	return write_file_at(NULL, path, val, strlen(val), 0);
}

static bool exists(const struct memcg *m, const char *name)
{
	char path[PATH_MAX];

	return !path_join(path, sizeof(path), m->fs, name) && !access(path, F_OK);
}

int memcg_create(const struct memcg_root *r, const char *name,
		 uint64_t limit, struct memcg *m, char *why, size_t size)
{
	char val[32];
	const char *lim = r->version == 2 ? "memory.max" : "memory.limit_in_bytes";

	memset(m, 0, sizeof(*m));
	m->version = r->version;
	if (path_join(m->fs, sizeof(m->fs), r->parent, name)) {
		snprintf(why, size, "memcg path too long");
		return -1;
	}
	snprintf(m->rel, sizeof(m->rel), "%s", m->fs + strlen(r->hier));
	if (!m->rel[0])
		snprintf(m->rel, sizeof(m->rel), "/");
	if (mkdir(m->fs, 0755)) {
		snprintf(why, size, "mkdir %s: %s%s", m->fs, strerror(errno),
			 errno == EEXIST ? " (left over from an earlier run? rmdir it)" : "");
		m->fs[0] = '\0';
		return -1;
	}
	snprintf(val, sizeof(val), "%llu", (unsigned long long)limit);
	if (put(m, lim, val)) {
		snprintf(why, size, "setting %s/%s to %s: %s", m->fs, lim, val,
			 strerror(errno));
		return -1;
	}
	/* No swap: v2 memory.swap.max = 0; v1 memsw limit = the limit. */
	if (r->version == 2 && exists(m, "memory.swap.max") &&
	    put(m, "memory.swap.max", "0")) {
		snprintf(why, size, "setting memory.swap.max: %s", strerror(errno));
		return -1;
	}
	if (r->version == 1 && exists(m, "memory.memsw.limit_in_bytes") &&
	    put(m, "memory.memsw.limit_in_bytes", val)) {
		snprintf(why, size, "setting memory.memsw.limit_in_bytes: %s",
			 strerror(errno));
		return -1;
	}
	m->has_io_stat = r->version == 2 && exists(m, "io.stat");
	return 0;
}

int memcg_attach_self(const struct memcg *m)
{
	char path[PATH_MAX], pid[24];
	int fd, n, ret;

	if (snprintf(path, sizeof(path), "%s/cgroup.procs", m->fs) >= (int)sizeof(path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	n = snprintf(pid, sizeof(pid), "%d", (int)getpid());
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ret = write(fd, pid, (size_t)n) == n ? 0 : -1;
	close(fd);
	return ret;
}

char *memcg_read(const struct memcg *m, const char *name)
{
	char path[PATH_MAX], *buf;

	if (path_join(path, sizeof(path), m->fs, name) ||
	    read_file(path, &buf, NULL, 0))
		return NULL;
	return buf;
}

int memcg_pids(const struct memcg *m, pid_t *pids, int max)
{
	char *buf = memcg_read(m, "cgroup.procs"), *p, *end;
	int n = 0;

	if (!buf)
		return -1;
	for (p = buf; *p; p = end) {
		long v = strtol(p, &end, 10);

		if (end == p)
			break;
		if (n < max)
			pids[n] = (pid_t)v;
		n++;
	}
	free(buf);
	return n;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

int memcg_destroy(struct memcg *m)
{
	pid_t pids[256];
	int i, n, ret = -1;

	if (!m->fs[0])
		return 0;
	/* Everything in here is ours: whatever is left gets SIGKILL. */
	for (i = 0; i < 50; i++) {
		n = memcg_pids(m, pids, 256);
		if (n <= 0)
			break;
		for (int j = 0; j < n && j < 256; j++)
			kill(pids[j], SIGKILL);
		sleep_ms(100);
	}
	/* rmdir may see EBUSY briefly while exiting tasks are reaped. */
	for (i = 0; i < 50; i++) {
		ret = rmdir(m->fs);
		if (!ret || errno == ENOENT) {
			ret = 0;
			break;
		}
		sleep_ms(100);
	}
	if (!ret)
		m->fs[0] = '\0';
	return ret;
}
