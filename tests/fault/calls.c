// SPDX-License-Identifier: MIT
/*
 * calls.c - advshim-fault-calls: every intercepted call, with a transcript.
 *
 * usage: advshim-fault-calls FILE [--eat-as] [--eat-fds]
 *
 * Makes a fixed sequence of mmap/mmap64/madvise/posix_madvise/
 * posix_fadvise(64)/mremap/munmap/dlsym calls (good and bad arguments, a
 * file mapping the shim registers and one it cannot know: mapped by a raw
 * syscall) and prints, for each, the return value and errno (errno is set
 * to 1234 before each call, so "errno unchanged" shows as 1234).  The
 * transcript must be identical with and without the shim under the same
 * fault; lines starting with "info" (whether `rr` is in force) may
 * differ.  Output goes through write(2) from stack buffers: no malloc,
 * which may be failing on purpose.
 *   --eat-as   first lower RLIMIT_AS to what is mapped now + 64 KiB, so
 *              any bigger allocation (the shim's slab chunks) fails
 *   --eat-fds  first dup() until EMFILE, so nothing can open a file
 *   --arm-malloc  call failmalloc_arm() (tests/fault/failmalloc.c, when
 *              preloaded) so every malloc fails from here on
 * Exit 0 unless the setup itself failed (2).
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/smaps.h"

#define PG 4096UL

static void out(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void out(const char *fmt, ...)
{
	char buf[256];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n > 0 && write(1, buf, (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1) < 0)
		_exit(2);
}

static void ret_int(const char *what, int r)
{
	out("%-44s ret %d errno %d\n", what, r, errno);
}

static void ret_ptr(const char *what, void *p)
{
	out("%-44s %s errno %d\n", what, p == MAP_FAILED ? "MAP_FAILED" : "ok", errno);
}

/* VmFlags rr of the VMA at @p, read without malloc. */
static void info_rr(const char *what, void *p)
{
	static char buf[1 << 20];
	int fd = open("/proc/self/smaps", O_RDONLY | O_CLOEXEC), rr;
	ssize_t n, len = 0;

	if (fd < 0) {
		out("info %s rr unknown (smaps: errno %d)\n", what, errno);
		return;
	}
	while ((n = read(fd, buf + len, sizeof(buf) - 1 - (size_t)len)) > 0)
		len += n;
	close(fd);
	rr = smaps_flag_at(buf, (size_t)len, (uintptr_t)p, "rr");
	out("info %s rr %d\n", what, rr);
}

static void eat_as(void)
{
	char buf[256];
	unsigned long pages = 0;
	int fd = open("/proc/self/statm", O_RDONLY);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
	struct rlimit rl;

	if (n <= 0 || sscanf(buf, "%lu", &pages) != 1)
		_exit(2);
	close(fd);
	rl.rlim_cur = rl.rlim_max = pages * PG + 64 * 1024;
	if (setrlimit(RLIMIT_AS, &rl))
		_exit(2);
}

static int eat_fds(void)
{
	int n = 0;

	while (dup(0) >= 0)
		n++;
	return errno == EMFILE ? n : -1;
}

int main(int argc, char **argv)
{
	int (*dl_pm)(void *, size_t, int);
	int fd, r;
	char *p, *q, *raw;

	if (argc < 2)
		return 2;
	fd = open(argv[1], O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return 2;
	/* Resolved before any fault: dlsym itself may allocate. */
	dl_pm = (int (*)(void *, size_t, int))dlsym(RTLD_DEFAULT, "posix_madvise");
	for (int i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "--eat-as"))
			eat_as();
		else if (!strcmp(argv[i], "--eat-fds") && eat_fds() < 0)
			return 2;
		else if (!strcmp(argv[i], "--arm-malloc")) {
			void (*arm)(void) = (void (*)(void))dlsym(RTLD_DEFAULT,
							  "failmalloc_arm");

			if (!arm)
				return 2;
			arm();
		}
	}

	errno = 1234; p = mmap(NULL, 4 * PG, PROT_READ, MAP_SHARED, fd, 0);
	ret_ptr("mmap file 4 pages", p);
	errno = 1234; r = madvise(p, 4 * PG, MADV_RANDOM);
	ret_int("madvise RANDOM", r);
	info_rr("after madvise RANDOM", p);
	errno = 1234; r = madvise(p, 4 * PG, MADV_NORMAL);
	ret_int("madvise NORMAL", r);
	errno = 1234; r = posix_madvise(p, 2 * PG, POSIX_MADV_RANDOM);
	ret_int("posix_madvise RANDOM (half)", r);
	info_rr("after posix_madvise RANDOM", p);
	errno = 1234; r = dl_pm ? dl_pm(p + 2 * PG, 2 * PG, POSIX_MADV_RANDOM) : -99;
	ret_int("dlsym(posix_madvise) RANDOM (other half)", r);
	errno = 1234; r = madvise(p, 4 * PG, MADV_SEQUENTIAL);
	ret_int("madvise SEQUENTIAL", r);
	errno = 1234; r = madvise(p, 4 * PG, 99);
	ret_int("madvise invalid 99", r);
	errno = 1234; r = posix_madvise(p, 4 * PG, 99);
	ret_int("posix_madvise invalid 99", r);
	errno = 1234; r = madvise(p + 1, PG, MADV_RANDOM);
	ret_int("madvise unaligned", r);
	errno = 1234; r = madvise(NULL, 0, 23);
	ret_int("madvise(NULL, 0, 23) (HotSpot probe)", r);
	errno = 1234; r = posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM);
	ret_int("posix_fadvise RANDOM", r);
	errno = 1234; r = posix_fadvise64(fd, 0, 0, POSIX_FADV_NOREUSE);
	ret_int("posix_fadvise64 NOREUSE", r);
	errno = 1234; r = posix_fadvise(-1, 0, 0, POSIX_FADV_RANDOM);
	ret_int("posix_fadvise bad fd", r);
	errno = 1234; r = posix_fadvise(fd, 0, 0, 99);
	ret_int("posix_fadvise invalid 99", r);
	errno = 1234; q = mremap(p, 4 * PG, 8 * PG, MREMAP_MAYMOVE);
	ret_ptr("mremap grow", q);
	if (q != MAP_FAILED)
		p = q;
	errno = 1234; r = madvise(p, 4 * PG, MADV_RANDOM);
	ret_int("madvise RANDOM after mremap", r);
	info_rr("after mremap + RANDOM", p);
	errno = 1234; r = munmap(p + PG, PG);
	ret_int("munmap a hole", r);
	errno = 1234; r = madvise(p, 4 * PG, MADV_RANDOM);
	ret_int("madvise RANDOM across the hole", r);
	errno = 1234; r = munmap(p, 8 * PG);
	ret_int("munmap all", r);
	errno = 1234; r = madvise(p, 4 * PG, MADV_RANDOM);
	ret_int("madvise RANDOM unmapped", r);
	errno = 1234; raw = (char *)syscall(SYS_mmap, NULL, 2 * PG, PROT_READ, MAP_SHARED, fd, 0);
	ret_ptr("raw syscall mmap (unknown to the shim)", raw);
	errno = 1234; r = madvise(raw, 2 * PG, MADV_RANDOM);
	ret_int("madvise RANDOM on the unknown mapping", r);
	info_rr("unknown mapping after RANDOM", raw);
	errno = 1234; p = mmap(NULL, PG, PROT_READ, MAP_SHARED, 999, 0);
	ret_ptr("mmap bad fd", p);
	errno = 1234; p = mmap(NULL, PG, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ret_ptr("mmap anonymous", p);
	errno = 1234; r = madvise(p, PG, MADV_RANDOM);
	ret_int("madvise RANDOM anonymous", r);
	errno = 1234; p = mmap64(NULL, 2 * PG, PROT_READ, MAP_PRIVATE, fd, 0);
	ret_ptr("mmap64 file", p);
	errno = 1234; r = madvise(p, 2 * PG, MADV_RANDOM);
	ret_int("madvise RANDOM mmap64", r);
	return 0;
}
