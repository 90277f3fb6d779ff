/* SPDX-License-Identifier: MIT */
/*
 * guard.h - the mark advshim-watch leaves on each memory cgroup it ages:
 * the extended attribute GUARD_XATTR on the cgroup's directory, holding
 * the wall-clock second (decimal, CLOCK_REALTIME) of the watcher's latest
 * refresh.  The watcher refreshes it every GUARD_REFRESH_S while it ages
 * the memcg live (not in a dry run, not under lockdown) and removes it
 * when it stops; the shim's sampler reads it to know that a RANDOM stall
 * in its memcg will be ended (docs/adaptive.md, "Guarded").  A mark older
 * than GUARD_STALE_S (a watcher that died) does not count.
 *
 * cgroupfs takes user.* attributes since 5.7; where a write fails
 * (EOPNOTSUPP, or EROFS in a sandbox) nothing is marked and the shim's
 * choice is the unguarded one.
 *
 * The reader is for libadvshim.so's sampler: raw system calls, no
 * allocation, errno as on entry.  No locks; every function is
 * reentrant.
 */
#ifndef ADVSHIM_COMMON_GUARD_H
#define ADVSHIM_COMMON_GUARD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GUARD_XATTR	"user.advshim.watch"
#define GUARD_REFRESH_S	10	/* the watcher rewrites the mark this often */
#define GUARD_STALE_S	30	/* a mark older than this is a dead watcher's */
#define GUARD_VALUE_MAX	24	/* "18446744073709551615" and a NUL */
/* The longest poll period that keeps a refreshed mark fresh between ticks. */
#define GUARD_MAX_INTERVAL_MS	((GUARD_STALE_S - GUARD_REFRESH_S) * 1000)

/*
 * guard_parse - the mark's value (@len bytes, not NUL-terminated: as
 * getxattr returns it) into *@t_s.  Decimal digits only, no sign, at most
 * 20 digits, no overflow.  0 or -EINVAL.
 */
int guard_parse(const char *val, size_t len, uint64_t *t_s);

/*
 * guard_fresh - whether a mark written at @t_s still counts at @now_s:
 * at most GUARD_STALE_S old, and not from the future by more than that
 * (a clock step back on either side must not keep a dead mark alive).
 */
bool guard_fresh(uint64_t t_s, uint64_t now_s);

/*
 * guard_read - the mark on the directory @dir into *@t_s: 0, -ENODATA
 * (no mark), -EINVAL (garbled), or the negative errno of getxattr
 * (-ENOENT: the cgroup went away; -EOPNOTSUPP: no user attributes).
 * errno is the same on return as on entry.
 */
int guard_read(const char *dir, uint64_t *t_s);

/*
 * guard_mark - write the mark on @dir with @now_s; guard_clear - remove
 * it.  0 or a negative errno (guard_clear: -ENODATA is 0).  For the
 * watcher (root, the memcg's owner); errno as on entry.
 */
int guard_mark(const char *dir, uint64_t now_s);
int guard_clear(const char *dir);

#endif /* ADVSHIM_COMMON_GUARD_H */
