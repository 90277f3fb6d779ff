/* SPDX-License-Identifier: MIT */
/*
 * readfile.h - read small kernel/config files whole, through a root.
 *
 * Parsers in advshim take buffers; these helpers do the I/O separately so
 * tests can point every reader at a fixture tree (`root` replaces "/").
 * No locks and no global state: safe from any thread.
 */
#ifndef ADVSHIM_READFILE_H
#define ADVSHIM_READFILE_H

#include <stddef.h>

/*
 * read_file - read all of @path into a NUL-terminated malloc'd buffer.
 * Works for /proc and /sys files whose st_size is 0.  Returns 0 and sets
 * *buf (and *len if non-NULL), or -1 with errno set; *buf is untouched on
 * failure.  Files larger than @max_len fail with EFBIG (0: 64 MiB).
 */
int read_file(const char *path, char **buf, size_t *len, size_t max_len);

/*
 * path_join - "@root/@rel" into @out (size @size), collapsing a doubled
 * slash; @root may be NULL or "" (then @rel as is).  Returns 0, or -1 with
 * errno = ENAMETOOLONG.
 */
int path_join(char *out, size_t size, const char *root, const char *rel);

/*
 * read_file_at - read_file() of path_join(@root, @rel); fails as either
 * does (ENAMETOOLONG, or read_file's errno).
 */
int read_file_at(const char *root, const char *rel, char **buf, size_t *len,
		 size_t max_len);

/*
 * write_file_at - write @len bytes of @data to path_join(@root, @rel) with
 * one write(2) (kernel control files act per write).  O_WRONLY, no create
 * unless @create.  Returns 0 or -1 with errno from open/write (a short
 * write is reported as EIO).
 */
int write_file_at(const char *root, const char *rel, const char *data,
		  size_t len, int create);

#endif /* ADVSHIM_READFILE_H */
