/* SPDX-License-Identifier: MIT */
/*
 * procmap.h - the PROCMAP_QUERY ioctl on /proc/PID/maps (Linux 6.11,
 * include/uapi/linux/fs.h), for the shim's kernel view and the seccomp
 * supervisor.  Headers older than 6.11 (Debian 12's) lack it: the
 * definition is copied here unless a header included before gave it.
 *
 * procmap_vma() is the one query both make: the mapping at or above an
 * address, answered as the maps text parser answers (struct smaps_vma),
 * so each caller fills its own record from either source in one place.
 */
#ifndef ADVSHIM_COMMON_PROCMAP_H
#define ADVSHIM_COMMON_PROCMAP_H

#include <stddef.h>
#include <stdint.h>
#include <sys/ioctl.h>

#include "common/smaps.h"

#ifndef PROCMAP_QUERY
struct procmap_query {
	uint64_t size;
	uint64_t query_flags;
	uint64_t query_addr;
	uint64_t vma_start;
	uint64_t vma_end;
	uint64_t vma_flags;
	uint64_t vma_page_size;
	uint64_t vma_offset;
	uint64_t inode;
	uint32_t dev_major;
	uint32_t dev_minor;
	uint32_t vma_name_size;
	uint32_t build_id_size;
	uint64_t vma_name_addr;
	uint64_t build_id_addr;
};
#define PROCMAP_QUERY		_IOWR('f', 17, struct procmap_query)
#define PROCMAP_QUERY_COVERING_OR_NEXT_VMA	0x10
#endif

/*
 * procmap_vma - ask the maps file open at @fd (/proc/PID/maps) for the
 * mapping covering @addr, or else the first one above it.  Its name, if
 * it has one, is written NUL-terminated into @name (@size bytes, at most
 * 4 GiB) and *@vma->path points there; path_len 0: none.  Only the maps
 * line's fields are set (start, end, offset, dev_major, dev_minor, inode,
 * path, path_len); perms, rss and flags are left as they were.
 *
 * Locking: none; the kernel takes the mm's lock for the one ioctl.  A raw
 * system call, no allocation: safe inside libadvshim.so.
 *
 * Returns 0, or a negative errno, which errno also holds: -ENOENT no
 * mapping at or above @addr, -ENOTTY or -EINVAL a kernel without the
 * ioctl (before 6.11), -ENAMETOOLONG the name does not fit in @size.
 */
int procmap_vma(int fd, uint64_t addr, char *name, size_t size,
		struct smaps_vma *vma);

#endif /* ADVSHIM_COMMON_PROCMAP_H */
