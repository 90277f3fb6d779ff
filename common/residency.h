/* SPDX-License-Identifier: MIT */
/*
 * residency.h - how much of a file is in the page cache now, asked of the
 * kernel with mincore(2) on a PROT_READ mapping that is never touched (so
 * asking faults nothing in and charges nothing to any memcg).
 *
 * A file is mapped RESID_WINDOW bytes at a time, so a huge file needs
 * neither a huge vector nor a huge mapping.  Not thread-safe per struct
 * resid (one caller at a time); no global state.
 */
#ifndef ADVSHIM_COMMON_RESIDENCY_H
#define ADVSHIM_COMMON_RESIDENCY_H

#include <stdbool.h>
#include <stdint.h>

#define RESID_WINDOW (64u << 20)

/* An open file watched for residency. */
struct resid {
	bool open;			/* false (zeroed): closed */
	int fd;
	unsigned char *vec;		/* one window's mincore vector */
};

/*
 * resid_open - open @path (O_NOATIME when allowed) for residency checks.
 * A path that is not a regular file fails with EINVAL.  Returns 0, or -1
 * with errno set and @r closed.
 */
int resid_open(struct resid *r, const char *path);

/*
 * resid_bytes - bytes of the file in the page cache now; *file_bytes (if
 * not NULL) gets the file's current size even when counting fails.
 * Returns -1 with errno when @r is closed (EBADF), the file cannot be
 * mapped or mincore fails.
 */
int64_t resid_bytes(struct resid *r, int64_t *file_bytes);

/* resid_close - close @r; a closed or zeroed one is left as it is. */
void resid_close(struct resid *r);

/*
 * resid_of_path - resid_open + resid_bytes + resid_close of @path.
 * Returns the cached bytes (file size in *file_bytes if not NULL), or -1
 * with errno.
 */
int64_t resid_of_path(const char *path, int64_t *file_bytes);

#endif /* ADVSHIM_COMMON_RESIDENCY_H */
