// SPDX-License-Identifier: MIT
/*
 * doctor_proc.c - the processes `advshim doctor` reports: those with file
 * mappings the kernel has RANDOM or SEQUENTIAL advice on (smaps VmFlags
 * rr/sr: vma_has_recency() is false for both), and those with the shim
 * loaded.  Per process: its files (one row per file however often it is
 * mapped), its memory cgroup, whether the shim is mapped and in what
 * state (its stats page, as `advshim inspect` reads it), and whether
 * LD_PRELOAD could reach it at all (doctor_elf.c, AT_SECURE in auxv,
 * LD_PRELOAD in environ).  Everything below d->root/proc.
 */
#include <ctype.h>
#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/grow.h"
#include "common/readfile.h"
#include "common/smaps.h"
#include "tools/cli/cli.h"
#include "tools/cli/doctor.h"
#include "tools/cli/seccomp.h"
#include "tools/cli/shimstats.h"

/* Read @root/proc/@pid/@name whole; 0 or -1 with errno. */
static int read_proc(const struct doctor *d, int pid, const char *name,
		     char **buf, size_t *len)
{
	char rel[96];

	snprintf(rel, sizeof(rel), "/proc/%d/%s", pid, name);
	return read_file_at(d->root, rel, buf, len, 0);
}

static struct doc_file *file_for(struct doc_proc *p, const char *path,
				 uint64_t inode)
{
	struct doc_file *f;
	size_t i;

	for (i = 0; i < p->nr_files; i++)
		if (p->files[i].inode == inode && !strcmp(p->files[i].path, path))
			return &p->files[i];
	f = realloc(p->files, (p->nr_files + 1) * sizeof(*f));
	if (!f)
		return NULL;
	p->files = f;
	f = &p->files[p->nr_files];
	memset(f, 0, sizeof(*f));
	f->path = strdup(path);
	if (!f->path)
		return NULL;
	f->inode = inode;
	f->size = -1;
	p->nr_files++;
	return f;
}

/* One VMA: the shim's page or library, or an rr/sr file mapping. */
static int add_vma(struct doc_proc *p, const struct smaps_vma *v,
		   uint64_t *stats_addr)
{
	char path[DOC_PATH_MAX];
	struct doc_file *f;
	bool rr, sr;

	snprintf(path, sizeof(path), "%.*s", (int)v->path_len, v->path);
	if (strstr(path, "/memfd:" ADVSHIM_STATS_NAME)) {
		*stats_addr = v->start;
		return 0;
	}
	if (strstr(path, "libadvshim"))
		p->shim_mapped = true;
	rr = smaps_has_flag(v, "rr");
	sr = smaps_has_flag(v, "sr");
	if (!v->inode || path[0] != '/' || (!rr && !sr))
		return 0;
	f = file_for(p, path, v->inode);
	if (!f)
		return -1;
	f->vmas++;
	f->rr_vmas += rr;
	f->sr_vmas += sr;
	return 0;
}

/* The file's size as the process sees it (its root), else below ours. */
static void file_size(const struct doctor *d, int pid, struct doc_file *f)
{
	char rel[DOC_PATH_MAX + 64], path[DOC_PATH_MAX + 64];
	struct stat st;

	if (strstr(f->path, " (deleted)"))
		return;
	snprintf(rel, sizeof(rel), "/proc/%d/root%s", pid, f->path);
	if (!path_join(path, sizeof(path), d->root, rel) && !stat(path, &st) &&
	    st.st_ino == f->inode) {
		f->size = st.st_size;
		return;
	}
	if (!path_join(path, sizeof(path), d->root, f->path) && !stat(path, &st))
		f->size = st.st_size;
}

/* LD_PRELOAD in the environment names libadvshim: 1, 0, -1 unreadable. */
static int preload_of(const struct doctor *d, int pid)
{
	size_t len, off;
	char *buf;
	int r = 0;

	if (read_proc(d, pid, "environ", &buf, &len))
		return -1;
	for (off = 0; off < len; off += strlen(buf + off) + 1)
		if (!strncmp(buf + off, "LD_PRELOAD=", 11) &&
		    strstr(buf + off, "libadvshim"))
			r = 1;
	free(buf);
	return r;
}

/*
 * The supervisor of `advshim run --seccomp` over @pid: SECCOMP_ENV=PID in
 * its environment, a seccomp filter in its status, and that PID alive
 * under SECCOMP_SUPERVISOR_COMM.  Its pid, or 0.
 */
static int seccomp_of(const struct doctor *d, int pid)
{
	size_t len, off, n = strlen(SECCOMP_ENV "=");
	char *buf, *t;
	long sup = 0, filters = 0;

	if (read_proc(d, pid, "environ", &buf, &len))
		return 0;
	for (off = 0; off < len; off += strlen(buf + off) + 1)
		if (!strncmp(buf + off, SECCOMP_ENV "=", n))
			sup = strtol(buf + off + n, NULL, 10);
	free(buf);
	if (sup <= 0 || sup > INT_MAX || read_proc(d, pid, "status", &buf, NULL))
		return 0;
	t = strstr(buf, "\nSeccomp_filters:");
	if (t)
		filters = strtol(t + 17, NULL, 10);
	free(buf);
	if (filters < 1 || read_proc(d, (int)sup, "comm", &buf, NULL))
		return 0;
	buf[strcspn(buf, "\n")] = '\0';
	n = !strcmp(buf, SECCOMP_SUPERVISOR_COMM);
	free(buf);
	return n ? (int)sup : 0;
}

/* AT_SECURE from auxv: 1, 0, -1 unreadable. */
static int secure_of(const struct doctor *d, int pid)
{
	unsigned long av[2];
	size_t len, off;
	char *buf;
	int r = 0;

	if (read_proc(d, pid, "auxv", &buf, &len))
		return -1;
	for (off = 0; off + sizeof(av) <= len; off += sizeof(av)) {
		memcpy(av, buf + off, sizeof(av));
		if (av[0] == AT_SECURE)
			r = av[1] != 0;
	}
	free(buf);
	return len ? r : -1;
}

/* Executable, comm, static/Go, AT_SECURE, LD_PRELOAD: can we reach it? */
static void reach_of(const struct doctor *d, struct doc_proc *p)
{
	char rel[64], path[DOC_PATH_MAX], *comm;
	ssize_t n;

	if (!read_proc(d, p->pid, "comm", &comm, NULL)) {
		comm[strcspn(comm, "\n")] = '\0';
		snprintf(p->comm, sizeof(p->comm), "%s", comm);
		free(comm);
	}
	snprintf(rel, sizeof(rel), "/proc/%d/exe", p->pid);
	if (path_join(path, sizeof(path), d->root, rel))
		return;
	n = readlink(path, p->exe, sizeof(p->exe) - 1);
	p->exe[n > 0 ? n : 0] = '\0';
	p->preload = preload_of(d, p->pid);
	p->secure = secure_of(d, p->pid);
	p->seccomp = seccomp_of(d, p->pid);
	if (doc_elf_file(path, &p->is_static, &p->is_go))
		p->reach = p->secure == 1 ? DOC_REACH_SECURE : DOC_REACH_UNKNOWN;
	else if (p->is_go)
		p->reach = DOC_REACH_GO;
	else if (p->is_static)
		p->reach = DOC_REACH_STATIC;
	else
		p->reach = p->secure == 1 ? DOC_REACH_SECURE : DOC_REACH_PRELOAD;
}

/* Is @path @top or below it? */
static bool below(const char *path, const char *top)
{
	size_t n = strlen(top);

	if (!strcmp(top, "/"))
		return true;
	while (n > 1 && top[n - 1] == '/')
		n--;
	return !strncmp(path, top, n) && (path[n] == '\0' || path[n] == '/');
}

static bool wanted_memcg(const struct doctor *d, const struct doc_proc *p)
{
	size_t i;

	if (!d->nr_cgroups)
		return true;
	for (i = 0; !p->cg_err && i < d->nr_cgroups; i++)
		if (below(p->cg.path, d->cgroups[i]))
			return true;
	return false;
}

static void free_proc(struct doc_proc *p)
{
	size_t i;

	for (i = 0; i < p->nr_files; i++)
		free(p->files[i].path);
	free(p->files);
}

/* The shim's state, memcg path, reach and file sizes of a process. */
static int complete(struct doctor *d, struct doc_proc *p, uint64_t stats_addr)
{
	struct advshim_stats st;
	char pid_s[16];
	bool adapt;
	size_t i;

	p->shim_state = -1;
	if (stats_addr &&
	    !shimstats_read(d->root, p->pid, stats_addr, &st, &adapt,
			    &p->stats_error)) {
		p->shim_state = st.state;
		p->shim_disabled = st.disabled != 0;
		p->rewritten = st.rewritten;
	}
	snprintf(pid_s, sizeof(pid_s), "%d", p->pid);
	p->cg_err = cg_locate_proc(d->root, pid_s, &p->cg);
	reach_of(d, p);
	for (i = 0; i < p->nr_files; i++)
		file_size(d, p->pid, &p->files[i]);
	return 0;
}

static int add_proc(struct doctor *d, const struct doc_proc *p)
{
	struct doc_proc *n = grow_array(d->procs, d->nr_procs, &d->cap_procs,
					sizeof(*n), 16);

	if (!n)
		return -1;
	d->procs = n;
	d->procs[d->nr_procs++] = *p;
	return 0;
}

/* A --pid that cannot be read: a message, -2 (an error, not ENOMEM). */
static int named_error(int pid, int err)
{
	cli_smaps_error("doctor", pid, err);
	return err == ENOMEM ? -1 : -2;
}

/*
 * The process @pid (@named: by --pid): 1 kept, 0 not of interest, -1
 * ENOMEM, -2 a named process that cannot be read (after a message).
 */
static int scan_one(struct doctor *d, int pid, bool named)
{
	struct doc_proc p = { .pid = pid };
	uint64_t stats_addr = 0;
	struct smaps_cursor c;
	struct smaps_vma v;
	size_t len;
	char *buf;
	int r;

	if (read_proc(d, pid, "smaps", &buf, &len)) {
		if (named)
			return named_error(pid, errno);
		if (errno == EACCES || errno == EPERM)
			d->unreadable++;
		return errno == ENOMEM ? -1 : 0;
	}
	if (!len) {	/* a kernel thread or a zombie */
		free(buf);
		return named ? named_error(pid, ESRCH) : 0;
	}
	smaps_begin(&c, buf, len);
	while ((r = smaps_next(&c, &v)) == 1)
		if (add_vma(&p, &v, &stats_addr))
			break;
	free(buf);
	if (r == 1) {
		free_proc(&p);
		return -1;
	}
	if (!p.nr_files && !p.shim_mapped && !named)
		goto skip;
	if (complete(d, &p, stats_addr)) {
		free_proc(&p);
		return -1;
	}
	if (!wanted_memcg(d, &p))
		goto skip;
	if ((!p.cg_err && !(p.mc = doc_memcg_get(d, &p.cg))) || add_proc(d, &p)) {
		free_proc(&p);
		return -1;
	}
	return 1;
skip:
	free_proc(&p);
	return 0;
}

/* A /proc entry name that is a PID, else 0. */
static int pid_of(const char *name)
{
	char *end;
	long v;

	if (!isdigit((unsigned char)name[0]))
		return 0;
	v = strtol(name, &end, 10);
	return *end || v <= 0 || v > 0x3fffffff ? 0 : (int)v;
}

int doc_procs_scan(struct doctor *d)
{
	char path[DOC_PATH_MAX];
	struct dirent *de;
	size_t i;
	DIR *dir;
	int pid, r = 0;

	for (i = 0; i < d->nr_pids; i++) {
		r = scan_one(d, d->pids[i], true);
		if (r < 0) {
			errno = r == -1 ? ENOMEM : ESRCH;
			return -1;
		}
	}
	if (d->nr_pids)
		return 0;
	if (path_join(path, sizeof(path), d->root, "/proc") ||
	    !(dir = opendir(path))) {
		fprintf(stderr, "advshim doctor: %s: %s\n", path, strerror(errno));
		return -1;
	}
	while ((de = readdir(dir)) && r >= 0)
		if ((pid = pid_of(de->d_name)) && pid != getpid())
			r = scan_one(d, pid, false);
	closedir(dir);
	if (r < 0) {
		fprintf(stderr, "advshim doctor: out of memory\n");
		errno = ENOMEM;
		return -1;
	}
	return 0;
}

void doc_free(struct doctor *d)
{
	size_t i, j;

	for (i = 0; i < d->nr_procs; i++)
		free_proc(&d->procs[i]);
	free(d->procs);
	for (i = 0; i < d->nr_memcgs; i++)
		free(d->memcgs[i]);
	free(d->memcgs);
	for (i = 0; i < d->nr_watchers; i++) {
		for (j = 0; j < d->watchers[i].nr_cgroups; j++)
			free(d->watchers[i].cgroups[j]);
		free(d->watchers[i].cgroups);
	}
	free(d->watchers);
}
