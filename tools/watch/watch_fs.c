// SPDX-License-Identifier: MIT
/*
 * watch_fs.c - the watcher's kernel I/O through configurable roots.
 *
 * lru_gen and lru_gen_full are kept open and re-read from offset 0 each
 * poll (seq_file restarts the walk); buffers are reused so a poll does
 * not allocate.  Commands go out through a fresh O_WRONLY|O_APPEND open
 * and exactly one write(2): debugfs ignores O_APPEND and the file offset
 * (lru_gen_seq_write never looks at *pos), while a fixture file then
 * collects the commands at its end for the test player to read.
 * O_NONBLOCK keeps a fixture FIFO without a reader from hanging us.
 */
#include "tools/watch/watch.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/guard.h"
#include "common/readfile.h"

struct fs_buf {
	char *p;
	size_t cap;
};

struct watch_fs {
	char lrugen[PATH_MAX];
	char lrugen_full[PATH_MAX];
	char enabled[PATH_MAX];
	char lockdown_path[PATH_MAX];
	char memcg_root[PATH_MAX];
	int fd[2];			/* lru_gen, lru_gen_full */
	struct fs_buf buf[2], stat, small;
	char lockdown_mode[32];
};

/* Read @fd from offset 0 to EOF into @b; the length, or -1 with errno. */
static ssize_t read_all(int fd, struct fs_buf *b)
{
	size_t used = 0;
	ssize_t n;

	if (lseek(fd, 0, SEEK_SET) < 0)
		return -1;
	for (;;) {
		if (used + 1 >= b->cap) {
			size_t ncap = b->cap ? b->cap * 2 : 65536;
			char *np;

			if (ncap > (256u << 20)) {
				errno = EFBIG;
				return -1;
			}
			np = realloc(b->p, ncap);
			if (!np)
				return -1;
			b->p = np;
			b->cap = ncap;
		}
		n = read(fd, b->p + used, b->cap - used - 1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (!n)
			break;
		used += (size_t)n;
	}
	b->p[used] = '\0';
	return (ssize_t)used;
}

static int read_path(const char *path, struct fs_buf *b, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), saved;
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read_all(fd, b);
	saved = errno;
	close(fd);
	if (n < 0) {
		errno = saved;
		return -1;
	}
	*len = (size_t)n;
	return 0;
}

static int fs_read_lrugen(void *ctx, bool full, const char **buf,
			  size_t *len)
{
	struct watch_fs *fs = ctx;
	int i = full ? 1 : 0;
	ssize_t n;

	if (fs->fd[i] < 0) {
		fs->fd[i] = open(full ? fs->lrugen_full : fs->lrugen,
				 O_RDONLY | O_CLOEXEC);
		if (fs->fd[i] < 0)
			return -1;
	}
	n = read_all(fs->fd[i], &fs->buf[i]);
	if (n < 0) {
		int saved = errno;

		/* reopen next time: the file may have been replaced */
		close(fs->fd[i]);
		fs->fd[i] = -1;
		errno = saved;
		return -1;
	}
	*buf = fs->buf[i].p;
	*len = (size_t)n;
	return 0;
}

static int fs_write_cmd(void *ctx, const char *cmd, size_t len)
{
	struct watch_fs *fs = ctx;
	int fd, saved = 0;
	ssize_t n;

	fd = open(fs->lrugen, O_WRONLY | O_APPEND | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -1;
	do {
		n = write(fd, cmd, len);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		saved = errno;
	else if ((size_t)n != len)
		saved = EIO;
	close(fd);
	if (saved) {
		errno = saved;
		return -1;
	}
	return 0;
}

static int fs_read_enabled(void *ctx)
{
	struct watch_fs *fs = ctx;
	unsigned long v;
	size_t len;
	char *end;

	if (read_path(fs->enabled, &fs->small, &len))
		return -1;
	v = strtoul(fs->small.p, &end, 0);
	if (end == fs->small.p)
		return -1;
	return (v & 1) ? 1 : 0;
}

/* "none [integrity] confidentiality" -> "integrity" */
static const char *fs_lockdown(void *ctx)
{
	struct watch_fs *fs = ctx;
	char *open_br, *close_br;
	size_t len;

	if (read_path(fs->lockdown_path, &fs->small, &len))
		return NULL;
	open_br = strchr(fs->small.p, '[');
	close_br = open_br ? strchr(open_br, ']') : NULL;
	if (!close_br || close_br - open_br - 1 >= (long)sizeof(fs->lockdown_mode))
		return NULL;
	memcpy(fs->lockdown_mode, open_br + 1, (size_t)(close_br - open_br - 1));
	fs->lockdown_mode[close_br - open_br - 1] = '\0';
	return fs->lockdown_mode;
}

/* The mark for the shim on memcg @path's directory below memcg_root. */
static int fs_guard(void *ctx, const char *path, bool on)
{
	struct watch_fs *fs = ctx;
	char dir[PATH_MAX];
	int r;

	if (path_join(dir, sizeof(dir), fs->memcg_root, path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	r = on ? guard_mark(dir, (uint64_t)time(NULL)) : guard_clear(dir);
	if (r) {
		errno = -r;
		return -1;
	}
	return 0;
}

/* Whether memcg @path's directory carries the mark. */
static int fs_guard_there(void *ctx, const char *path)
{
	struct watch_fs *fs = ctx;
	char dir[PATH_MAX];
	uint64_t t_s;
	int r;

	if (path_join(dir, sizeof(dir), fs->memcg_root, path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	r = guard_read(dir, &t_s);
	if (r == 0)
		return 1;
	if (r == -ENODATA || r == -EINVAL)	/* the shim sees no mark either */
		return 0;
	errno = -r;
	return -1;
}

struct watch_fs *watch_fs_new(const char *debugfs, const char *sysfs,
			      const char *memcg_root)
{
	struct watch_fs *fs = calloc(1, sizeof(*fs));

	if (!fs)
		return NULL;
	fs->fd[0] = fs->fd[1] = -1;
	if (path_join(fs->lrugen, sizeof(fs->lrugen), debugfs, "lru_gen") ||
	    path_join(fs->lrugen_full, sizeof(fs->lrugen_full), debugfs,
		      "lru_gen_full") ||
	    path_join(fs->enabled, sizeof(fs->enabled), sysfs,
		      "kernel/mm/lru_gen/enabled") ||
	    path_join(fs->lockdown_path, sizeof(fs->lockdown_path), sysfs,
		      "kernel/security/lockdown") ||
	    snprintf(fs->memcg_root, sizeof(fs->memcg_root), "%s",
		     memcg_root) >= (int)sizeof(fs->memcg_root)) {
		free(fs);
		errno = ENAMETOOLONG;
		return NULL;
	}
	return fs;
}

void watch_fs_io(struct watch_fs *fs, struct watch_io *io)
{
	io->read_lrugen = fs_read_lrugen;
	io->write_cmd = fs_write_cmd;
	io->read_enabled = fs_read_enabled;
	io->lockdown = fs_lockdown;
	io->guard = fs_guard;
	io->guard_there = fs_guard_there;
	io->ctx = fs;
	io->unwritten = NULL;
}

void watch_fs_free(struct watch_fs *fs)
{
	int i;

	if (!fs)
		return;
	for (i = 0; i < 2; i++) {
		if (fs->fd[i] >= 0)
			close(fs->fd[i]);
		free(fs->buf[i].p);
	}
	free(fs->stat.p);
	free(fs->small.p);
	free(fs);
}
