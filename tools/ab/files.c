// SPDX-License-Identifier: MIT
/*
 * files.c - test files and dropping their page cache.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/residency.h"
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

int64_t file_drop_cache(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	/* Dirty pages cannot be dropped: write them back first. */
	fsync(fd);
	errno = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	close(fd);
	if (errno)
		return -1;
	return resid_of_path(path, NULL);
}
