// SPDX-License-Identifier: MIT
/*
 * test_common_smaps.c - the smaps reader on a captured file and on this
 * process's own /proc/self/smaps, where the kernel shows the advice we
 * just gave (VmFlags rr after MADV_RANDOM, none after MADV_NORMAL).
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "common/readfile.h"
#include "common/smaps.h"
#include "tests/unit/fixture.h"

static int next_str(struct smaps_cursor *c, const char *text,
		    struct smaps_vma *v)
{
	smaps_begin(c, text, strlen(text));
	return smaps_next(c, v);
}

Test(smaps, paths_and_rr)
{
	static const char *const paths[] = {
		"/var/tmp/advshim-ab/vec.bin", "/var/tmp/advshim-ab/cold.bin",
		"/var/tmp/advshim-ab/other.bin",
	};
	size_t len;
	char *buf = fixture("ab/smaps.txt", &len);
	int st[3];

	cr_expect_eq(smaps_paths_flag(buf, len, paths, 3, "rr", st), 2);
	cr_expect_eq(st[0], 1, "vec.bin has rr");
	cr_expect_eq(st[1], 0, "cold.bin is mapped without rr");
	cr_expect_eq(st[2], -1, "other.bin is not mapped");
	cr_expect_eq(smaps_paths_flag("", 0, paths, 3, "rr", st), 0);
	cr_expect_eq(st[0], -1);
	free(buf);
}

Test(smaps, mappings_one_by_one)
{
	struct smaps_cursor c;
	struct smaps_vma v;
	size_t len;
	char *buf = fixture("ab/smaps.txt", &len);
	int n = 0;

	smaps_begin(&c, buf, len);
	cr_assert_eq(smaps_next(&c, &v), 1);
	cr_expect_eq(v.start, 0x55d4c8a00000ull);
	cr_expect_eq(v.end, 0x55d4c8a02000ull);
	cr_expect_str_eq(v.perms, "r--p");
	cr_expect_eq(v.inode, 393230);
	cr_expect(smaps_path_is(&v, "/work/main/build/advshim-load"));
	cr_expect_not(v.has_rss);
	cr_expect(smaps_has_flag(&v, "sd"));
	cr_expect_not(smaps_has_flag(&v, "rr"));
	cr_assert_eq(smaps_next(&c, &v), 1);
	cr_expect(v.has_rss);
	cr_expect_eq(v.rss_kib, 245760);
	cr_expect(smaps_has_flag(&v, "rr"));
	cr_expect_not(smaps_has_flag(&v, "r"), "two letters or nothing");
	for (n = 2; smaps_next(&c, &v) == 1; n++)
		;
	cr_expect_eq(n, 7);
	cr_expect_eq(v.path_len, 7, "[stack]");
	cr_expect_eq(v.inode, 0);
	cr_expect_eq(smaps_flag_at(buf, len, 0x7f2000000010ull, "rr"), 1,
		     "the heap has rr");
	cr_expect_eq(smaps_flag_at(buf, len, 0x7f1000000000ull, "rr"), 0);
	cr_expect_eq(smaps_flag_at(buf, len, 0x1000, "rr"), -1, "unmapped");
	free(buf);
}

Test(smaps, anonymous_and_maps_lines)
{
	struct smaps_cursor c;
	struct smaps_vma v;

	cr_assert_eq(next_str(&c, "7fd4fe6c7000-7fd4fe7fa000 rw-p 00000000 00:00 0 \n",
			      &v), 1);
	cr_expect_eq(v.path_len, 0);
	cr_expect_null(v.flags);
	cr_expect_eq(smaps_next(&c, &v), 0);
	cr_assert_eq(next_str(&c, "00400000-00401000 r-xp 00001000 103:02 12 "
			      "                /a b/c (deleted)\n", &v), 1);
	cr_expect(smaps_path_is(&v, "/a b/c (deleted)"), "spaces kept");
	cr_expect_eq(v.offset, 0x1000);
	cr_assert_eq(next_str(&c, "1000-2000 r--p 00000000 00:00 0\n"
			      "VmFlags:\n", &v), 1, "no flags at all");
	cr_expect_not(smaps_has_flag(&v, "rr"));
}

Test(smaps, one_header_line)
{
	static const char line[] = "7f9e2c9a9000-7f9e2c9aa000 r--p 00000000 fe:01 325835"
				   "                     /usr/lib/ld.so.2";
	static const char anon[] = "7ffd1000-7ffd3000 rw-p 00000000 00:00 0";
	struct smaps_vma v;

	cr_assert_eq(smaps_header(line, sizeof(line) - 1, &v), 0);
	cr_expect_eq(v.start, 0x7f9e2c9a9000ull);
	cr_expect_eq(v.dev_major, 0xfe);
	cr_expect_eq(v.dev_minor, 1);
	cr_expect_eq(v.inode, 325835);
	cr_expect(smaps_path_is(&v, "/usr/lib/ld.so.2"));
	cr_assert_eq(smaps_header(anon, sizeof(anon) - 1, &v), 0);
	cr_expect_eq(v.path_len, 0);
	cr_expect_eq(v.inode, 0);
	cr_expect_eq(smaps_header(line, 20, &v), -1, "cut short");
	cr_expect_eq(smaps_header("VmFlags: rd", 11, &v), -1);
}

Test(smaps, strict_lines)
{
	static const char *const bad[] = {
		"garbage\n",
		"1000-2000 r--p 00000000 00:00 0\ngarbage line\n",
		"1000-2000 r--p 00000000 00:00 0\n\n",
		"1000 r--p 00000000 00:00 0\n",
		"1000-2000 r--p 0000000g 00:00 0\n",
		"1000-2000 r--p 00000000 0000 0\n",
		"1000-2000 r--p 00000000 00:00 x\n",
		"1000-2000 r--p 00000000 00:00 0x/path\n",
		"2000-1000 r--p 00000000 00:00 0\n",
		"1000-2000 r-p 00000000 00:00 0\n",
		"1000-2000 r--p 00000000 00:00 0\nVmFlags: rd rrr \n",
		"1000-2000 r--p 00000000 00:00 0\nVmFlags:rd\n",
		"1000-2000 r--p 00000000 00:00 0\nVmFlags: rd \nVmFlags: rd \n",
		"1000-2000 r--p 00000000 00:00 0\nRss: 12\n",
		"1000-2000 r--p 00000000 00:00 0\nRss: x kB\n",
		"1000-2000 r--p 00000000 00:00 0\nSize 4 kB\n",
		"1000-2000 r--p 00000000 00:00 0",
		"10000000000000000-2000 r--p 00000000 00:00 0\n",
	};
	struct smaps_cursor c;
	struct smaps_vma v;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		cr_assert_eq(next_str(&c, bad[i], &v), -1, "accepted case %zu",
			     i);
	cr_assert_eq(next_str(&c, "1000-2000 r--p 00000000 00:00 0\nBad\n", &v),
		     -1);
	cr_expect_eq(c.line, 2, "the line at fault");
	/* a line starting with a hex digit is a header, checked as one */
	cr_assert_eq(next_str(&c, "1000-2000 r--p 00000000 00:00 0\nbad\n", &v),
		     1);
	cr_assert_eq(smaps_next(&c, &v), -1);
	cr_expect_eq(c.line, 2);
}

/* The kernel's own view of a mapping of ours, before and after advice. */
Test(smaps, self_random_advice_shows_as_rr)
{
	size_t pg = 4096, len;
	char *map = mmap(NULL, 4 * pg, PROT_READ,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *buf;

	cr_assert_neq(map, MAP_FAILED);
	cr_assert_eq(madvise(map + pg, pg, MADV_RANDOM), 0);
	cr_assert_eq(read_file("/proc/self/smaps", &buf, &len, 0), 0);
	cr_expect_eq(smaps_flag_at(buf, len, (uintptr_t)map + pg, "rr"), 1);
	cr_expect_eq(smaps_flag_at(buf, len, (uintptr_t)map, "rr"), 0,
		     "the VMA was split: the first page has no rr");
	free(buf);
	cr_assert_eq(madvise(map + pg, pg, MADV_NORMAL), 0);
	cr_assert_eq(read_file("/proc/self/smaps", &buf, &len, 0), 0);
	cr_expect_eq(smaps_flag_at(buf, len, (uintptr_t)map + pg, "rr"), 0);
	free(buf);
	munmap(map, 4 * pg);
}
