/* SPDX-License-Identifier: MIT */
/*
 * log.h - the shim's log lines (log.c): where they go and which
 * descriptors that takes.  Included by shim.h.
 */
#ifndef ADVSHIM_LOG_H
#define ADVSHIM_LOG_H

#include "shim/sys.h"

/* Non-zero in a thread with a descriptor table of its own (the sampler). */
extern __thread int shim_fd_private
	__attribute__((tls_model("initial-exec"))) SHIM_HIDDEN;

/*
 * log_init - remember which file fd 2 is now (the stderr target writes to
 * fd 2 only while it is that file).  Called once, first thing in
 * shim_init; errno preserved.
 */
void log_init(void) SHIM_HIDDEN;

/*
 * log_set_target - the policy's log.target: an absolute path (copied; the
 * file is opened for each line written) or anything else for stderr.
 * Called by shim_init before any other thread can log through the target.
 */
void log_set_target(const char *target) SHIM_HIDDEN;

/*
 * Non-zero while this thread holds shim.lock (shim_rdlock/shim_wrlock set
 * it, shim_unlock clears it): its log lines wait in a buffer of its own.
 */
extern __thread int shim_log_held
	__attribute__((tls_model("initial-exec"))) SHIM_HIDDEN;
/* Bytes of this thread's lines waiting for log_flush(). */
extern __thread unsigned int shim_log_waiting
	__attribute__((tls_model("initial-exec"))) SHIM_HIDDEN;

/*
 * shim_log - one line "advshim[PID]: ..." at @level (enum
 * policy_log_level) if the level in force allows it: formatted on the
 * stack, truncated to 1 KiB, one write(2) to the log target.  A file
 * target is opened and closed around each line (log.c: the shim holds no
 * descriptor); fd 2 is written only while it is the file of the shim's
 * start.  Called with shim.lock held (shim_log_held), it makes no system
 * call: the line waits in the thread's buffer (1 KiB; lines that do not
 * fit are counted) until shim_unlock() calls log_flush().  No malloc, no
 * lock, errno preserved, write errors ignored.
 */
void shim_log(int level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3))) SHIM_HIDDEN;

/*
 * log_flush - write this thread's waiting lines (one write(2)), and a line
 * saying how many did not fit; called by shim_unlock() once the lock is
 * released, and by a fork child (atfork_child).  Must not be called with
 * shim.lock held.  errno preserved.
 */
void log_flush(void) SHIM_HIDDEN;

#endif /* ADVSHIM_LOG_H */
