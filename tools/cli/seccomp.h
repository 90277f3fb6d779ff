/* SPDX-License-Identifier: MIT */
/*
 * seccomp.h - `advshim run --seccomp`: the policy for programs the preload
 * cannot reach (static binaries, Go, raw system calls), through a seccomp
 * filter that hands madvise(.., .., MADV_RANDOM) (and, when a rule needs
 * it, fadvise64(.., .., .., POSIX_FADV_RANDOM)) to a supervisor by user
 * notification (Linux 5.5+ for SECCOMP_USER_NOTIF_FLAG_CONTINUE).
 *
 * The processes (docs/seccomp.md):
 *   advshim run (pid P) forks S1, which forks the supervisor S and exits;
 *   P reaps S1, so S is no child of the program and is reparented to the
 *   nearest subreaper (init).  P then sets no_new_privs, installs the
 *   filter with SECCOMP_FILTER_FLAG_NEW_LISTENER, passes the listener to
 *   S over a socketpair (SCM_RIGHTS), waits for S's one-byte ack and
 *   execs the program: it keeps pid P, its exit status and its signals.
 *   S never runs under the filter (it was forked before), so the filter's
 *   last user is the program's last process: then the listener polls
 *   POLLHUP and S exits.
 *
 * The supervisor is single-threaded and answers one notification at a
 * time: a trapped call waits for at most one lookup (PROCMAP_QUERY or
 * /proc/PID/maps, the policy's globs, for an adaptive rule one sample of
 * the process's memory cgroup at most once per sampling interval).
 * Other system calls never leave the BPF program.
 *
 * Functions return 0 or a negative errno unless said otherwise; none
 * exits the process except seccomp_run_exec, which execs.
 */
#ifndef ADVSHIM_CLI_SECCOMP_H
#define ADVSHIM_CLI_SECCOMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "adapt/adapt.h"
#include "policy/policy.h"

struct seccomp_notif;

/* ---- the filter (seccomp_filter.c) ---- */

/*
 * secf_policy_needs_fadvise - true if some rule of @p acts on fadvise
 * RANDOM (an action other than keep): then fadvise64 is trapped too.
 */
bool secf_policy_needs_fadvise(const struct policy *p);

/*
 * secf_install - set no_new_privs on the calling thread and install the
 * filter (madvise MADV_RANDOM, and fadvise64 POSIX_FADV_RANDOM when
 * @fadvise, on x86_64's native ABI; everything else allowed) with a new
 * listener.  Returns the listener descriptor (close-on-exec), or a
 * negative errno (-ENOSYS/-EINVAL: the kernel has no user notification;
 * -EACCES; ...).  no_new_privs stays set even when the install fails.
 */
int secf_install(bool fadvise);

/*
 * secf_send_fd / secf_recv_fd - pass descriptor @fd over the unix socket
 * @sock with SCM_RIGHTS (one byte of payload).  recv returns the received
 * descriptor (close-on-exec) or a negative errno (-EPIPE on end of file).
 */
int secf_send_fd(int sock, int fd);
int secf_recv_fd(int sock);

/* ---- the target: the file behind an address (seccomp_target.c) ---- */

/* One mapping of the target. */
struct sect_vma {
	uint64_t start, end;
	uint64_t inode;		/* 0: anonymous */
	unsigned int dev_major, dev_minor;
	char path[4096];	/* "" when anonymous or unnamed */
};

/*
 * sect_maps_open - open /proc/@tid/maps for sect_vma_at (close-on-exec).
 * Returns the descriptor or a negative errno (-ESRCH: gone).
 */
int sect_maps_open(pid_t tid);

/*
 * sect_vma_at - the first mapping of the maps file @maps_fd that ends
 * above @addr (it covers @addr when v->start <= @addr).  Asks the
 * PROCMAP_QUERY ioctl (6.11+), falling back to reading the maps text
 * once the ioctl says ENOTTY/EINVAL (kept in *@no_query).  Returns 1 with
 * *v, 0 when no mapping ends above @addr, or a negative errno: -ESRCH
 * when the address space the file was opened on is gone (the thread
 * exec'd or exited: open the maps file again).
 */
int sect_vma_at(int maps_fd, uint64_t addr, struct sect_vma *v,
		bool *no_query);

/* What the supervisor knows about a notified process. */
struct sect_proc {
	pid_t tgid;
	uint64_t start_time;	/* /proc/PID/stat field 22: pid reuse */
	uint64_t majflt;	/* field 12 */
	char exe[256];		/* base name of /proc/PID/exe; "" unknown */
};

/*
 * sect_proc_read - fill @p for thread @tid: its thread group (status
 * Tgid), start time and major faults (stat), executable's base name.
 * Returns 0 or a negative errno (-ESRCH/-ENOENT: gone).
 */
int sect_proc_read(pid_t tid, struct sect_proc *p);

/*
 * sect_fd_path - the path of descriptor @fd of process @tid (readlink of
 * /proc/TID/fd/FD) into @buf; with *@dev and *@ino from a stat of the
 * link (the open file itself).  Returns 0 or a negative errno.
 */
int sect_fd_path(pid_t tid, int fd, char *buf, size_t size,
		 uint64_t *dev, uint64_t *ino);

/* ---- the decision (seccomp_decide.c) ---- */

enum secd_answer {
	SECD_CONTINUE,		/* the kernel runs the call as made */
	SECD_DROP,		/* return 0: the mapping keeps its advice */
};

/*
 * Why, as X(SECD_W_ suffix, the log's and the counters' words): the enum
 * and the names come from this one list.
 *   NOPROC        the process is not selected by `processes`
 *   NORULE        no rule matches: pass through
 *   KEEP, SKIP    the rule keeps RANDOM; the rule skips the call
 *   NORMAL        rewrite to normal (= the advice left)
 *   OTHER         rewrite to advice only the program can issue: kept
 *   ADAPT_*       adaptive: random / normal now
 *   MIXED         the range spans mappings decided apart
 *   KERNEL        unaligned, unmapped, len 0: the kernel's own answer
 *                 (EINVAL, ENOMEM, 0)
 *   LOOKUP        the target could not be read: continue
 */
#define SECD_WHYS(X)							\
	X(NOPROC, "process not selected")				\
	X(NORULE, "no rule")						\
	X(KEEP, "keep")							\
	X(SKIP, "skip")							\
	X(NORMAL, "rewrite to normal")					\
	X(OTHER, "rewrite only the program can issue: kept")		\
	X(ADAPT_RANDOM, "adaptive, random")				\
	X(ADAPT_NORMAL, "adaptive, normal")				\
	X(MIXED, "mappings decided apart: kept")			\
	X(KERNEL, "the kernel's own answer")				\
	X(LOOKUP, "target unreadable: kept")

#define SECD_WHY_ENUM(suffix, name)	SECD_W_##suffix,
enum secd_why {
	SECD_WHYS(SECD_WHY_ENUM)
	SECD_W_NR,
};
#undef SECD_WHY_ENUM

/* secd_why_name - "no rule", "keep", ... ("?" out of range). */
const char *secd_why_name(enum secd_why w);

/* One adaptive file of a process (need is summed over them). */
struct secd_file {
	uint64_t dev, ino;
	uint64_t asked;		/* bytes asked RANDOM (summed, capped later) */
	char path[512];
};

#define SECD_FILES	16

/* A file a process's trapped calls were about, and what they got. */
struct secd_seen {
	uint64_t dropped, continued;
	enum secd_why why;	/* of the last call */
	const char *rule;	/* its rule's name (the policy's), or NULL */
	char path[512];
};

#define SECD_SEEN	32

/* Per process: the adaptive state of its decision group, its counters. */
struct secd_proc {
	bool used;
	pid_t tgid;
	uint64_t start_time;
	bool selected;
	bool have_state;
	struct adapt_state st;
	uint64_t last_ms;	/* of the last sample */
	unsigned int nr_files;
	struct secd_file files[SECD_FILES];
	char exe[256];
	uint64_t trapped, continued, dropped;
	uint64_t why[SECD_W_NR];
	unsigned int nr_seen;	/* files beyond SECD_SEEN are not listed */
	struct secd_seen seen[SECD_SEEN];
};

#define SECD_PROCS	64

/*
 * A notified thread, kept between calls: its maps file open and a pidfd
 * (PIDFD_THREAD, 6.9+) that polls readable once the thread has exited,
 * so a tid reused by another task is never taken for the old one.  Where
 * the pidfd cannot be had, nothing is kept (pidfd -1): every call of that
 * thread reads /proc afresh.
 */
struct secd_task {
	pid_t tid;		/* 0: empty */
	int pidfd;
	int maps_fd;
	struct sect_proc proc;
};

#define SECD_TASKS	128

/* The supervisor's state: policy, processes, counters. */
struct secd {
	const struct policy *policy;
	struct secd_proc procs[SECD_PROCS];
	struct secd_task tasks[SECD_TASKS];
	bool no_query;			/* PROCMAP_QUERY unsupported */
	uint64_t notified, continued, dropped, gone;
	uint64_t why[SECD_W_NR];
	char last_desc[256];		/* the last adaptive verdict */
};

/* One notified call, as the decision sees it. */
struct secd_call {
	pid_t tid;
	int nr;			/* __NR_madvise or __NR_fadvise64 */
	uint64_t args[6];
};

/* The decision, with the file it was about (for the log). */
struct secd_result {
	enum secd_answer answer;
	enum secd_why why;
	const char *rule;	/* rule name, NULL when none */
	char path[512];		/* "" when none or several */
	pid_t tgid;
	struct secd_proc *proc;	/* the process's entry, NULL if unknown */
};

/* secd_init - an empty state deciding by @p (kept, not copied). */
void secd_init(struct secd *d, const struct policy *p);

/* secd_release - close the descriptors @d keeps (its tasks'). */
void secd_release(struct secd *d);

/*
 * secd_decide - what to answer for call @c.  Reads the target's /proc
 * files (and for an adaptive rule, its memory cgroup and the files'
 * residency).  Never fails: a target that cannot be read is continued
 * (SECD_W_LOOKUP), as the shim passes calls through when in doubt.
 * Updates the per-process state but not the counters.
 */
void secd_decide(struct secd *d, const struct secd_call *c,
		 struct secd_result *r);

/*
 * secd_count - count answered call @r in its process's counters and its
 * file's row (the first SECD_SEEN files of each process).
 * (seccomp_count.c)
 */
void secd_count(struct secd *d, const struct secd_result *r);

/*
 * secd_sample - one sample of @e for adapt_step(), all but t_ms: the
 * memcg's figures (x->status: 0, or the negative errno that made them
 * unreadable), need and resident of @e's files (64 windows of 4 pages
 * each), major faults.  Never fails.  (seccomp_sample.c)
 */
void secd_sample(const struct secd_proc *e, struct adapt_sample *x);

/* secd_copy_path - @src into @dst (@size bytes); "" when it does not fit. */
void secd_copy_path(char *dst, size_t size, const char *src);

/* ---- what a supervisor tells `advshim inspect` (seccomp_ctl.c) ---- */

/*
 * The supervisor listens on the abstract unix socket
 * "\0advshim-seccomp/SUPERVISOR_PID" (its network namespace's).  A client
 * connects and reads; the supervisor writes the report of every process
 * it has seen, without waiting (MSG_DONTWAIT; a report that does not fit
 * the socket's buffer is cut), and closes.  Peers other than root and the
 * supervisor's own user are closed on at once (SO_PEERCRED).  Lines:
 *   supervisor PID policy SOURCE
 *   process TGID trapped N continued N dropped N exe EXE
 *   why TGID N WORDS...                     (one per reason seen)
 *   file TGID DROPPED CONTINUED | RULE (or -) | WHY-WORDS | PATH
 */

/* secc_listen - the listening socket (non-blocking, close-on-exec). */
int secc_listen(void);

/* secc_answer - accept one client on @lsock and write @d's report. */
void secc_answer(int lsock, const struct secd *d);

/*
 * secc_query - connect to supervisor @sup and read its report into @buf
 * (@size bytes, NUL-terminated, cut to fit).  Returns its length or a
 * negative errno (-ECONNREFUSED: no such supervisor).
 */
ssize_t secc_query(pid_t sup, char *buf, size_t size);

/* ---- the supervisor (seccomp_supervise.c) ---- */

/*
 * secs_serve - answer notifications on @listener until the filter has no
 * user left (POLLHUP) or a fatal error, deciding by @p; log at @level
 * to @log (a stream the caller owns), each line after the UTC time when
 * @stamp (a file target: stderr is stamped by whatever reads it).
 * Returns 0 (the filter's processes are all gone) or a negative errno.
 */
int secs_serve(int listener, const struct policy *p,
	       enum policy_log_level level, FILE *log, bool stamp);

/* ---- `advshim run --seccomp` (seccomp_run.c) ---- */

/* The supervisor's comm, and the variable naming its pid in the program. */
#define SECCOMP_SUPERVISOR_COMM	"advshim-seccomp"
#define SECCOMP_ENV		"ADVSHIM_SECCOMP"

/*
 * seccomp_run_exec - run argv[0..] under the filter with a supervisor
 * deciding by @p (owned by the supervisor from here on), logging at
 * @level; @verbose says so (no_new_privs, the supervisor's pid) on
 * stderr.  Fails open: when the filter cannot be installed or the
 * supervisor cannot start, one warning and the program runs plain.
 * Returns only when exec fails: 127 (not found) or 126.
 */
int seccomp_run_exec(char **argv, struct policy *p,
		     enum policy_log_level level, bool verbose);

#endif /* ADVSHIM_CLI_SECCOMP_H */
