// SPDX-License-Identifier: MIT
/*
 * readfile.c - whole-file reads and single-write writes through a root.
 */
#include "common/readfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define READ_FILE_DEFAULT_MAX (64u << 20)

int path_join(char *out, size_t size, const char *root, const char *rel)
{
	size_t rlen;
	int n;

	if (!root || !*root) {
		n = snprintf(out, size, "%s", rel);
	} else {
		rlen = strlen(root);
		while (rlen > 1 && root[rlen - 1] == '/')
			rlen--;
		while (*rel == '/')
			rel++;
		n = snprintf(out, size, "%.*s/%s", (int)rlen, root, rel);
	}
	if (n < 0 || (size_t)n >= size) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

/* Grow-and-read loop: /proc and /sys report st_size 0, so never trust it. */
static int read_fd_all(int fd, char **buf, size_t *len, size_t max_len)
{
	size_t cap = 4096, used = 0;
	char *p = malloc(cap), *np;
	ssize_t n;

	if (!p)
		return -1;
	for (;;) {
		if (used + 1 >= cap) {
			if (cap >= max_len) {
				free(p);
				errno = EFBIG;
				return -1;
			}
			cap *= 2;
			np = realloc(p, cap);
			if (!np) {
				free(p);
				return -1;
			}
			p = np;
		}
		n = read(fd, p + used, cap - used - 1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			free(p);
			return -1;
		}
		if (n == 0)
			break;
		used += (size_t)n;
	}
	p[used] = '\0';
	*buf = p;
	if (len)
		*len = used;
	return 0;
}

int read_file(const char *path, char **buf, size_t *len, size_t max_len)
{
	int fd, ret, saved;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ret = read_fd_all(fd, buf, len, max_len ? max_len :
			  READ_FILE_DEFAULT_MAX);
	saved = errno;
	close(fd);
	errno = saved;
	return ret;
}

int read_file_at(const char *root, const char *rel, char **buf, size_t *len,
		 size_t max_len)
{
	char path[4096];

	if (path_join(path, sizeof(path), root, rel))
		return -1;
	return read_file(path, buf, len, max_len);
}

int write_file_at(const char *root, const char *rel, const char *data,
		  size_t len, int create)
{
	char path[4096];
	int fd, saved;
	ssize_t n;

	if (path_join(path, sizeof(path), root, rel))
		return -1;
	fd = open(path, O_WRONLY | O_CLOEXEC | (create ? O_CREAT | O_TRUNC : 0),
		  0644);
	if (fd < 0)
		return -1;
	do {
		n = write(fd, data, len);
	} while (n < 0 && errno == EINTR);
	saved = errno;
	if (close(fd) && n >= 0) {
		/* debugfs reports some errors only at close; keep them */
		return -1;
	}
	if (n < 0) {
		errno = saved;
		return -1;
	}
	if ((size_t)n != len) {
		errno = EIO;
		return -1;
	}
	return 0;
}
