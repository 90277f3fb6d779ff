// SPDX-License-Identifier: MIT
/*
 * shim_unit.c - the policy and the helpers the shim's unit tests share
 * (see shim_unit.h).
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "tests/integration/shim/vmflags.h"
#include "tests/unit/shim_unit.h"

static const char policy_text[] =
	"version = 1;\n"
	"log = { level = \"warn\"; };\n"
	"adaptive = { interval_ms = 60000; };\n"
	"rules = (\n"
	"  { name = \"keep\"; match = [ \"**/keep-*\" ]; random = \"keep\"; },\n"
	"  { name = \"adapt\"; match = [ \"**/adapt-*\" ]; random = \"adaptive\"; },\n"
	"  { name = \"skip\"; match = [ \"**/skip-*\" ]; random = \"skip\";\n"
	"    sequential = \"skip\"; },\n"
	"  { name = \"seq\"; match = [ \"**/seq-*\" ]; random = \"keep\";\n"
	"    sequential = \"normal\"; },\n"
	"  { name = \"other\"; match = [ \"**\" ]; random = \"normal\";\n"
	"    fadvise = { random = \"normal\"; }; }\n"
	");\n";

char unit_dir[64];

/*
 * Before the shim's constructor (priority 101 runs before the default):
 * the policy lives in a memfd the whole test run (and every forked test)
 * can read as /proc/self/fd/N.
 */
__attribute__((constructor(101))) static void unit_policy(void)
{
	static char path[64];
	int fd = (int)syscall(SYS_memfd_create, "advshim-unit.conf", 0);

	if (fd < 0 || write(fd, policy_text, sizeof(policy_text) - 1) < 0)
		abort();
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	setenv("ADVSHIM_CONFIG", path, 1);
	unsetenv("ADVSHIM_LOG");
	unsetenv("ADVSHIM_KVIEW");
}

void unit_init(void)
{
	snprintf(unit_dir, sizeof(unit_dir), "/tmp/advshim-unit.XXXXXX");
	cr_assert_not_null(mkdtemp(unit_dir), "mkdtemp: %s", strerror(errno));
	cr_assert_eq(shim_state_get(), SHIM_ACTIVE, "the shim is not active");
	cr_assert_not_null(strstr(shim_stats->policy_source, "/proc/self/fd/"),
			   "policy %s, not the tests' own",
			   shim_stats->policy_source);
}

void unit_fini(void)
{
	char p[sizeof(unit_dir) + sizeof(((struct dirent *)0)->d_name) + 1];
	struct dirent *e;
	DIR *d = opendir(unit_dir);

	if (!d)
		return;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.') {
			snprintf(p, sizeof(p), "%s/%s", unit_dir, e->d_name);
			unlink(p);
		}
	closedir(d);
	rmdir(unit_dir);
}

int unit_file(const char *name, long pages, char *path)
{
	char p[256];
	int fd;

	snprintf(p, sizeof(p), "%s/%s", unit_dir, name);
	fd = open(p, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	cr_assert_geq(fd, 0, "%s: %s", p, strerror(errno));
	cr_assert_eq(ftruncate(fd, pages * PG), 0);
	if (path)
		memcpy(path, p, sizeof(p));
	return fd;
}

char *unit_reserve(long pages)
{
	char *p = mmap(NULL, pages * PG, PROT_NONE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	cr_assert_neq(p, MAP_FAILED);
	return p;
}

char *unit_map(char *at, int fd, long pages, long off_pg)
{
	char *p = mmap(at, pages * PG, PROT_READ, MAP_SHARED | (at ? MAP_FIXED : 0),
		       fd, off_pg * PG);

	cr_assert_neq(p, MAP_FAILED, "mmap: %s", strerror(errno));
	return p;
}

int rr_at(const void *addr)
{
	return has_flag(addr, "rr") == 1;
}

int sr_at(const void *addr)
{
	return has_flag(addr, "sr") == 1;
}

bool table_range_at(const void *addr, struct map_node *out)
{
	const struct map_node *n;
	bool found;

	shim_rdlock();
	n = maptable_next(&shim.table, (uintptr_t)addr);
	found = n && n->start <= (uintptr_t)addr;
	if (found)
		*out = *n;
	shim_unlock();
	return found;
}

struct shim_file *table_file_at(const void *addr)
{
	struct map_node n;

	return table_range_at(addr, &n) ? node_file(&n) : NULL;
}

struct advshim_stats stat_snapshot(void)
{
	struct advshim_stats st;

	memcpy(&st, shim_stats, sizeof(st));
	advshim_stats_fold(&st);
	return st;
}
