// SPDX-License-Identifier: MIT
/*
 * fdprog - an application that owns its descriptors, for fds.sh.
 *
 *   fdprog file   FLOOR DATA MAPFILE   the log target is a file
 *   fdprog stderr FLOOR DATA MAPFILE   the log target is stderr
 *   fdprog off    FLOOR DATA MAPFILE   level off
 *   fdprog sampler FLOOR DATA MAPFILE  the adaptive sampler's table
 *
 * Each mode does what daemons and test suites do with descriptors (close
 * 0-2 and expect the next open to get 0, closerange(3, ~0), a data file
 * on a number the shim used), makes the shim log (mmap and MADV_RANDOM of
 * MAPFILE: at level debug every call is a line), and checks from inside
 * that no descriptor of the shim's is left in its table below FLOOR (the
 * harness passes the descriptor limit: none anywhere) and that DATA holds
 * exactly the bytes it wrote.  Prints "ok MODE" or "FAIL: why" and
 * exits 0 or 1.  The application's fd 2 may be closed: messages go to
 * fd 1, reopened on /dev/stdout's file by the harness (FDPROG_OUT).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

static const char *out_path;	/* where verdicts go (the fds may be closed) */
static int floor_fd;

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void say(const char *fmt, ...)
{
	char line[512];
	va_list ap;
	int fd, n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if (n >= (int)sizeof(line))
		n = (int)sizeof(line) - 1;

	fd = open(out_path, O_WRONLY | O_APPEND | O_CLOEXEC);
	if (fd >= 0) {
		(void)!write(fd, line, (size_t)n);
		close(fd);
	}
}

#define FAIL(fmt, ...) do { say("FAIL: " fmt "\n", __VA_ARGS__); exit(1); } while (0)

/* The numbers open in this process below FLOOR (fds.sh: the limit), as "0,1,7,". */
struct fds {
	char list[4096];
};

static void fds_now(struct fds *out)
{
	static unsigned char open_[65536];
	struct dirent *d;
	DIR *dir = opendir("/proc/self/fd");
	size_t len = 0;
	int self, n;

	if (!dir)
		FAIL("opendir /proc/self/fd: %s", strerror(errno));
	memset(open_, 0, sizeof(open_));
	self = dirfd(dir);
	while ((d = readdir(dir))) {
		n = atoi(d->d_name);
		if (d->d_name[0] != '.' && n != self && n < floor_fd &&
		    n < (int)sizeof(open_))
			open_[n] = 1;
	}
	closedir(dir);
	out->list[0] = '\0';
	for (n = 0; n < (int)sizeof(open_) && len + 8 < sizeof(out->list); n++)
		if (open_[n])
			len += (size_t)snprintf(out->list + len, sizeof(out->list) - len,
						"%d,", n);
}

/* The table must be as it was in @before. */
static void fds_same(const struct fds *before, const char *when)
{
	struct fds now;

	fds_now(&now);
	if (strcmp(now.list, before->list))
		FAIL("the fd table changed %s: %s, was %s", when, now.list,
		     before->list);
}

/* No descriptor of this process is open on @path (the shim's log file). */
static void none_on(const char *path)
{
	char link[300], to[4096];
	struct dirent *d;
	DIR *dir;
	ssize_t n;

	if (!path || !(dir = opendir("/proc/self/fd")))
		return;
	while ((d = readdir(dir))) {
		snprintf(link, sizeof(link), "/proc/self/fd/%s", d->d_name);
		n = readlink(link, to, sizeof(to) - 1);
		if (n > 0 && (to[n] = '\0', !strcmp(to, path)))
			FAIL("descriptor %s is open on the shim's log %s", d->d_name, path);
	}
	closedir(dir);
}

/* Make the shim log: a fresh mapping of @path advised RANDOM. */
static void shim_lines(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	void *p;

	if (fd < 0)
		FAIL("open %s: %s", path, strerror(errno));
	p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		FAIL("mmap %s: %s", path, strerror(errno));
	close(fd);
	if (madvise(p, 4096, MADV_RANDOM) || posix_madvise(p, 4096, POSIX_MADV_NORMAL))
		FAIL("madvise %s: %s", path, strerror(errno));
	munmap(p, 4096);
}

/* @path must hold exactly @want. */
static void data_is(const char *path, const char *want)
{
	char buf[4096];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		FAIL("open %s: %s", path, strerror(errno));
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	if (strcmp(buf, want))
		FAIL("the data file holds other bytes: [%s] (%zd bytes)", buf, n);
}

/* Close 0-2; the next open must get 0, as for any program. */
static void expect_lowest(void)
{
	int fd;

	close(0);
	close(1);
	close(2);
	fd = open("/dev/null", O_RDONLY);
	if (fd != 0)
		FAIL("open after closing 0-2 got %d, not 0", fd);
	close(fd);
}

/* Log target a file: closerange, then the numbers the shim used reused. */
static void mode_file(const char *data, const char *map)
{
	struct fds before;
	int fd;

	shim_lines(map);		/* the log file was written by now */
	none_on(getenv("FDPROG_LOG"));
	expect_lowest();
	/* Like a daemon: 0-2 on /dev/null, everything else closed. */
	for (fd = 0; fd < 3; fd++)
		if (open("/dev/null", O_RDWR) != fd)
			FAIL("reopening %d on /dev/null", fd);
	syscall(SYS_close_range, 3U, ~0U, 0);
	fd = open(data, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd != 3)
		FAIL("data file opened at %d, not 3", fd);
	(void)!write(fd, "mine\n", 5);
	fds_now(&before);
	shim_lines(map);
	shim_lines(map);
	fds_same(&before, "around the shim's lines");
	close(fd);
	data_is(data, "mine\n");
}

/* Log target stderr: fd 2 closed and reused for a data file. */
static void mode_stderr(const char *data, const char *map)
{
	int fd;

	shim_lines(map);
	close(2);
	fd = open(data, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd != 2)
		FAIL("data file opened at %d, not 2", fd);
	(void)!write(fd, "mine\n", 5);
	shim_lines(map);
	close(fd);
	data_is(data, "mine\n");
}

/* Level off: the table unchanged around logging calls, and no log file. */
static void mode_off(const char *data, const char *map)
{
	struct fds before;
	struct stat st;

	fds_now(&before);
	shim_lines(map);
	fds_same(&before, "at level off");
	expect_lowest();
	if (!stat(data, &st))
		FAIL("%s: the log file exists at level off", data);
}

/* The thread named "advshim" in this process, or 0. */
static long sampler_tid(void)
{
	char path[320], name[32];
	struct dirent *d;
	DIR *dir = opendir("/proc/self/task");
	long tid = 0;
	FILE *f;

	while (dir && !tid && (d = readdir(dir))) {
		snprintf(path, sizeof(path), "/proc/self/task/%s/comm", d->d_name);
		f = fopen(path, "re");
		if (f && fgets(name, sizeof(name), f) && !strcmp(name, "advshim\n"))
			tid = atol(d->d_name);
		if (f)
			fclose(f);
	}
	if (dir)
		closedir(dir);
	return tid;
}

/* Adaptive: the sampler reads in a descriptor table that is not ours. */
static void mode_sampler(const char *data, const char *map)
{
	char path[128];
	struct dirent *d;
	long tid = 0;
	int i, fd, n = 0;
	DIR *dir;

	fd = open(data, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	shim_lines(map);
	for (i = 0; i < 200 && !(tid = sampler_tid()); i++)
		usleep(10000);
	if (!tid)
		FAIL("no sampler thread after %d s", 2);
	snprintf(path, sizeof(path), "/proc/self/task/%ld/fd", tid);
	dir = opendir(path);
	while (dir && (d = readdir(dir)))
		if (d->d_name[0] != '.' && atoi(d->d_name) == fd)
			n++;
	if (dir)
		closedir(dir);
	if (n)
		FAIL("the sampler's table holds the application's fd %d", fd);
	close(fd);
}

int main(int argc, char **argv)
{
	if (argc != 5 || !(out_path = getenv("FDPROG_OUT"))) {
		fprintf(stderr, "usage: FDPROG_OUT=F fdprog MODE FLOOR DATA MAPFILE\n");
		return 2;
	}
	floor_fd = atoi(argv[2]);
	if (!strcmp(argv[1], "file"))
		mode_file(argv[3], argv[4]);
	else if (!strcmp(argv[1], "stderr"))
		mode_stderr(argv[3], argv[4]);
	else if (!strcmp(argv[1], "off"))
		mode_off(argv[3], argv[4]);
	else if (!strcmp(argv[1], "sampler"))
		mode_sampler(argv[3], argv[4]);
	else
		FAIL("unknown mode %s", argv[1]);
	say("ok %s\n", argv[1]);
	return 0;
}
