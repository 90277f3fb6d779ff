/* SPDX-License-Identifier: MIT */
/*
 * vmflags.h - the kernel's view of one address: VmFlags from
 * /proc/self/smaps, for the shim's integration test programs, read
 * through the project's one smaps parser (common/smaps.c, linked in).
 */
#ifndef ADVSHIM_TEST_VMFLAGS_H
#define ADVSHIM_TEST_VMFLAGS_H

#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/types.h>
#include <unistd.h>

#include "common/smaps.h"

/*
 * self_smaps - /proc/self/smaps into @buf (room for @size bytes) without
 * stdio or malloc.  Returns the length read (== @size: maybe cut short),
 * or -1.
 */
static inline ssize_t self_smaps(char *buf, size_t size)
{
	size_t have = 0;
	ssize_t n;
	int fd = open("/proc/self/smaps", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	while (have < size && (n = read(fd, buf + have, size - have)) > 0)
		have += (size_t)n;
	close(fd);
	return (ssize_t)have;
}

/*
 * has_flag_nomalloc - is the two-letter @fl in VmFlags of the VMA at
 * @addr?  Without stdio or malloc, for forked children of threaded
 * programs (the sanitizers' allocators are not fork-safe); smaps is read
 * into @buf (size @size).  1, 0, or -1 (no such VMA, or unreadable).
 */
static inline int has_flag_nomalloc(const void *addr, const char *fl,
				    char *buf, size_t size)
{
	ssize_t len = self_smaps(buf, size);

	if (len < 0)
		return -1;
	return smaps_flag_at(buf, (size_t)len, (uintptr_t)addr, fl);
}

/* has_flag - has_flag_nomalloc() with a buffer that grows as needed. */
static inline int has_flag(const void *addr, const char *fl)
{
	size_t size = 1 << 20;
	ssize_t len;
	char *buf;
	int ret;

	for (;;) {
		buf = malloc(size);
		if (!buf)
			return -1;
		len = self_smaps(buf, size);
		if (len < (ssize_t)size)
			break;
		free(buf);
		size *= 2;
	}
	ret = len < 0 ? -1 : smaps_flag_at(buf, (size_t)len, (uintptr_t)addr, fl);
	free(buf);
	return ret;
}

#endif /* ADVSHIM_TEST_VMFLAGS_H */
