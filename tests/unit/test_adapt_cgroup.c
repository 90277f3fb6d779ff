// SPDX-License-Identifier: MIT
/*
 * test_adapt_cgroup.c - the memory cgroup parsers and readers of the
 * adaptive advice (common/cgroup.c, cgroup_read.c, readbuf.c): the
 * kernel's formats for v1, v2 and hybrid hierarchies, containers, and
 * every malformed input rejected; readers against fixture trees under
 * tests/fixtures/adapt (each a root with proc/ and sys/fs/cgroup/).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "common/cgroup.h"
#include "common/cgroup_read.h"
#include "common/readbuf.h"

#define FIX "tests/fixtures/adapt/"
#define S(lit) lit, sizeof(lit) - 1

Test(cg_self, v2_path)
{
	char p[64];

	cr_assert_eq(cg_parse_self(S("0::/system.slice/a.service\n"), p, sizeof(p)), CG_V2);
	cr_assert_str_eq(p, "/system.slice/a.service");
	cr_assert_eq(cg_parse_self(S("0::/\n"), p, sizeof(p)), CG_V2);
	cr_assert_str_eq(p, "/");
	/* no final newline; ':' and spaces inside the path */
	cr_assert_eq(cg_parse_self(S("0::/a:b c"), p, sizeof(p)), CG_V2);
	cr_assert_str_eq(p, "/a:b c");
}

Test(cg_self, hybrid_prefers_the_v1_memory_line)
{
	static const char t[] = "9:name=systemd:/\n8:pids:/\n4:memory:/process_api/x\n"
				"2:cpu,cpuacct:/\n0::/user.slice\n";
	char p[64];

	cr_assert_eq(cg_parse_self(S(t), p, sizeof(p)), CG_V1);
	cr_assert_str_eq(p, "/process_api/x");
	/* memory inside a list of controllers */
	cr_assert_eq(cg_parse_self(S("3:cpu,memory,pids:/m\n0::/u\n"), p, sizeof(p)), CG_V1);
	cr_assert_str_eq(p, "/m");
	/* "memory" must be a whole list item */
	cr_assert_eq(cg_parse_self(S("3:cpu,memoryx:/m\n0::/u\n"), p, sizeof(p)), CG_V2);
	cr_assert_str_eq(p, "/u");
}

Test(cg_self, no_memory_hierarchy)
{
	char p[64] = "untouched";

	cr_assert_eq(cg_parse_self(S("2:cpu:/\n1:name=systemd:/\n"), p, sizeof(p)), -ENOENT);
	cr_assert_eq(cg_parse_self(S(""), p, sizeof(p)), -ENOENT);
	cr_assert_str_eq(p, "untouched");
}

Test(cg_self, malformed_lines)
{
	char p[64];

	cr_assert_eq(cg_parse_self(S("x::/\n"), p, sizeof(p)), -EINVAL);
	cr_assert_eq(cg_parse_self(S("0:/\n"), p, sizeof(p)), -EINVAL);
	cr_assert_eq(cg_parse_self(S("0::relative\n"), p, sizeof(p)), -EINVAL);
	cr_assert_eq(cg_parse_self(S("0::\n"), p, sizeof(p)), -EINVAL);
	cr_assert_eq(cg_parse_self(S("-1::/\n"), p, sizeof(p)), -EINVAL);
	cr_assert_eq(cg_parse_self(S("0::/\n\n"), p, sizeof(p)), -EINVAL);
	cr_assert_eq(cg_parse_self(S("4:memory:/a\ngarbage\n"), p, sizeof(p)), -EINVAL);
}

Test(cg_self, path_too_long)
{
	char p[8];

	cr_assert_eq(cg_parse_self(S("0::/1234567\n"), p, sizeof(p)), -ENAMETOOLONG);
	cr_assert_eq(cg_parse_self(S("0::/123456\n"), p, sizeof(p)), CG_V2);
	cr_assert_str_eq(p, "/123456");
}

Test(cg_self, controllers_list)
{
	cr_assert(cg_parse_has_memory(S("cpuset cpu io memory hugetlb pids\n")));
	cr_assert(cg_parse_has_memory(S("memory")));
	cr_assert_not(cg_parse_has_memory(S("cpu io memoryless\n")));
	cr_assert_not(cg_parse_has_memory(S("cpu memory_x\n")));
	cr_assert_not(cg_parse_has_memory(S("")));
}

Test(cg_limit, values)
{
	uint64_t v;

	cr_assert_eq(cg_parse_limit(S("max\n"), &v), 0);
	cr_assert_eq(v, CG_UNLIMITED);
	cr_assert_eq(cg_parse_limit(S("max"), &v), 0);
	cr_assert_eq(cg_parse_limit(S("134217728\n"), &v), 0);
	cr_assert_eq(v, 134217728);
	cr_assert_eq(cg_parse_limit(S("0\n"), &v), 0);
	cr_assert_eq(v, 0);
	/* v1's "no limit" with 4 KiB and with 64 KiB pages */
	cr_assert_eq(cg_parse_limit(S("9223372036854771712\n"), &v), 0);
	cr_assert_eq(v, CG_UNLIMITED);
	cr_assert_eq(cg_parse_limit(S("9223372036854710272\n"), &v), 0);
	cr_assert_eq(v, CG_UNLIMITED);
	cr_assert_eq(cg_parse_limit(S("4611686018427387903\n"), &v), 0);
	cr_assert_eq(v, 4611686018427387903ULL);
}

Test(cg_limit, rejects)
{
	static const char *const bad[] = {
		"", "\n", "max \n", "Max\n", "maximum\n", " 12\n", "12 \n", "+12\n",
		"-1\n", "12a\n", "0x10\n", "12\n\n", "1.5\n", "12 kB\n",
	};
	uint64_t v = 42;

	for (unsigned int i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		cr_assert_eq(cg_parse_limit(bad[i], strlen(bad[i]), &v), -EINVAL,
			     "accepted '%s'", bad[i]);
	cr_assert_eq(cg_parse_limit(S("18446744073709551616\n"), &v), -ERANGE);
	cr_assert_eq(cg_parse_bytes(S("99999999999999999999\n"), &v), -ERANGE);
	cr_assert_eq(v, 42, "untouched on failure");
	cr_assert_eq(cg_parse_bytes(S("max\n"), &v), -EINVAL, "usage is never max");
	cr_assert_eq(cg_parse_bytes(S("18446744073709551615\n"), &v), 0);
	cr_assert_eq(v, UINT64_MAX);
}

Test(meminfo, real_text)
{
	static const char t[] =
		"MemTotal:       24683584 kB\nMemFree:        18836432 kB\n"
		"MemAvailable:   23775280 kB\nBuffers:          185252 kB\n"
		"HugePages_Total:       0\nHugepagesize:       2048 kB\n";
	uint64_t total, avail;

	cr_assert_eq(meminfo_parse(S(t), &total, &avail), 0);
	cr_assert_eq(total, 24683584ULL * 1024);
	cr_assert_eq(avail, 23775280ULL * 1024);
}

Test(meminfo, rejects)
{
	uint64_t t = 1, a = 2;

	cr_assert_eq(meminfo_parse(S("MemTotal: 10 kB\n"), &t, &a), -ENOENT);
	cr_assert_eq(meminfo_parse(S("MemTotal: 10 kB\nMemAvailable: 5 kB\nMemTotal: 10 kB\n"), &t, &a), -EINVAL);
	cr_assert_eq(meminfo_parse(S("MemTotal: x kB\nMemAvailable: 5 kB\n"), &t, &a), -EINVAL);
	cr_assert_eq(meminfo_parse(S("MemTotal 10 kB\nMemAvailable: 5 kB\n"), &t, &a), -EINVAL);
	cr_assert_eq(meminfo_parse(S("MemTotal: 10 MB\nMemAvailable: 5 kB\n"), &t, &a), -EINVAL);
	cr_assert_eq(meminfo_parse(S("MemTotal: 18014398509481984 kB\nMemAvailable: 5 kB\n"), &t, &a), -ERANGE);
	cr_assert_eq(t, 1);
	cr_assert_eq(a, 2);
}

Test(cg_path, joins)
{
	char p[128];

	cr_assert_eq(cg_file_path(p, sizeof(p), NULL, CG_V2, "/", "memory.max"), 0);
	cr_assert_str_eq(p, "/sys/fs/cgroup/memory.max");
	cr_assert_eq(cg_file_path(p, sizeof(p), "/tmp/r/", CG_V1, "/a/b", "memory.stat"), 0);
	cr_assert_str_eq(p, "/tmp/r/sys/fs/cgroup/memory/a/b/memory.stat");
	cr_assert_eq(cg_file_path(p, sizeof(p), "", CG_V2, "/x", "f"), 0);
	cr_assert_str_eq(p, "/sys/fs/cgroup/x/f");
	cr_assert_eq(cg_file_path(p, 26, NULL, CG_V2, "/", "memory.max"), 0);
	cr_assert_eq(cg_file_path(p, 25, NULL, CG_V2, "/", "memory.max"), -ENAMETOOLONG);
	cr_assert_eq(cg_file_path(p, sizeof(p), NULL, 3, "/", "f"), -EINVAL);
	cr_assert_eq(cg_file_path(p, sizeof(p), NULL, CG_V2, "x", "f"), -EINVAL);
}

Test(cg_path, parent)
{
	char p[16] = "/a/b";

	cr_assert_eq(cg_parent(p), 0);
	cr_assert_str_eq(p, "/a");
	cr_assert_eq(cg_parent(p), 0);
	cr_assert_str_eq(p, "/");
	cr_assert_eq(cg_parent(p), -ENOENT);
	cr_assert_str_eq(p, "/");
}

Test(readbuf, reads_preserves_errno_and_bounds)
{
	char b[16], big[64];
	ssize_t n;

	errno = 1234;
	cr_assert_eq(read_buf(FIX "v2/proc/self/cgroup", b, sizeof(b)), -EFBIG);
	cr_assert_str_eq(b, "");
	cr_assert_eq(read_buf(FIX "nonexistent", b, sizeof(b)), -ENOENT);
	cr_assert_eq(read_buf(FIX "gone/proc/self/cgroup", b, sizeof(b)), 10);
	cr_assert_str_eq(b, "0::/lab-a\n");
	cr_assert_eq(read_buf(FIX "gone/proc/self/cgroup", b, 11), 10, "exactly fits");
	cr_assert_eq(read_buf(FIX "gone/proc/self/cgroup", b, 10), -EFBIG);
	cr_assert_eq(read_buf(FIX, b, sizeof(b)), -EISDIR);
	cr_assert_eq(errno, 1234);
	/* /proc files have st_size 0 and must still be read whole */
	cr_assert_eq(read_buf("/proc/self/stat", b, sizeof(b)), -EFBIG);
	n = read_buf("/proc/self/comm", big, sizeof(big));
	cr_assert_gt(n, 1);
	cr_assert_eq(big[n - 1], '\n');
	cr_assert_eq((size_t)n, strlen(big));
}

static void figures(const char *root, int version, const char *path,
		    uint64_t limit, uint64_t usage, int depth)
{
	struct cg_where w;
	struct cg_figures f;

	errno = 77;
	cr_assert_eq(cg_locate(root, &w), 0, "%s", root);
	cr_assert_eq(w.version, version, "%s", root);
	cr_assert_str_eq(w.path, path, "%s", root);
	cr_assert_eq(cg_read_figures(root, &w, &f), 0, "%s", root);
	cr_assert_eq(f.limit, limit, "%s: limit %llu", root, (unsigned long long)f.limit);
	cr_assert_eq(f.usage, usage, "%s", root);
	cr_assert_eq(f.depth, depth, "%s: depth %d", root, f.depth);
	cr_assert_eq(errno, 77, "errno preserved");
}

Test(cg_read, trees)
{
	/* the smallest of memory.max and memory.high over the ancestors */
	figures(FIX "v2", CG_V2, "/system.slice/opensearch.service",
		6442450944ULL, 5368709120ULL, 2);
	figures(FIX "hybrid", CG_V1, "/process_api/a352a7fd", 134217728, 100003840, 2);
	/* v1 container: the host path is not below the mount, "/" is */
	figures(FIX "container-v1", CG_V1, "/", 536870912, 402653184, 0);
	/* v2 with a cgroup namespace: "0::/" is the container's own cgroup */
	figures(FIX "container-v2", CG_V2, "/", 268435456, 201326592, 0);
	/* the v2 root cgroup itself: no usage or limit files, no limit */
	figures(FIX "v2-root", CG_V2, "/", CG_UNLIMITED, 0, 0);
}

Test(cg_read, another_process)
{
	struct cg_where w;

	/* proc/4242/cgroup names the host's path: the same fallback to "/" */
	cr_assert_eq(cg_locate_proc(FIX "container-v1", "4242", &w), 0);
	cr_assert_eq(w.version, CG_V1);
	cr_assert_str_eq(w.path, "/");
	cr_assert_eq(cg_locate_proc(FIX "container-v1", "4243", &w), -ENOENT);
	cr_assert_eq(cg_locate_proc(FIX "v2", "123456789012345678901234567890123", &w),
		     -ENAMETOOLONG);
}

Test(cg_read, failures)
{
	struct cg_where w = { .version = CG_V2, .path = "/g" };
	struct cg_figures f = { .limit = 5, .usage = 6 };

	cr_assert_eq(cg_locate(FIX "gone", &w), -ENOENT);
	cr_assert_eq(cg_locate(FIX "nomem", &w), -ENOENT);
	cr_assert_eq(cg_locate(FIX "nonexistent", &w), -ENOENT);
	/* a v2 root whose controllers do not include memory */
	cr_assert_eq(cg_locate(FIX "v2-root-nomem", &w), -ENOENT);
	cr_assert_eq(cg_locate(FIX "garbage", &w), 0);
	cr_assert_eq(cg_read_figures(FIX "garbage", &w, &f), -EINVAL);
	cr_assert_eq(f.limit, 5, "untouched on failure");
	strcpy(w.path, "/removed");
	cr_assert_eq(cg_read_figures(FIX "v2", &w, &f), -ENOENT);
}

Test(cg_read, meminfo)
{
	uint64_t t, a;

	cr_assert_eq(cg_read_meminfo(FIX "v2", &t, &a), 0);
	cr_assert_gt(t, 0);
	cr_assert_leq(a, t);
	cr_assert_eq(cg_read_meminfo(FIX "gone", &t, &a), -ENOENT);
}

static void detects(const char *mount, int version, const char *hier)
{
	char out[256];

	errno = 55;
	cr_assert_eq(cg_detect_mount(mount, out, sizeof(out)), version,
		     "%s", mount);
	if (version > 0)
		cr_assert_str_eq(out, hier, "%s", mount);
	cr_assert_eq(errno, 55, "errno preserved");
}

/* One rule for the shim, the watcher and advshim-ab (cgroup_read.h). */
Test(cg_detect, mounts)
{
	char small[8];

	detects(FIX "v2-root/sys/fs/cgroup", CG_V2,
		FIX "v2-root/sys/fs/cgroup");
	/* "memoryless" is not "memory": no memory controller anywhere */
	detects(FIX "v2-root-nomem/sys/fs/cgroup", -ENOENT, NULL);
	/* hybrid with memory in the unified hierarchy wins over v1 */
	detects(FIX "detect-unified/sys/fs/cgroup", CG_V2,
		FIX "detect-unified/sys/fs/cgroup/unified");
	detects(FIX "detect-v1/sys/fs/cgroup", CG_V1,
		FIX "detect-v1/sys/fs/cgroup/memory");
	/* given the v1 memory mount itself */
	detects(FIX "detect-v1/sys/fs/cgroup/memory", CG_V1,
		FIX "detect-v1/sys/fs/cgroup/memory");
	detects(FIX "nomem", -ENOENT, NULL);
	cr_assert_eq(cg_detect_mount(FIX "v2-root/sys/fs/cgroup", small,
				     sizeof(small)), -ENAMETOOLONG);
}
