// SPDX-License-Identifier: MIT
/*
 * test_shim_log.c - log.c: a line logged while the thread holds shim.lock
 * is not written until shim_unlock() (no system call under the lock),
 * then all of them in one piece, in order; lines beyond the thread's
 * 1 KiB are counted and said; errno survives both; a line logged without
 * the lock is written at once; lines to a file start with the UTC time,
 * lines to stderr do not.  The log target is a file in the test's
 * directory (log_set_target, as the policy's log.target would set it).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include "common/utc.h"
#include "tests/unit/shim_unit.h"

static char target[128];

static void log_setup(void)
{
	unit_init();
	snprintf(target, sizeof(target), "%s/shim.log", unit_dir);
	log_set_target(target);
}

TestSuite(log, .init = log_setup, .fini = unit_fini);

/* The target's bytes (at most @size - 1), "" when it does not exist. */
static const char *target_text(char *buf, size_t size)
{
	FILE *f = fopen(target, "r");
	size_t n = 0;

	if (f) {
		n = fread(buf, 1, size - 1, f);
		fclose(f);
	}
	buf[n] = '\0';
	return buf;
}

/*
 * Check that every line of @s starts with a UTC stamp of the last minute
 * and a space ("2026-12-07T18:21:38.123Z "), and take the stamps out, in
 * place.  Returns @s.  The clock is CLOCK_REALTIME's, as the shim's (not
 * time(2)'s, which can trail it by a tick), with a second to spare.
 */
static char *unstamped(char *s)
{
	char *line = s, *out = s, now_s[UTC_STAMP_LEN], then_s[UTC_STAMP_LEN];
	const size_t n = UTC_STAMP_LEN;	/* the stamp's length and a space */
	struct timespec now;

	clock_gettime(CLOCK_REALTIME, &now);
	utc_stamp(now_s, sizeof(now_s), (int64_t)now.tv_sec + 1, 999);
	utc_stamp(then_s, sizeof(then_s), (int64_t)now.tv_sec - 60, 0);
	while (*line) {
		char *end = strchr(line, '\n');
		size_t len = end ? (size_t)(end - line) + 1 : strlen(line);

		cr_assert_geq(len, n, "line without a stamp: %s", line);
		cr_assert_eq(line[n - 1], ' ', "no stamp: %s", line);
		cr_assert_eq(line[n - 2], 'Z', "no stamp: %s", line);
		cr_assert(strncmp(line, then_s, n - 1) >= 0 &&
			  strncmp(line, now_s, n - 1) <= 0,
			  "stamp not within the last minute (%s .. %s): %s",
			  then_s, now_s, line);
		memmove(out, line + n, len - n);
		out += len - n;
		line += len;
	}
	*out = '\0';
	return s;
}

static int count_lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

Test(log, without_the_lock_a_line_is_written_at_once)
{
	char buf[256], want[64];

	shim_log(POLICY_LOG_WARN, "plain %d", 1);
	snprintf(want, sizeof(want), "advshim[%d]: plain 1\n", (int)getpid());
	cr_assert_str_eq(unstamped((char *)target_text(buf, sizeof(buf))), want);
}

Test(log, under_the_lock_lines_wait_for_the_unlock)
{
	char buf[512], want[128];
	int pid = (int)getpid();

	shim_rdlock();
	shim_log(POLICY_LOG_WARN, "first %d", 1);
	errno = EXDEV;
	shim_log(POLICY_LOG_WARN, "second %d", 2);
	cr_expect_eq(errno, EXDEV, "shim_log changed errno");
	cr_assert_str_eq(target_text(buf, sizeof(buf)), "",
			 "a line was written with shim.lock held");
	errno = EXDEV;		/* target_text's fopen set it */
	shim_unlock();
	cr_expect_eq(errno, EXDEV, "the flush changed errno");
	snprintf(want, sizeof(want), "advshim[%d]: first 1\nadvshim[%d]: second 2\n",
		 pid, pid);
	cr_assert_str_eq(unstamped((char *)target_text(buf, sizeof(buf))), want);
	cr_assert_eq(shim_log_waiting, 0u);
}

Test(log, the_write_lock_too_and_below_the_level_nothing_waits)
{
	char buf[256];

	shim_wrlock();
	shim_log(POLICY_LOG_DEBUG, "debug is off in the unit policy");
	cr_assert_eq(shim_log_waiting, 0u, "a line below the level waits");
	shim_log(POLICY_LOG_WARN, "kept");
	cr_assert_gt(shim_log_waiting, 0u);
	cr_assert_str_eq(target_text(buf, sizeof(buf)), "");
	shim_unlock();
	cr_assert_not_null(strstr(target_text(buf, sizeof(buf)), "]: kept\n"));
}

Test(log, lines_over_a_kib_are_counted_and_said)
{
	char buf[4096], pad[101], last[80];
	int i, kept;

	memset(pad, 'x', sizeof(pad) - 1);
	pad[sizeof(pad) - 1] = '\0';
	shim_rdlock();
	for (i = 0; i < 20; i++)
		shim_log(POLICY_LOG_WARN, "%02d %s", i, pad);
	shim_unlock();
	unstamped((char *)target_text(buf, sizeof(buf)));
	kept = count_lines(buf) - 1;
	cr_assert_gt(kept, 0);
	cr_assert_lt(kept, 20, "1 KiB held all 20 lines of ~120 bytes");
	snprintf(last, sizeof(last), "advshim[%d]: %d lines not logged (over 1 KiB in one call)\n",
		 (int)getpid(), 20 - kept);
	cr_assert_str_eq(buf + strlen(buf) - strlen(last), last);
	/* The kept lines are the first ones, whole and in order. */
	for (i = 0; i < kept; i++) {
		char want[16];

		snprintf(want, sizeof(want), "]: %02d x", i);
		cr_assert_not_null(strstr(buf, want), "line %d missing", i);
	}
}

/* Lines to stderr are not stamped: the journal or the runtime does that. */
Test(log, lines_to_stderr_carry_no_stamp)
{
	char path[160], buf[128], want[64];
	int saved = dup(2), fd, n;

	snprintf(path, sizeof(path), "%s/stderr", unit_dir);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	cr_assert(fd >= 0 && saved >= 0);
	dup2(fd, 2);
	log_init();		/* fd 2 is now this file */
	log_set_target(NULL);
	shim_log(POLICY_LOG_WARN, "to stderr");
	dup2(saved, 2);
	close(saved);
	close(fd);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	n = (int)read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	snprintf(want, sizeof(want), "advshim[%d]: to stderr\n", (int)getpid());
	cr_assert_str_eq(buf, want);
}
