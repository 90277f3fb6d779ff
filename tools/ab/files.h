/* SPDX-License-Identifier: MIT */
/*
 * files.h - the experiment's test files: creation and dropping their page
 * cache (how much of each is cached: common/residency.h).  No locks; not
 * thread-safe (advshim-ab is single-threaded).
 */
#ifndef ADVSHIM_AB_FILES_H
#define ADVSHIM_AB_FILES_H

#include <stddef.h>
#include <stdint.h>

/*
 * file_ensure - create @path with @size pseudo-random bytes when missing
 * (parents included).  An existing file of another size is an error.
 * Returns 0, or -1 with a sentence in @why.
 */
int file_ensure(const char *path, uint64_t size, char *why, size_t wsize);

/*
 * file_drop_cache - fsync, then POSIX_FADV_DONTNEED the whole file.
 * Returns the bytes still cached afterwards (mincore), or -1 with errno
 * (the file cannot be opened, the advice or the residency check failed).
 */
int64_t file_drop_cache(const char *path);

#endif /* ADVSHIM_AB_FILES_H */
