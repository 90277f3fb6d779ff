/* SPDX-License-Identifier: MIT */
/*
 * iostat.h - bytes read from storage, as the kernel accounts them: a
 * cgroup v2 memcg's io.stat and a process's /proc/PID/io.
 *
 * io.stat (block/blk-cgroup.c blkcg_print_stat): one line per device,
 *   "MAJ:MIN rbytes=N wbytes=N rios=N wios=N dbytes=N dios=N" and, with
 *   some controllers, more "key=value" fields (io.cost, io.latency).
 * /proc/PID/io (fs/proc/base.c do_io_accounting): "key: N" lines, among
 *   them read_bytes (bytes this task caused to be read from storage).
 *
 * Parsers take buffers (which need not be NUL-terminated), allocate
 * nothing, take no locks and do no I/O.
 */
#ifndef ADVSHIM_COMMON_IOSTAT_H
#define ADVSHIM_COMMON_IOSTAT_H

#include <stddef.h>
#include <stdint.h>

/*
 * iostat_rbytes - the sum of rbytes= over every device line of io.stat
 * text into *rbytes (0 for empty text: nothing was counted yet).  Returns
 * 0, or -1 when a line is not "MAJ:MIN" followed by "key=value" fields
 * with one numeric rbytes (*rbytes untouched).
 */
int iostat_rbytes(const char *buf, size_t len, uint64_t *rbytes);

/*
 * proc_io_read_bytes - the read_bytes value of /proc/PID/io text into
 * *read_bytes.  Returns 0, or -1 when a line is not "key: number" or
 * read_bytes is missing (*read_bytes untouched).
 */
int proc_io_read_bytes(const char *buf, size_t len, uint64_t *read_bytes);

#endif /* ADVSHIM_COMMON_IOSTAT_H */
