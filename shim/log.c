// SPDX-License-Identifier: MIT
/*
 * log.c - the shim's log: one write(2) per line, errno untouched.
 *
 * Lines are formatted on the stack (no malloc: we may be inside mmap called
 * by an allocator) and written with a single raw write so concurrent
 * threads' lines do not interleave.  Off except warnings by default.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "shim/shim.h"

void shim_log(int level, const char *fmt, ...)
{
	char line[1024];
	int saved = errno, n, fd;
	va_list ap;

	if (level > shim.log_level || level == POLICY_LOG_OFF)
		goto out;
	n = snprintf(line, sizeof(line), "advshim[%d]: ", (int)getpid());
	va_start(ap, fmt);
	n += vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
	va_end(ap);
	if (n > (int)sizeof(line) - 2)
		n = (int)sizeof(line) - 2;
	line[n++] = '\n';
	fd = shim.log_fd >= 0 ? shim.log_fd : 2;
	(void)!sys_write(fd, line, (size_t)n);
out:
	errno = saved;
}
