// SPDX-License-Identifier: MIT
/*
 * test_common_iostat.c - io.stat and /proc/PID/io parsers on captured text
 * and on this process's own /proc/self/io.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "common/iostat.h"
#include "common/readfile.h"
#include "tests/unit/fixture.h"

static int rbytes_of(const char *text, uint64_t *v)
{
	return iostat_rbytes(text, strlen(text), v);
}

Test(iostat, io_stat_sums_devices)
{
	size_t len;
	char *buf = fixture("ab/io.stat", &len);
	uint64_t v = 1;

	cr_expect_eq(iostat_rbytes(buf, len, &v), 0);
	cr_expect_eq(v, 3145728);
	cr_expect_eq(rbytes_of("", &v), 0);
	cr_expect_eq(v, 0, "nothing counted yet");
	cr_expect_eq(rbytes_of("8:0 rbytes=5 wbytes=1 rios=1 wios=0 dbytes=0 "
			       "dios=0 cost.vrate=100.00 cost.usage=12\n", &v), 0);
	cr_expect_eq(v, 5, "extra controller fields are fine");
	free(buf);
}

Test(iostat, io_stat_strict)
{
	static const char *const bad[] = {
		"rbytes=5\n",
		"8:0\n",
		"8:0 wbytes=5\n",
		"8:0 rbytes=x\n",
		"8:0 rbytes=5 rbytes=6\n",
		"8:0  rbytes=5\n",
		"8:0 rbytes\n",
		"8 rbytes=5\n",
	};
	uint64_t v = 77;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		cr_expect_eq(rbytes_of(bad[i], &v), -1, "accepted %s", bad[i]);
	cr_expect_eq(v, 77, "untouched on failure");
}

Test(iostat, proc_io)
{
	size_t len;
	char *buf = fixture("ab/proc-io", &len);
	uint64_t v = 0;

	cr_expect_eq(proc_io_read_bytes(buf, len, &v), 0);
	cr_expect_eq(v, 4194304);
	cr_expect_eq(proc_io_read_bytes("rchar: 1\n", 9, &v), -1, "missing");
	cr_expect_eq(proc_io_read_bytes("read_bytes 1\n", 13, &v), -1);
	cr_expect_eq(proc_io_read_bytes("read_bytes: -1\n", 15, &v), -1);
	free(buf);
	cr_assert_eq(read_file("/proc/self/io", &buf, &len, 0), 0);
	cr_expect_eq(proc_io_read_bytes(buf, len, &v), 0,
		     "this kernel's /proc/self/io: %s", buf);
	free(buf);
}
