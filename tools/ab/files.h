/* SPDX-License-Identifier: MIT */
/*
 * files.h - the experiment's test files: creation, dropping their page
 * cache, and measuring how much of each is cached (mincore).
 */
#ifndef ADVSHIM_AB_FILES_H
#define ADVSHIM_AB_FILES_H

#include <stddef.h>
#include <stdint.h>

/* A file watched for residency: a PROT_READ mapping nobody touches. */
struct resid {
	void *map;
	size_t len;
	unsigned char *vec;
};

/*
 * file_ensure - create @path with @size pseudo-random bytes when missing
 * (parents included).  An existing file of another size is an error.
 * Returns 0, or -1 with a sentence in @why.
 */
int file_ensure(const char *path, uint64_t size, char *why, size_t wsize);

/*
 * file_drop_cache - fsync, then POSIX_FADV_DONTNEED the whole file.
 * Returns the bytes still cached afterwards (mincore), or -1 with errno.
 */
int64_t file_drop_cache(const char *path);

/* resid_open - map @path for residency checks; 0 or -1 with errno. */
int resid_open(struct resid *r, const char *path);

/* resid_bytes - bytes of the file in the page cache now; -1 on error. */
int64_t resid_bytes(struct resid *r);

void resid_close(struct resid *r);

#endif /* ADVSHIM_AB_FILES_H */
