// SPDX-License-Identifier: MIT
/*
 * guard.c - advshim-watch's mark on the memcgs it ages (see guard.h).
 */
#include <errno.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/guard.h"

int guard_parse(const char *val, size_t len, uint64_t *t_s)
{
	uint64_t t = 0;
	size_t i;

	if (!len || len > 20)
		return -EINVAL;
	for (i = 0; i < len; i++) {
		unsigned int d = (unsigned char)val[i] - '0';

		if (d > 9 || t > (UINT64_MAX - d) / 10)
			return -EINVAL;
		t = t * 10 + d;
	}
	*t_s = t;
	return 0;
}

bool guard_fresh(uint64_t t_s, uint64_t now_s)
{
	return t_s <= now_s ? now_s - t_s <= GUARD_STALE_S :
			      t_s - now_s <= GUARD_STALE_S;
}

int guard_read(const char *dir, uint64_t *t_s)
{
	char val[GUARD_VALUE_MAX];
	int saved = errno, r;
	long n;

	n = syscall(SYS_getxattr, dir, GUARD_XATTR, val, sizeof(val));
	if (n < 0)
		r = errno == ERANGE ? -EINVAL : -errno;
	else
		r = guard_parse(val, (size_t)n, t_s);
	errno = saved;
	return r;
}

int guard_mark(const char *dir, uint64_t now_s)
{
	char val[GUARD_VALUE_MAX];
	int saved = errno, len, r = 0;

	len = snprintf(val, sizeof(val), "%llu", (unsigned long long)now_s);
	if (syscall(SYS_setxattr, dir, GUARD_XATTR, val, (size_t)len, 0))
		r = -errno;
	errno = saved;
	return r;
}

int guard_clear(const char *dir)
{
	int saved = errno, r = 0;

	if (syscall(SYS_removexattr, dir, GUARD_XATTR) && errno != ENODATA)
		r = -errno;
	errno = saved;
	return r;
}
