// SPDX-License-Identifier: MIT
/*
 * log.c - the shim's log: one write(2) per line, errno untouched, and never
 * a byte into a descriptor the application owns.
 *
 * Lines are formatted on the stack (no malloc: we may be inside mmap called
 * by an allocator) and written with a single raw write so concurrent
 * threads' lines do not interleave.  Off except warnings by default.
 *
 * Where a line goes (README "Logging"), holding no descriptor between
 * lines: a program that lists its own descriptors (CPython's
 * test_subprocess does, in every child) must find only its own, and one
 * that closes or reuses any number must lose nothing to the shim.
 *  - A file target is opened for each line, O_APPEND | O_CLOEXEC, written
 *    once (after the UTC time: common/utc.c, no libc time zone lock) and
 *    closed: a line costs an openat and a close more, and lines
 *    are rare below level debug (a file's first rewrite).  The number is
 *    the caller's thread's for the length of the write, as for any libc
 *    call that opens a file; the sampler opens in a table of its own.  A
 *    target that cannot be opened is said once on stderr; its lines go
 *    there.  Nothing is opened for a process that logs nothing (level
 *    off).
 *  - stderr is fd 2 only while fd 2 is the file it was when the shim
 *    started (log_init): a process that closed it and reused the number
 *    gets no shim line in its file.  The shim never holds a copy of fd 2
 *    (a pipe's reader would wait for that writer).  A thread with a
 *    private table reaches the application's fd 2 through pidfd_getfd.
 *
 * Never under shim.lock: a write to a full pipe or a slow terminal, an
 * open on a slow file system, would stall every thread waiting for the
 * lock (a line's time is read under it: clock_gettime, the vDSO's, or
 * a system call that never blocks where the clock source has none).  A line logged by a holder (shim_log_held) is appended to the
 * thread's own buffer, and shim_unlock() writes the buffer once the lock
 * is released, all its lines in one write(2).  1 KiB holds the lines of
 * any call below level debug (a file's first rewrite, one a file); a
 * debug call over many mappings may overflow it: the lines that did not
 * fit are counted, and said in one more line.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "common/utc.h"
#include "shim/shim.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open		434
#endif
#ifndef SYS_pidfd_getfd
#define SYS_pidfd_getfd		438
#endif

/* A file's identity; dev 0 and ino 0 together: none (never a real file). */
struct file_id {
	uint64_t dev, ino;
};

static struct {
	char target[PATH_MAX];		/* "" : stderr */
	struct file_id err_id;		/* fd 2 at log_init; 0: none */
	int failed;			/* atomic: the target cannot be opened */
} lg;

__thread int shim_fd_private __attribute__((tls_model("initial-exec")));
__thread int shim_log_held __attribute__((tls_model("initial-exec")));
__thread unsigned int shim_log_waiting __attribute__((tls_model("initial-exec")));

#define LOG_LINE_MAX	1024

/* This thread's lines logged under shim.lock, waiting for log_flush(). */
static __thread struct {
	char text[LOG_LINE_MAX];
	unsigned int dropped;		/* lines that did not fit */
} waiting __attribute__((tls_model("initial-exec")));

static bool fd_id_get(int fd, struct file_id *id)
{
	struct stat st;

	if (fd < 0 || syscall(SYS_fstat, fd, &st))
		return false;
	id->dev = (uint64_t)st.st_dev;
	id->ino = (uint64_t)st.st_ino;
	return true;
}

/* Whether @fd is open on the file @id names (@id: written once, at init). */
static bool fd_is(int fd, const struct file_id *id)
{
	struct file_id now;

	return fd_id_get(fd, &now) && now.dev == id->dev && now.ino == id->ino;
}

static int open_target(void)
{
	return (int)syscall(SYS_openat, AT_FDCWD, lg.target,
			    O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
}

static void write_stderr(const char *line, size_t n)
{
	int pidfd, fd;

	if (!lg.err_id.dev && !lg.err_id.ino)
		return;
	if (!shim_fd_private) {
		if (fd_is(2, &lg.err_id))
			(void)!sys_write(2, line, n);
		return;
	}
	/* A private table: borrow the application's fd 2 for this line. */
	pidfd = (int)syscall(SYS_pidfd_open, getpid(), 0);
	if (pidfd < 0)
		return;
	fd = (int)syscall(SYS_pidfd_getfd, pidfd, 2, 0);
	sys_close(pidfd);
	if (fd >= 0 && fd_is(fd, &lg.err_id))
		(void)!sys_write(fd, line, n);
	if (fd >= 0)
		sys_close(fd);
}

/* The first failure to open the target, said once on stderr. */
static void target_failed(int err)
{
	char msg[PATH_MAX + 128];
	int n;

	if (__atomic_exchange_n(&lg.failed, 1, __ATOMIC_RELAXED))
		return;
	n = snprintf(msg, sizeof(msg),
		     "advshim[%d]: log target %s: %s; logging to stderr\n",
		     (int)getpid(), lg.target, strerror(err));
	if (n > 0)
		write_stderr(msg, (size_t)n < sizeof(msg) ? (size_t)n : sizeof(msg) - 1);
}

static void write_file(const char *line, size_t n)
{
	int fd = open_target();

	if (fd < 0) {
		target_failed(errno);
		write_stderr(line, n);
		return;
	}
	(void)!sys_write(fd, line, n);
	sys_close(fd);
}

void log_init(void)
{
	int saved = errno;

	if (!fd_id_get(2, &lg.err_id))
		lg.err_id = (struct file_id){ 0, 0 };
	errno = saved;
}

void log_set_target(const char *target)
{
	size_t n = target && target[0] == '/' ? strlen(target) : 0;

	if (n >= sizeof(lg.target))
		n = 0;		/* cannot be a path: stderr */
	if (n)
		memcpy(lg.target, target, n);
	lg.target[n] = '\0';
}

/*
 * The head of a line into @buf (@len bytes): "advshim[PID]: ", after the
 * UTC time to the millisecond when the lines go to a file target (stderr
 * is stamped by whatever reads it: the journal, a container runtime).
 * Decided when the line is formatted: the lines formatted before a first
 * failure to open the target go to stderr with their time.  Returns its
 * length.
 */
static int line_head(char *buf, size_t len)
{
	char stamp[UTC_STAMP_LEN];

	if (!lg.target[0] || __atomic_load_n(&lg.failed, __ATOMIC_RELAXED) ||
	    utc_stamp_now(stamp, sizeof(stamp)) < 0)
		return snprintf(buf, len, "advshim[%d]: ", (int)getpid());
	return snprintf(buf, len, "%s advshim[%d]: ", stamp, (int)getpid());
}

/* Where a formatted line goes: the target, or stderr. */
static void emit(const char *text, size_t n)
{
	if (lg.target[0] && !__atomic_load_n(&lg.failed, __ATOMIC_RELAXED))
		write_file(text, n);
	else
		write_stderr(text, n);
}

/*
 * With shim.lock held: keep the line for log_flush().  A line is at most
 * the buffer's size, so one is dropped only behind another: a count is
 * never left without waiting bytes to flush it.
 */
static void keep(const char *line, size_t n)
{
	if (n > sizeof(waiting.text) - shim_log_waiting) {
		waiting.dropped++;
		return;
	}
	memcpy(waiting.text + shim_log_waiting, line, n);
	shim_log_waiting += (unsigned int)n;
}

void shim_log(int level, const char *fmt, ...)
{
	char line[LOG_LINE_MAX];
	int saved = errno, n;
	va_list ap;

	if (level > shim.log_level || level == POLICY_LOG_OFF)
		goto out;
	n = line_head(line, sizeof(line));
	va_start(ap, fmt);
	n += vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
	va_end(ap);
	if (n > (int)sizeof(line) - 2)
		n = (int)sizeof(line) - 2;
	line[n++] = '\n';
	if (shim_log_held)
		keep(line, (size_t)n);
	else
		emit(line, (size_t)n);
out:
	errno = saved;
}

void log_flush(void)
{
	char note[128];
	unsigned int dropped = waiting.dropped;
	int saved = errno, n;

	if (shim_log_waiting)
		emit(waiting.text, shim_log_waiting);
	shim_log_waiting = 0;
	waiting.dropped = 0;
	if (dropped) {
		n = line_head(note, sizeof(note));
		n += snprintf(note + n, sizeof(note) - (size_t)n,
			      "%u lines not logged (over 1 KiB in one call)\n",
			      dropped);
		if (n > 0 && (size_t)n < sizeof(note))
			emit(note, (size_t)n);
	}
	errno = saved;
}
