/* SPDX-License-Identifier: MIT */
/*
 * readbuf.h - read a small kernel file into the caller's buffer.
 *
 * For code that must not allocate or disturb errno (libadvshim.so's
 * sampler): raw system calls (another preloaded library that wraps open
 * or read is not entered), O_CLOEXEC, the descriptor closed before
 * returning, so a program that closes every descriptor it does not know
 * never sees one of ours.  Tools that may allocate use readfile.h.
 */
#ifndef ADVSHIM_COMMON_READBUF_H
#define ADVSHIM_COMMON_READBUF_H

#include <stddef.h>
#include <sys/types.h>

/*
 * read_buf - read all of @path into @buf (@size bytes, >= 1) and
 * NUL-terminate it.  Works for /proc and cgroup files (st_size 0).
 * Returns the length read, or a negative errno: that of open/read
 * (-ENOENT when a cgroup went away), -EFBIG when the file has @size
 * bytes or more.  errno is the same on return as on entry; on failure
 * @buf holds an empty string.
 */
ssize_t read_buf(const char *path, char *buf, size_t size);

#endif /* ADVSHIM_COMMON_READBUF_H */
