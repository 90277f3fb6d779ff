// SPDX-License-Identifier: MIT
/*
 * test_seccomp.c - the supervisor's lookups and decisions on real
 * processes, without a filter: sect_vma_at on this process's maps through
 * both paths (the PROCMAP_QUERY ioctl and the maps text), on a child that
 * execs (its old maps file reads as gone), and secd_decide on calls this
 * process "makes" (a secd_call built by hand, tid = this thread): drop,
 * keep, mixed ranges, the kernel's own errors, `processes`, fadvise.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tools/cli/seccomp.h"

#define PAGE 4096

static char dir[] = "/tmp/advshim-test-seccomp.XXXXXX";
static char file[64], keep[64];

/* Two 16-page files, keep-* and data.bin, in a fresh directory. */
static void files(void)
{
	char buf[16 * PAGE];
	int fd, i;

	cr_assert_not_null(mkdtemp(dir));
	snprintf(file, sizeof(file), "%s/data.bin", dir);
	snprintf(keep, sizeof(keep), "%s/keep-data.bin", dir);
	memset(buf, 'x', sizeof(buf));
	for (i = 0; i < 2; i++) {
		fd = open(i ? keep : file, O_CREAT | O_WRONLY | O_TRUNC, 0644);
		cr_assert_geq(fd, 0);
		cr_assert_eq(write(fd, buf, sizeof(buf)), (ssize_t)sizeof(buf));
		close(fd);
	}
}

static void cleanup(void)
{
	unlink(file);
	unlink(keep);
	rmdir(dir);
}

static char *map(const char *path, size_t len)
{
	int fd = open(path, O_RDONLY);
	char *p;

	cr_assert_geq(fd, 0);
	p = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
	cr_assert_neq(p, MAP_FAILED);
	close(fd);
	return p;
}

static struct policy *policy(const char *text)
{
	struct policy_error err;
	struct policy *p = NULL;

	cr_assert_eq(policy_parse_buffer(text, "test", &p, &err), 0, "%s",
		     err.msg);
	return p;
}

static const char *const rules =
	"version = 1;\n"
	"rules = (\n"
	"  { name = \"keepers\"; match = [ \"**/keep-*\" ]; random = \"keep\"; },\n"
	"  { name = \"rest\"; match = [ \"**\" ]; random = \"normal\";\n"
	"    fadvise = { random = \"skip\"; }; }\n"
	");\n";

TestSuite(vma, .init = files, .fini = cleanup);

/* Both paths find the mapping, its file and its bounds. */
Test(vma, the_ioctl_and_the_text_agree)
{
	char *p = map(file, 16 * PAGE);
	struct sect_vma v;
	bool no_query;
	int fd, pass;

	for (pass = 0; pass < 2; pass++) {
		no_query = pass == 1;
		fd = sect_maps_open((pid_t)syscall(SYS_gettid));
		cr_assert_geq(fd, 0);
		memset(&v, 0, sizeof(v));
		cr_assert_eq(sect_vma_at(fd, (uint64_t)(uintptr_t)p + PAGE, &v,
					 &no_query), 1);
		cr_expect_eq(v.start, (uint64_t)(uintptr_t)p);
		cr_expect_eq(v.end, (uint64_t)(uintptr_t)p + 16 * PAGE);
		cr_expect_str_eq(v.path, file, "pass %d", pass);
		cr_expect_neq(v.inode, 0);
		/* Past the end of the address space: none. */
		cr_expect_eq(sect_vma_at(fd, ~0ULL - PAGE, &v, &no_query), 0);
		close(fd);
	}
	munmap(p, 16 * PAGE);
}

/* A child's maps file opened before its exec reads as gone after it. */
Test(vma, a_maps_file_outlives_its_exec_as_esrch)
{
	int go[2], fd, pass, st;
	struct sect_vma v;
	bool no_query;
	pid_t c;
	char b;

	for (pass = 0; pass < 2; pass++) {
		cr_assert_eq(pipe(go), 0);
		c = fork();
		cr_assert_geq(c, 0);
		if (c == 0) {
			close(go[1]);
			if (read(go[0], &b, 1) != 1)
				_exit(1);
			execl("/bin/sleep", "sleep", "2", (char *)NULL);
			_exit(127);
		}
		close(go[0]);
		fd = sect_maps_open(c);
		cr_assert_geq(fd, 0);
		no_query = pass == 1;
		cr_assert_eq(sect_vma_at(fd, 0, &v, &no_query), 1);
		cr_assert_eq(write(go[1], "g", 1), 1);
		close(go[1]);
		usleep(300 * 1000);		/* sleep is running now */
		cr_expect_eq(sect_vma_at(fd, 0, &v, &no_query), -ESRCH,
			     "pass %d", pass);
		close(fd);
		kill(c, SIGKILL);
		waitpid(c, &st, 0);
	}
}

TestSuite(decide, .init = files, .fini = cleanup);

static void call(struct secd *d, void *addr, size_t len,
		 struct secd_result *r)
{
	struct secd_call c = {
		.tid = (pid_t)syscall(SYS_gettid),
		.nr = __NR_madvise,
		.args = { (uint64_t)(uintptr_t)addr, len, MADV_RANDOM },
	};

	secd_decide(d, &c, r);
}

Test(decide, per_mapping_as_the_policy_says)
{
	struct policy *p = policy(rules);
	static struct secd d;
	struct secd_result r;
	char *f = map(file, 16 * PAGE), *k = map(keep, 16 * PAGE);
	char *a = mmap(NULL, 4 * PAGE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int pass;

	for (pass = 0; pass < 2; pass++) {
		secd_init(&d, p);
		d.no_query = pass == 1;		/* the maps text */
		call(&d, f, 16 * PAGE, &r);
		cr_expect_eq(r.answer, SECD_DROP);
		cr_expect_eq(r.why, SECD_W_NORMAL);
		cr_expect_str_eq(r.path, file);
		cr_expect_str_eq(r.rule, "rest");
		cr_expect_eq(r.tgid, getpid());
		call(&d, f + PAGE, 100, &r);	/* len rounds up to a page */
		cr_expect_eq(r.answer, SECD_DROP);
		call(&d, k, 16 * PAGE, &r);
		cr_expect_eq(r.answer, SECD_CONTINUE);
		cr_expect_eq(r.why, SECD_W_KEEP);
		call(&d, a, 4 * PAGE, &r);
		cr_expect_eq(r.answer, SECD_CONTINUE);
		cr_expect_eq(r.why, SECD_W_NORULE);
		call(&d, f + 1, PAGE, &r);
		cr_expect_eq(r.why, SECD_W_KERNEL, "unaligned: EINVAL");
		call(&d, f, 0, &r);
		cr_expect_eq(r.why, SECD_W_KERNEL, "len 0");
		call(&d, f, ~(size_t)0, &r);
		cr_expect_eq(r.why, SECD_W_KERNEL, "wraps");
		cr_expect_eq(r.answer, SECD_CONTINUE);
		secd_count(&d, &r);
		secd_release(&d);
	}
	munmap(f, 16 * PAGE);
	munmap(k, 16 * PAGE);
	munmap(a, 4 * PAGE);
	policy_free(p);
}

/* A range over a dropped file and anonymous memory; a range with a hole. */
Test(decide, mixed_ranges_and_holes_continue)
{
	struct policy *p = policy(rules);
	static struct secd d;
	struct secd_result r;
	char *base = mmap(NULL, 8 * PAGE, PROT_READ,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int fd = open(file, O_RDONLY);

	cr_assert_neq(base, MAP_FAILED);
	cr_assert_neq(mmap(base, 4 * PAGE, PROT_READ, MAP_SHARED | MAP_FIXED,
			   fd, 0), MAP_FAILED);
	close(fd);
	secd_init(&d, p);
	call(&d, base, 8 * PAGE, &r);		/* file, then anonymous */
	cr_expect_eq(r.why, SECD_W_MIXED);
	cr_expect_eq(r.answer, SECD_CONTINUE);
	cr_assert_eq(munmap(base + 4 * PAGE, PAGE), 0);
	call(&d, base, 8 * PAGE, &r);		/* ...a hole: ENOMEM */
	cr_expect_eq(r.why, SECD_W_KERNEL);
	call(&d, base, 4 * PAGE, &r);		/* the file alone */
	cr_expect_eq(r.answer, SECD_DROP);
	secd_release(&d);
	munmap(base, 8 * PAGE);
	policy_free(p);
}

Test(decide, processes_and_fadvise)
{
	struct policy *p = policy("version = 1;\nprocesses = [ \"nothing-here\" ];\n"
				  "rules = ( { match = [ \"**\" ]; random = \"normal\"; } );\n");
	struct policy *q = policy(rules);
	static struct secd d;
	struct secd_result r;
	struct secd_call c = { .tid = (pid_t)syscall(SYS_gettid),
			       .nr = __NR_fadvise64 };
	char *f = map(file, 16 * PAGE);
	int fd = open(file, O_RDONLY);

	secd_init(&d, p);
	call(&d, f, 16 * PAGE, &r);
	cr_expect_eq(r.why, SECD_W_NOPROC);
	cr_expect_eq(r.answer, SECD_CONTINUE);
	secd_release(&d);

	secd_init(&d, q);
	c.args[0] = (uint64_t)fd;
	c.args[3] = POSIX_FADV_RANDOM;
	secd_decide(&d, &c, &r);
	cr_expect_eq(r.answer, SECD_DROP);
	cr_expect_eq(r.why, SECD_W_SKIP);
	cr_expect_str_eq(r.path, file);
	c.args[0] = 9999;			/* not open: EBADF */
	secd_decide(&d, &c, &r);
	cr_expect_eq(r.why, SECD_W_KERNEL);
	secd_release(&d);
	cr_expect(secf_policy_needs_fadvise(q));
	cr_expect(!secf_policy_needs_fadvise(p));
	close(fd);
	munmap(f, 16 * PAGE);
	policy_free(p);
	policy_free(q);
}

/* Counters: per process and per file, as `advshim inspect` shows them. */
Test(decide, counts_per_process_and_file)
{
	struct policy *p = policy(rules);
	static struct secd d;
	struct secd_result r;
	char *f = map(file, 16 * PAGE), *k = map(keep, 16 * PAGE);
	int i;

	secd_init(&d, p);
	for (i = 0; i < 3; i++) {
		call(&d, f, 16 * PAGE, &r);
		secd_count(&d, &r);
	}
	call(&d, k, 16 * PAGE, &r);
	secd_count(&d, &r);
	cr_assert_not_null(r.proc);
	cr_expect_eq(r.proc->trapped, 4);
	cr_expect_eq(r.proc->dropped, 3);
	cr_expect_eq(r.proc->continued, 1);
	cr_expect_eq(r.proc->nr_seen, 2);
	cr_expect_str_eq(r.proc->seen[0].path, file);
	cr_expect_eq(r.proc->seen[0].dropped, 3);
	cr_expect_eq(r.proc->why[SECD_W_KEEP], 1);
	cr_expect_eq(d.dropped, 3);
	secd_release(&d);
	munmap(f, 16 * PAGE);
	munmap(k, 16 * PAGE);
	policy_free(p);
}
