// SPDX-License-Identifier: MIT
/*
 * files.c - test files and their page cache.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tools/ab/files.h"

static int mkdirs(const char *path)
{
	char buf[4096], *p;

	if (snprintf(buf, sizeof(buf), "%s", path) >= (int)sizeof(buf))
		return errno = ENAMETOOLONG, -1;
	for (p = buf + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		if (mkdir(buf, 0755) && errno != EEXIST)
			return -1;
		*p = '/';
	}
	return 0;
}

static uint64_t mix(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static int fill(int fd, uint64_t size)
{
	enum { CHUNK = 1 << 20 };
	uint64_t *buf = malloc(CHUNK), seed = 0xadf5, left = size;

	if (!buf)
		return -1;
	while (left) {
		size_t n = left < CHUNK ? (size_t)left : CHUNK;
		const char *p = (const char *)buf;
		size_t done = 0;

		for (size_t i = 0; i < CHUNK / 8; i++)
			buf[i] = mix(&seed);
		while (done < n) {
			ssize_t w = write(fd, p + done, n - done);

			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0) {
				free(buf);
				return -1;
			}
			done += (size_t)w;
		}
		left -= n;
	}
	free(buf);
	return fsync(fd);
}

int file_ensure(const char *path, uint64_t size, char *why, size_t wsize)
{
	char tmp[4200];
	struct stat st;
	int fd;

	if (!stat(path, &st)) {
		if (!S_ISREG(st.st_mode) || (uint64_t)st.st_size != size) {
			snprintf(why, wsize, "%s exists with %lld bytes, not the %llu the experiment says (remove it)",
				 path, (long long)st.st_size, (unsigned long long)size);
			return -1;
		}
		return 0;
	}
	snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, (int)getpid());
	if (mkdirs(path) ||
	    (fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)) < 0) {
		snprintf(why, wsize, "cannot create %s: %s", path, strerror(errno));
		return -1;
	}
	if (fill(fd, size) || close(fd) || rename(tmp, path)) {
		snprintf(why, wsize, "writing %s: %s", path, strerror(errno));
		unlink(tmp);
		return -1;
	}
	return 0;
}

int resid_open(struct resid *r, const char *path)
{
	struct stat st;
	long pg = sysconf(_SC_PAGESIZE);
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	memset(r, 0, sizeof(*r));
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) || st.st_size == 0) {
		close(fd);
		return errno = errno ? errno : EINVAL, -1;
	}
	r->len = (size_t)st.st_size;
	r->map = mmap(NULL, r->len, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (r->map == MAP_FAILED) {
		r->map = NULL;
		return -1;
	}
	r->vec = malloc((r->len + (size_t)pg - 1) / (size_t)pg);
	if (!r->vec) {
		resid_close(r);
		return errno = ENOMEM, -1;
	}
	return 0;
}

int64_t resid_bytes(struct resid *r)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE), n, i;
	int64_t pages = 0;

	if (!r->map || mincore(r->map, r->len, r->vec))
		return -1;
	n = (r->len + pg - 1) / pg;
	for (i = 0; i < n; i++)
		pages += r->vec[i] & 1;
	return pages * (int64_t)pg;
}

void resid_close(struct resid *r)
{
	if (r->map)
		munmap(r->map, r->len);
	free(r->vec);
	memset(r, 0, sizeof(*r));
}

int64_t file_drop_cache(const char *path)
{
	struct resid r;
	int64_t left;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	/* Dirty pages cannot be dropped: write them back first. */
	fsync(fd);
	errno = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	close(fd);
	if (errno)
		return -1;
	if (resid_open(&r, path))
		return -1;
	left = resid_bytes(&r);
	resid_close(&r);
	return left;
}
