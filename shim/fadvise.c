// SPDX-License-Identifier: MIT
/*
 * fadvise.c - posix_fadvise and posix_fadvise64.
 *
 * The file is identified by fstat(fd) (regular files only); its decision
 * comes from the same (dev, ino) cache the mappings use.  The result is
 * the next definition's (0 or an error number, errno untouched); a skip
 * returns 0 without a system call.
 */
#include <errno.h>
#include <fcntl.h>

#include "shim/shim.h"

/*
 * The advice to issue for the file @st describes, open on @fd (-1: skip),
 * counting and logging it as advise.c does.  shim.lock held (either mode).
 */
static int decide(struct shim_file *f, int fd, off_t off, off_t len,
		  int advice)
{
	enum adv_kind kind = adv_from_fadvise(advice);
	struct adv_action a = policy_decide(f->rule, ADV_FAMILY_FADVISE, kind);
	int to = advice;
	char what[64];

	if (a.act == ADV_ACT_REWRITE && adv_to_fadvise(a.to) >= 0)
		to = adv_to_fadvise(a.to);
	else if (a.act == ADV_ACT_SKIP)
		to = -1;
	if (to == advice) {
		STAT_INC(kept);
	} else {
		if (to < 0)
			STAT_INC(skipped);
		else
			STAT_INC(rewritten);
		if (!__atomic_exchange_n(&f->logged, 1, __ATOMIC_RELAXED))
			shim_log(POLICY_LOG_INFO, "%s %s: fadvise %s -> %s (%s)",
				 to < 0 ? "skip" : "rewrite", f->path,
				 adv_kind_name(kind),
				 to < 0 ? "nothing" : adv_kind_name(a.to),
				 f->rule ? f->rule->name : "-");
	}
	if (shim.log_level >= POLICY_LOG_DEBUG) {
		adv_action_format(a, what, sizeof(what));
		shim_log(POLICY_LOG_DEBUG, "posix_fadvise(%d, %lld, %lld, %s) %s: %s (%s)",
			 fd, (long long)off, (long long)len, adv_kind_name(kind),
			 f->path, what, f->rule ? f->rule->name : "no rule");
	}
	return to;
}

/*
 * The advice to issue for regular file @st open on @fd: a cached file is
 * decided under the read lock; a new or changed one is named outside the
 * lock and stored under the write lock.  Returns @advice when the cache
 * cannot hold the file (pass through).
 */
static int advice_for_fd(int fd, const struct stat *st, off_t off, off_t len,
			 int advice)
{
	struct file_name name;
	struct shim_file *f;
	int to = advice;

	shim_rdlock();
	f = files_fresh(st);
	if (f)
		to = decide(f, fd, off, len, advice);
	shim_unlock();
	if (f)
		return to;
	files_name_fd(fd, &name);
	shim_wrlock();
	f = files_store(st, name.path, name.rule);
	if (f)
		to = decide(f, fd, off, len, advice);
	shim_unlock();
	return to;
}

static int fadvise_common(int fd, off_t off, off_t len, int advice, bool is64)
{
	enum adv_kind kind = adv_from_fadvise(advice);
	struct stat st;
	int saved, to = advice;

	if (likely(!shim_activate() || !shim_acts_on(ADV_FAMILY_FADVISE, kind)))
		goto call;
	saved = errno;
	shim_busy++;
	STAT_INC(calls[ADV_FAMILY_FADVISE][kind]);
	if (!syscall(SYS_fstat, fd, &st) && S_ISREG(st.st_mode))
		to = advice_for_fd(fd, &st, off, len, advice);
	shim_busy--;
	errno = saved;
	if (to < 0)
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
