// SPDX-License-Identifier: MIT
/*
 * files.c - file identity and the decision cache, keyed by (dev, ino).
 *
 * A file's rule is looked up once (policy_match on its path) and kept
 * while any mapping of it lives.  When the last mapping goes the entry
 * moves to an idle list so re-mapping the same file stays cheap; the list
 * is capped (oldest dropped first).  A reused inode number is noticed by
 * its ctime and the entry refreshed.
 *
 * Locking (contracts in shim.h): files_find and files_fresh read with
 * shim.lock held in either mode; files_store, files_get and files_put
 * change entries with it held for writing; files_name_fd takes no lock
 * (readlink and the policy's glob match, the slow part of a new file, run
 * outside it).  Callers take and release the lock themselves.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>

#include "shim/calls.h"

int files_oom;

struct shim_file *files_find(dev_t dev, ino_t ino)
{
	struct file_key key;
	struct shim_file *f;

	memset(&key, 0, sizeof(key));
	key.dev = dev;
	key.ino = ino;
	HASH_FIND(hh, shim.files, &key, sizeof(key), f);
	return f;
}

static int set_path(struct shim_file *f, const char *path)
{
	size_t need = strlen(path) + 1;
	char *p;

	if (need > f->path_size) {
		p = slab_alloc(need);
		if (!p)
			return -1;
		slab_free(f->path, f->path_size);
		f->path = p;
		f->path_size = need;
	}
	memcpy(f->path, path, need);
	return 0;
}

static void idle_unlink(struct shim_file *f)
{
	if (f->idle_prev)
		f->idle_prev->idle_next = f->idle_next;
	else if (shim.idle_head == f)
		shim.idle_head = f->idle_next;
	else
		return;		/* not on the list */
	if (f->idle_next)
		f->idle_next->idle_prev = f->idle_prev;
	else
		shim.idle_tail = f->idle_prev;
	f->idle_prev = f->idle_next = NULL;
	shim.nr_idle--;
}

static void file_free(struct shim_file *f)
{
	HASH_DELETE(hh, shim.files, f);
	slab_free(f->path, f->path_size);
	slab_free(f, sizeof(*f));
	STAT_SET(files_known, HASH_COUNT(shim.files));
}

static void idle_push(struct shim_file *f)
{
	f->idle_prev = shim.idle_tail;
	f->idle_next = NULL;
	if (shim.idle_tail)
		shim.idle_tail->idle_next = f;
	else
		shim.idle_head = f;
	shim.idle_tail = f;
	if (++shim.nr_idle > FILES_IDLE_MAX) {
		struct shim_file *old = shim.idle_head;

		idle_unlink(old);
		file_free(old);
	}
}

static struct shim_file *files_add(const struct stat *st, const char *path,
				   const struct policy_rule *rule)
{
	struct shim_file *f = slab_alloc(sizeof(*f));

	if (!f)
		return NULL;
	f->key.dev = st->st_dev;
	f->key.ino = st->st_ino;
	f->ctime = st->st_ctim;
	f->size = st->st_size;
	f->rule = rule;
	if (set_path(f, path)) {
		slab_free(f, sizeof(*f));
		return NULL;
	}
	files_oom = 0;
	HASH_ADD(hh, shim.files, key, sizeof(f->key), f);
	if (files_oom) {
		slab_free(f->path, f->path_size);
		slab_free(f, sizeof(*f));
		return NULL;
	}
	STAT_SET(files_known, HASH_COUNT(shim.files));
	idle_push(f);		/* until a mapping takes a reference */
	return f;
}

static bool files_stale(const struct shim_file *f, const struct stat *st)
{
	return f->ctime.tv_sec != st->st_ctim.tv_sec ||
	       f->ctime.tv_nsec != st->st_ctim.tv_nsec;
}

static int files_update(struct shim_file *f, const struct stat *st,
			const char *path, const struct policy_rule *rule)
{
	if (set_path(f, path))
		return -1;
	f->ctime = st->st_ctim;
	f->size = st->st_size;
	f->rule = rule;
	__atomic_store_n(&f->logged, 0, __ATOMIC_RELAXED);
	gen_bump();		/* views may hold the old rule */
	return 0;
}

/* The entry behind a table reference (its low bits: the range's tag). */
static struct shim_file *untag(void *p)
{
	return (struct shim_file *)((uintptr_t)p & ~ASKED_MASK);
}

void files_get(void *p)
{
	struct shim_file *f = untag(p);

	if (f->refs++ == 0)
		idle_unlink(f);
}

void files_put(void *p)
{
	struct shim_file *f = untag(p);

	if (--f->refs == 0)
		idle_push(f);
}

/* The path the kernel reports for @fd into @buf; its length or -1. */
static int fd_path(int fd, char *buf, size_t size)
{
	char link[32];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = syscall(SYS_readlink, link, buf, size - 1);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	return (int)n;
}

void files_name_fd(int fd, struct file_name *out)
{
	if (fd_path(fd, out->path, sizeof(out->path)) < 0)
		out->path[0] = '\0';
	out->rule = out->path[0] == '/' ? policy_match(shim.policy, out->path) :
					   NULL;
}

struct shim_file *files_fresh(const struct stat *st)
{
	struct shim_file *f = files_find(st->st_dev, st->st_ino);

	return f && !files_stale(f, st) ? f : NULL;
}

struct shim_file *files_store(const struct stat *st, const char *path,
			      const struct policy_rule *rule)
{
	struct shim_file *f = files_find(st->st_dev, st->st_ino);

	if (f && !files_stale(f, st))
		return f;	/* another thread stored it meanwhile */
	if (!f)
		f = files_add(st, path, rule);
	else if (files_update(f, st, path, rule))
		f = NULL;
	if (!f)
		STAT_INC(errors);
	return f;
}
