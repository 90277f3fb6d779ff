// SPDX-License-Identifier: MIT
/*
 * test_shim_files.c - files.c's identity cache: one entry per (dev, ino)
 * whatever the path, a changed file (its ctime) refreshed in place, an
 * inode number reused by another file, the idle list and its cap, the
 * references table ranges hold, naming a descriptor, and posix_fadvise
 * deciding a cached file under the read lock.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/unit/shim_unit.h"

TestSuite(files, .init = unit_init, .fini = unit_fini);

/* A made-up identity on a device no real file has. */
static struct stat fake_stat(ino_t ino, long ctime_s)
{
	struct stat st;

	memset(&st, 0, sizeof(st));
	st.st_dev = (dev_t)0xfeedf00dU;
	st.st_ino = ino;
	st.st_mode = S_IFREG | 0644;
	st.st_ctim.tv_sec = ctime_s;
	return st;
}

static const struct policy_rule *rule_of(const char *path)
{
	return policy_match(shim.policy, path);
}

static struct shim_file *store(const struct stat *st, const char *path)
{
	struct shim_file *f;

	shim_wrlock();
	f = files_store(st, path, rule_of(path));
	shim_unlock();
	return f;
}

static struct shim_file *find(const struct stat *st)
{
	struct shim_file *f;

	shim_rdlock();
	f = files_find(st->st_dev, st->st_ino);
	shim_unlock();
	return f;
}

Test(files, one_entry_per_file_whatever_the_path)
{
	char a[256], b[256];
	int fd = unit_file("keep-a", 2, a), fd2;
	uint64_t known = STAT(files_known);
	char *p, *q;

	snprintf(b, sizeof(b), "%s/rw-link", unit_dir);
	cr_assert_eq(link(a, b), 0);
	fd2 = open(b, O_RDONLY | O_CLOEXEC);
	cr_assert_geq(fd2, 0);
	p = unit_map(NULL, fd, 2, 0);
	q = unit_map(NULL, fd2, 2, 0);
	cr_assert_eq(table_file_at(p), table_file_at(q));
	cr_assert_eq(table_file_at(p)->refs, 2);
	cr_assert_eq(STAT(files_known), known + 1);
	/* The first name seen decides: both mappings keep RANDOM. */
	cr_assert_str_eq(table_file_at(q)->rule->name, "keep");
	cr_assert_eq(posix_madvise(q, 2 * PG, POSIX_MADV_RANDOM), 0);
	cr_assert_eq(rr_at(q), 1);
}

Test(files, changed_file_refreshed_in_place)
{
	char a[256], b[256];
	int fd = unit_file("keep-a", 2, a), fd2;
	char *p = unit_map(NULL, fd, 2, 0);
	struct shim_file *f = table_file_at(p);
	unsigned long gen = table_gen();
	struct timespec before = f->ctime;

	snprintf(b, sizeof(b), "%s/rw-a", unit_dir);
	/* A rename changes the file's ctime: the entry is stale now. */
	cr_assert_eq(rename(a, b), 0);
	fd2 = open(b, O_RDONLY | O_CLOEXEC);
	cr_assert_geq(fd2, 0);
	unit_map(NULL, fd2, 2, 0);
	cr_assert_eq(table_file_at(p), f, "refreshed in place, not a new entry");
	cr_assert_str_eq(f->path, b);
	cr_assert_str_eq(f->rule->name, "other");
	cr_assert(f->ctime.tv_sec != before.tv_sec ||
		  f->ctime.tv_nsec != before.tv_nsec);
	cr_assert_gt(table_gen(), gen);
	/* The old mapping follows its file's new rule. */
	cr_assert_eq(posix_madvise(p, 2 * PG, POSIX_MADV_RANDOM), 0);
	cr_assert_eq(rr_at(p), 0);
}

/* Another file with the same inode number: told apart by its ctime. */
Test(files, reused_inode_number)
{
	struct stat old = fake_stat(42, 100), reused = fake_stat(42, 200);
	struct shim_file *f = store(&old, "/x/keep-a"), *g;
	unsigned long gen;

	cr_assert_not_null(f);
	cr_assert_str_eq(f->rule->name, "keep");
	__atomic_store_n(&f->logged, 1, __ATOMIC_RELAXED);
	shim_rdlock();
	cr_assert_eq(files_fresh(&old), f);
	cr_assert_null(files_fresh(&reused));
	shim_unlock();
	gen = table_gen();
	g = store(&reused, "/x/skip-b");
	cr_assert_eq(g, f);
	cr_assert_str_eq(g->path, "/x/skip-b");
	cr_assert_str_eq(g->rule->name, "skip");
	cr_assert_eq(g->ctime.tv_sec, 200);
	cr_assert_eq(__atomic_load_n(&g->logged, __ATOMIC_RELAXED), 0,
		     "a new file's first rewrite is logged again");
	cr_assert_gt(table_gen(), gen, "views must drop the old rule");
	shim_rdlock();
	cr_assert_null(files_fresh(&old));
	cr_assert_eq(files_fresh(&reused), g);
	shim_unlock();
	/* Storing a fresh entry again changes nothing. */
	gen = table_gen();
	cr_assert_eq(store(&reused, "/x/keep-c"), g);
	cr_assert_str_eq(g->path, "/x/skip-b");
	cr_assert_eq(table_gen(), gen);
}

Test(files, long_path_grows_the_entry)
{
	struct stat st = fake_stat(43, 1), st2 = fake_stat(43, 2);
	char path[2048];
	struct shim_file *f = store(&st, "/x/a");

	memset(path, 'p', sizeof(path) - 1);
	path[0] = '/';
	path[sizeof(path) - 1] = '\0';
	cr_assert_eq(store(&st2, path), f);
	cr_assert_str_eq(f->path, path);
	cr_assert_geq(f->path_size, sizeof(path));
}

/* Entries no range holds stay cached, up to FILES_IDLE_MAX, oldest out. */
Test(files, idle_entries_capped_oldest_first)
{
	struct stat first = fake_stat(1000, 1), held = fake_stat(1001, 1), st;
	struct shim_file *h;
	ino_t i;

	cr_assert_not_null(store(&first, "/x/first"));
	h = store(&held, "/x/held");
	shim_wrlock();
	files_get(h);			/* as a table range would */
	shim_unlock();
	for (i = 0; i < FILES_IDLE_MAX; i++) {
		st = fake_stat(2000 + i, 1);
		cr_assert_not_null(store(&st, "/x/other"));
	}
	cr_assert_null(find(&first), "the oldest idle entry was not dropped");
	cr_assert_eq(find(&held), h, "an entry with a reference was dropped");
	cr_assert_leq(shim.nr_idle, FILES_IDLE_MAX);
	st = fake_stat(2000, 1);
	cr_assert_not_null(find(&st));
	/* The last reference gone: idle again, newest, so the next out. */
	shim_wrlock();
	files_put(h);
	shim_unlock();
	cr_assert_eq(shim.idle_tail, h);
	cr_assert_null(find(&st), "the next oldest made room");
}

Test(files, table_ranges_hold_references)
{
	int fd = unit_file("rw-a", 4, NULL);
	char *p = unit_map(NULL, fd, 4, 0);
	struct shim_file *f = table_file_at(p);
	size_t idle;

	cr_assert_eq(f->refs, 1);
	cr_assert_null(f->idle_prev);
	cr_assert_neq(shim.idle_tail, f);
	cr_assert_eq(munmap(p + PG, PG), 0);	/* split: two ranges */
	cr_assert_eq(f->refs, 2);
	idle = shim.nr_idle;
	cr_assert_eq(munmap(p, 4 * PG), 0);
	cr_assert_eq(f->refs, 0);
	cr_assert_eq(shim.nr_idle, idle + 1);
	cr_assert_eq(shim.idle_tail, f);
	/* Mapped again: the same entry, off the idle list. */
	p = unit_map(NULL, fd, 4, 0);
	cr_assert_eq(table_file_at(p), f);
	cr_assert_eq(shim.nr_idle, idle);
}

Test(files, naming_a_descriptor)
{
	struct file_name n;
	char path[256];
	int fd = unit_file("skip-x", 1, path), pfd[2];

	files_name_fd(fd, &n);
	cr_assert_str_eq(n.path, path);
	cr_assert_str_eq(n.rule->name, "skip");
	cr_assert_eq(pipe(pfd), 0);
	files_name_fd(pfd[0], &n);
	cr_assert_eq(strncmp(n.path, "pipe:", 5), 0, "%s", n.path);
	cr_assert_null(n.rule);
	close(pfd[0]);
	files_name_fd(pfd[0], &n);
	cr_assert_str_eq(n.path, "");
	cr_assert_null(n.rule);
}

/* posix_fadvise: the file is cached once, then decided from the cache. */
Test(files, fadvise_uses_the_cache)
{
	char a[256], b[256];
	int fd = unit_file("rw-a", 1, a);
	uint64_t known = STAT(files_known), rw = STAT(rewritten);
	uint64_t calls = STAT(calls[ADV_FAMILY_FADVISE][ADV_RANDOM]);
	struct stat st;
	struct shim_file *f;

	cr_assert_eq(posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM), 0);
	cr_assert_eq(STAT(files_known), known + 1);
	cr_assert_eq(fstat(fd, &st), 0);
	f = find(&st);
	cr_assert_not_null(f);
	cr_assert_eq(posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM), 0);
	cr_assert_eq(STAT(files_known), known + 1);
	cr_assert_eq(find(&st), f);
	cr_assert_eq(STAT(rewritten), rw + 2);
	cr_assert_eq(STAT(calls[ADV_FAMILY_FADVISE][ADV_RANDOM]), calls + 2);
	/* Renamed (ctime changed): refreshed by the next call. */
	snprintf(b, sizeof(b), "%s/keep-a", unit_dir);
	cr_assert_eq(rename(a, b), 0);
	cr_assert_eq(posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM), 0);
	cr_assert_str_eq(f->path, b);
	cr_assert_str_eq(f->rule->name, "keep");
	/* Not a regular file: passed on, nothing cached. */
	cr_assert_eq(posix_fadvise(-1, 0, 0, POSIX_FADV_RANDOM), EBADF);
	cr_assert_eq(STAT(files_known), known + 1);
}
