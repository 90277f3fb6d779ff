/* SPDX-License-Identifier: MIT */
/*
 * procmap.h - the PROCMAP_QUERY ioctl on /proc/PID/maps (Linux 6.11,
 * include/uapi/linux/fs.h), for the shim's kernel view and the seccomp
 * supervisor.  Headers older than 6.11 (Debian 12's) lack it: the
 * definition is copied here unless a header included before gave it.
 */
#ifndef ADVSHIM_COMMON_PROCMAP_H
#define ADVSHIM_COMMON_PROCMAP_H

#include <stdint.h>
#include <sys/ioctl.h>

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

#endif /* ADVSHIM_COMMON_PROCMAP_H */
