// SPDX-License-Identifier: MIT
/*
 * test_common_resid.c - page-cache residency asked of this kernel, on a
 * file whose cache we drop and then fill, across several mincore windows.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "common/residency.h"

#define FILE_BYTES ((int64_t)RESID_WINDOW * 2 + (1 << 20))

static char path[] = "/var/tmp/advshim-resid-XXXXXX";

static void make_file(void)
{
	int fd = mkstemp(path);

	cr_assert_geq(fd, 0);
	/* sparse: reading a hole still puts zero pages in the page cache */
	cr_assert_eq(ftruncate(fd, FILE_BYTES), 0);
	cr_assert_eq(fsync(fd), 0);
	cr_assert_eq(posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED), 0);
	close(fd);
}

static void drop_file(void)
{
	unlink(path);
}

TestSuite(resid, .init = make_file, .fini = drop_file);

Test(resid, dropped_then_read_across_windows)
{
	char page[4096];
	int64_t size = -1, cached;
	struct resid r;
	int fd;

	cr_assert_eq(resid_open(&r, path), 0);
	cached = resid_bytes(&r, &size);
	cr_expect_eq(size, FILE_BYTES);
	cr_expect_eq(cached, 0, "after POSIX_FADV_DONTNEED");
	fd = open(path, O_RDONLY);
	cr_assert_geq(fd, 0);
	/* one page in the third window, readahead off */
	cr_assert_eq(posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM), 0);
	cr_assert_eq(pread(fd, page, sizeof(page), FILE_BYTES - 4096), 4096);
	close(fd);
	cached = resid_bytes(&r, NULL);
	cr_expect_geq(cached, 4096);
	cr_expect_leq(cached, 1 << 20, "only the last MiB was read");
	resid_close(&r);
	cr_expect_eq(resid_of_path(path, &size), cached);
	cr_expect_eq(resid_bytes(&r, NULL), -1, "closed");
	cr_expect_eq(errno, EBADF);
}

Test(resid, not_a_file)
{
	struct resid r = { 0 };

	resid_close(&r);	/* a zeroed one is closed: stdin stays open */
	cr_expect_neq(fcntl(0, F_GETFD), -1);
	cr_expect_eq(resid_open(&r, "/"), -1);
	cr_expect_eq(errno, EINVAL);
	cr_expect_eq(resid_of_path("/nonexistent/x", NULL), -1);
	cr_expect_eq(errno, ENOENT);
}
