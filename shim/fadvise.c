// SPDX-License-Identifier: MIT
/*
 * fadvise.c - posix_fadvise and posix_fadvise64.
 *
 * The file is identified by fstat(fd) (regular files only); its decision
 * comes from the same (dev, ino) cache the mappings use.  The result is
 * the next definition's (0 or an error number, errno untouched); a skip
 * returns 0 without a system call.  Advice no rule acts on goes straight
 * on, counted in stats `passed`.
 */
#include <errno.h>
#include <fcntl.h>

#include "shim/calls.h"

/*
 * The advice to issue for regular file @st open on @fd (ADV_SKIP: none):
 * a cached file is decided under the read lock; a new or changed one is
 * named outside the lock and stored under the write lock.  The caller's
 * advice when the cache cannot hold the file (pass through).
 */
static int advice_for_fd(const struct adv_call *c, const struct stat *st,
			 off_t off, off_t len)
{
	struct file_name name;
	struct shim_file *f;
	int to = c->advice;

	shim_rdlock();
	f = files_fresh(st);
	if (f)
		to = decide(c, f, f->rule, f->path, off, len);
	shim_unlock();
	if (f)
		return to;
	files_name_fd(c->fd, &name);
	shim_wrlock();
	f = files_store(st, name.path, name.rule);
	if (f)
		to = decide(c, f, f->rule, f->path, off, len);
	shim_unlock();
	return to;
}

static int fadvise_common(int fd, off_t off, off_t len, int advice, bool is64)
{
	struct adv_call c = {
		.api = "posix_fadvise",
		.family = ADV_FAMILY_FADVISE,
		.kind = adv_from_fadvise(advice),
		.advice = advice,
		.fd = fd,
	};
	struct stat st;
	int saved, to = advice;

	if (!shim_activate())
		goto call;
	if (likely(!shim_acts_on(c.family, c.kind))) {
		STAT_HOT(passed[ADV_FAMILY_FADVISE][c.kind]);
		goto call;
	}
	STAT_HOT(calls[ADV_FAMILY_FADVISE][c.kind]);
	saved = errno;
	shim_busy++;
	if (!syscall(SYS_fstat, fd, &st) && S_ISREG(st.st_mode))
		to = advice_for_fd(&c, &st, off, len);
	shim_busy--;
	errno = saved;
	if (to == ADV_SKIP)
		return 0;
call:
	return is64 ? call_posix_fadvise64(fd, off, len, to) :
		      call_posix_fadvise(fd, off, len, to);
}

SHIM_EXPORT int posix_fadvise(int fd, off_t off, off_t len, int advice)
{
	return fadvise_common(fd, off, len, advice, false);
}

SHIM_EXPORT int posix_fadvise64(int fd, off_t off, off_t len, int advice)
{
	return fadvise_common(fd, off, len, advice, true);
}

SHIM_SELF(posix_fadvise);
SHIM_SELF(posix_fadvise64);
