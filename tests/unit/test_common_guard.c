// SPDX-License-Identifier: MIT
/*
 * test_common_guard.c - advshim-watch's mark on a memcg (common/guard.c):
 * the value's parser, when a mark still counts, and the mark written,
 * read and removed on a real directory's user.* attribute (the same
 * system calls as on cgroupfs v2).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "common/guard.h"

static int parse(const char *s, uint64_t *t)
{
	return guard_parse(s, strlen(s), t);
}

Test(guard, parse)
{
	uint64_t t = 7;

	cr_assert_eq(parse("1796601600", &t), 0);
	cr_assert_eq(t, 1796601600);
	cr_assert_eq(parse("18446744073709551615", &t), 0);
	cr_assert_eq(t, UINT64_MAX);
	cr_assert_eq(parse("18446744073709551616", &t), -EINVAL, "overflow");
	cr_assert_eq(parse("", &t), -EINVAL);
	cr_assert_eq(parse("-1", &t), -EINVAL);
	cr_assert_eq(parse("12 ", &t), -EINVAL);
	cr_assert_eq(parse("12\n", &t), -EINVAL);
	cr_assert_eq(parse("123456789012345678901", &t), -EINVAL);
	cr_assert_eq(guard_parse("123", 2, &t), 0, "not NUL-terminated");
	cr_assert_eq(t, 12);
}

Test(guard, fresh)
{
	cr_assert(guard_fresh(1000, 1000));
	cr_assert(guard_fresh(1000, 1000 + GUARD_STALE_S));
	cr_assert_not(guard_fresh(1000, 1001 + GUARD_STALE_S), "a dead watcher's");
	cr_assert(guard_fresh(1000 + GUARD_STALE_S, 1000), "clock stepped back");
	cr_assert_not(guard_fresh(1001 + GUARD_STALE_S, 1000));
	cr_assert_gt(GUARD_STALE_S, 2 * GUARD_REFRESH_S,
		     "a missed refresh must not drop the guard");
}

/* A fresh directory; the test is skipped where user.* is not supported. */
static char *tmpdir(void)
{
	char tmpl[] = "/tmp/advshim-guard-XXXXXX";
	char *d = mkdtemp(tmpl);

	cr_assert_not_null(d);
	if (setxattr(d, "user.probe", "1", 1, 0) && errno == ENOTSUP) {
		rmdir(d);
		cr_skip_test("no user.* attributes on /tmp");
	}
	removexattr(d, "user.probe");
	return strdup(d);
}

Test(guard, mark_read_clear)
{
	char *d = tmpdir();
	uint64_t t = 0;
	int saved;

	errno = 1234;
	cr_assert_eq(guard_read(d, &t), -ENODATA, "no mark");
	cr_assert_eq(guard_clear(d), 0, "clearing nothing is fine");
	cr_assert_eq(guard_mark(d, 1796601600), 0);
	cr_assert_eq(guard_read(d, &t), 0);
	cr_assert_eq(t, 1796601600);
	saved = errno;
	cr_assert_eq(saved, 1234, "errno as on entry");
	cr_assert_eq(setxattr(d, GUARD_XATTR, "12x", 3, 0), 0);
	cr_assert_eq(guard_read(d, &t), -EINVAL, "garbled");
	cr_assert_eq(setxattr(d, GUARD_XATTR, "123456789012345678901234567",
			      27, 0), 0);
	cr_assert_eq(guard_read(d, &t), -EINVAL, "too long for the buffer");
	cr_assert_eq(guard_clear(d), 0);
	cr_assert_eq(guard_read(d, &t), -ENODATA);
	cr_assert_eq(rmdir(d), 0);
	cr_assert_eq(guard_read(d, &t), -ENOENT, "the cgroup went away");
	cr_assert_eq(guard_mark(d, 1), -ENOENT);
	free(d);
}
