// SPDX-License-Identifier: MIT
/*
 * procmap.c - one PROCMAP_QUERY ioctl, answered as a maps line (see
 * procmap.h).
 */
#include "common/procmap.h"

#include <errno.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int procmap_vma(int fd, uint64_t addr, char *name, size_t size,
		struct smaps_vma *vma)
{
	struct procmap_query q;

	memset(&q, 0, sizeof(q));
	q.size = sizeof(q);
	q.query_flags = PROCMAP_QUERY_COVERING_OR_NEXT_VMA;
	q.query_addr = addr;
	q.vma_name_addr = (uint64_t)(uintptr_t)name;
	q.vma_name_size = (uint32_t)size;
	if (syscall(SYS_ioctl, fd, PROCMAP_QUERY, &q))
		return -errno;
	vma->start = q.vma_start;
	vma->end = q.vma_end;
	vma->offset = q.vma_offset;
	vma->dev_major = q.dev_major;
	vma->dev_minor = q.dev_minor;
	vma->inode = q.inode;
	/* The kernel's size counts the NUL it wrote; 0: no name, none written. */
	vma->path = name;
	vma->path_len = q.vma_name_size ? q.vma_name_size - 1 : 0;
	if (!q.vma_name_size && size)
		name[0] = '\0';
	return 0;
}
