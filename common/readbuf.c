// SPDX-License-Identifier: MIT
/*
 * readbuf.c - read_buf(): a small file into a caller's buffer, without
 * malloc and with errno untouched (see readbuf.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/readbuf.h"

ssize_t read_buf(const char *path, char *buf, size_t size)
{
	int saved = errno, fd;
	size_t len = 0;
	ssize_t n, ret;

	if (!size)
		return -EINVAL;
	buf[0] = 0;
	fd = (int)syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		goto out;
	}
	for (;;) {
		n = syscall(SYS_read, fd, buf + len, size - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ret = -errno;
			break;
		}
		len += (size_t)n;
		if (n == 0) {
			ret = (ssize_t)len;
			break;
		}
		if (len == size) {
			ret = -EFBIG;
			break;
		}
	}
	syscall(SYS_close, fd);
	buf[ret < 0 ? 0 : len] = 0;
out:
	errno = saved;
	return ret;
}
