// SPDX-License-Identifier: MIT
/*
 * residency.c - page-cache residency of a file through mincore(2).
 */
#include "common/residency.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

int resid_open(struct resid *r, const char *path)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);
	struct stat st;
	int err;

	r->vec = NULL;
	/* O_NOATIME: only for the owner (or root); then without */
	r->fd = open(path, O_RDONLY | O_CLOEXEC | O_NOATIME);
	if (r->fd < 0)
		r->fd = open(path, O_RDONLY | O_CLOEXEC);
	r->open = r->fd >= 0;
	if (!r->open)
		return -1;
	if (fstat(r->fd, &st))
		err = errno;
	else if (!S_ISREG(st.st_mode))
		err = EINVAL;
	else if (!(r->vec = malloc(RESID_WINDOW / pg)))
		err = ENOMEM;
	else
		return 0;
	resid_close(r);
	errno = err;
	return -1;
}

/* Resident pages of the window of @n bytes at @off; -1 on error. */
static int64_t window_pages(struct resid *r, off_t off, size_t n, size_t pg)
{
	int64_t pages = 0;
	void *m = mmap(NULL, n, PROT_READ, MAP_SHARED, r->fd, off);
	size_t i;

	if (m == MAP_FAILED)
		return -1;
	if (mincore(m, n, r->vec)) {
		int err = errno;

		munmap(m, n);
		errno = err;
		return -1;
	}
	for (i = 0; i < (n + pg - 1) / pg; i++)
		pages += r->vec[i] & 1;
	munmap(m, n);
	return pages;
}

int64_t resid_bytes(struct resid *r, int64_t *file_bytes)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);
	int64_t pages = 0, w;
	struct stat st;
	off_t off;

	if (!r->open) {
		errno = EBADF;
		return -1;
	}
	if (fstat(r->fd, &st))
		return -1;
	if (file_bytes)
		*file_bytes = (int64_t)st.st_size;
	for (off = 0; off < st.st_size; off += RESID_WINDOW) {
		size_t n = st.st_size - off < RESID_WINDOW ?
			   (size_t)(st.st_size - off) : RESID_WINDOW;

		w = window_pages(r, off, n, pg);
		if (w < 0)
			return -1;
		pages += w;
	}
	return pages * (int64_t)pg;
}

void resid_close(struct resid *r)
{
	if (r->open)
		close(r->fd);
	free(r->vec);
	r->open = false;
	r->fd = -1;
	r->vec = NULL;
}

int64_t resid_of_path(const char *path, int64_t *file_bytes)
{
	struct resid r;
	int64_t bytes;
	int err;

	if (resid_open(&r, path))
		return -1;
	bytes = resid_bytes(&r, file_bytes);
	err = errno;
	resid_close(&r);
	errno = err;
	return bytes;
}
