// SPDX-License-Identifier: MIT
/*
 * load_file.c - test files: create with random content, open, clocks.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "tools/load/load.h"
#include "tools/load/zipf.h"

uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t majflt_self(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru))
		return 0;
	return (uint64_t)ru.ru_majflt;
}

static int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Write @size random bytes to a temporary name, then rename it into place,
 * so an interrupted creation never leaves a short file behind. */
static int create_file(const char *path, uint64_t size, uint64_t seed)
{
	enum { CHUNK = 1 << 20 };
	char tmp[4096];
	uint64_t *buf, left = size;
	struct rng r;
	int fd, saved;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, (int)getpid()) >=
	    (int)sizeof(tmp)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	buf = malloc(CHUNK);
	if (!buf)
		return -1;
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0) {
		free(buf);
		return -1;
	}
	rng_seed(&r, seed ^ 0xf11e5eedULL);
	while (left) {
		size_t n = left < CHUNK ? (size_t)left : CHUNK;

		for (size_t i = 0; i < CHUNK / 8; i++)
			buf[i] = rng_next(&r);
		if (write_all(fd, buf, n))
			goto fail;
		left -= n;
	}
	if (fsync(fd) || close(fd)) {
		fd = -1;
		goto fail;
	}
	free(buf);
	if (rename(tmp, path)) {
		saved = errno;
		unlink(tmp);
		errno = saved;
		return -1;
	}
	return 0;
fail:
	saved = errno;
	if (fd >= 0)
		close(fd);
	unlink(tmp);
	free(buf);
	errno = saved;
	return -1;
}

int load_open_file(const char *path, uint64_t size, uint64_t seed,
		   uint64_t *st_size)
{
	struct stat st;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT && size) {
		if (create_file(path, size, seed) && errno != EEXIST) {
			fprintf(stderr, "advshim-load: cannot create %s: %s\n",
				path, strerror(errno));
			return -1;
		}
		fd = open(path, O_RDONLY | O_CLOEXEC);
	}
	if (fd < 0) {
		fprintf(stderr, "advshim-load: cannot open %s: %s%s\n", path,
			strerror(errno), errno == ENOENT ?
			" (give --size to create it)" : "");
		return -1;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		fprintf(stderr, "advshim-load: %s: not a regular file\n", path);
		close(fd);
		return -1;
	}
	if (size && (uint64_t)st.st_size != size) {
		fprintf(stderr, "advshim-load: %s exists with %llu bytes, not the %llu of --size (remove it or drop --size)\n",
			path, (unsigned long long)st.st_size,
			(unsigned long long)size);
		close(fd);
		return -1;
	}
	if (st.st_size == 0) {
		fprintf(stderr, "advshim-load: %s is empty\n", path);
		close(fd);
		return -1;
	}
	*st_size = (uint64_t)st.st_size;
	return fd;
}
