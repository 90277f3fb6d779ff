// SPDX-License-Identifier: MIT
/*
 * seccomp_decide.c - the supervisor's answer to one trapped call: the
 * policy the shim asks (policy/), per process (the `processes` list, the
 * notified thread's thread group) and per mapping, adaptive rules decided
 * by the shim's state machine (adapt/) over samples of the process's
 * memory cgroup.
 *
 * What "drop" can and cannot say: the supervisor answers for the call as
 * a whole and cannot issue advice in the target's address space (no
 * process_madvise for MADV_RANDOM or NORMAL).  So a range whose mappings
 * are decided apart (one kept, one dropped) is continued (SECD_W_MIXED),
 * a rewrite to normal is a drop (the mapping keeps the advice it had,
 * normal unless the program set another), and a rewrite to any other
 * advice is kept (SECD_W_OTHER).  An adaptive file's choice is the one in
 * force at the call: a later switch of the process's choice does not
 * reach mappings advised before it (the shim re-advises them; from
 * outside the process nothing can).  The sample itself is
 * seccomp_sample.c's; the counters, seccomp_count.c's.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "tools/cli/seccomp.h"

#ifndef PIDFD_THREAD
#define PIDFD_THREAD	O_EXCL		/* linux/pidfd.h, 6.9 */
#endif

#define SECD_WHY_NAME(suffix, name)	[SECD_W_##suffix] = name,
static const char *const why_names[SECD_W_NR] = { SECD_WHYS(SECD_WHY_NAME) };
#undef SECD_WHY_NAME

const char *secd_why_name(enum secd_why w)
{
	return (unsigned int)w < SECD_W_NR ? why_names[w] : "?";
}

void secd_init(struct secd *d, const struct policy *p)
{
	size_t i;

	memset(d, 0, sizeof(*d));
	d->policy = p;
	for (i = 0; i < SECD_TASKS; i++)
		d->tasks[i].pidfd = d->tasks[i].maps_fd = -1;
}

static void task_drop(struct secd_task *t)
{
	if (t->pidfd >= 0)
		close(t->pidfd);
	if (t->maps_fd >= 0)
		close(t->maps_fd);
	t->pidfd = t->maps_fd = -1;
	t->tid = 0;
}

void secd_release(struct secd *d)
{
	size_t i;

	for (i = 0; i < SECD_TASKS; i++)
		task_drop(&d->tasks[i]);
}

/* Has the thread behind @pidfd exited?  (Readable: yes.) */
static bool task_exited(int pidfd)
{
	struct pollfd pfd = { .fd = pidfd, .events = POLLIN };

	return poll(&pfd, 1, 0) != 0;
}

/*
 * Thread @tid's entry: the kept one while its thread lives (and @fresh
 * is false), else read anew.  The pidfd is opened before /proc is read:
 * the notified thread waits in its system call, so what is read is its
 * own unless it died, which the caller's SECCOMP_IOCTL_NOTIF_ID_VALID
 * then tells.  NULL when /proc cannot be read.
 */
static struct secd_task *task_get(struct secd *d, pid_t tid, bool fresh)
{
	struct secd_task *t = &d->tasks[(unsigned int)tid % SECD_TASKS];

	if (!fresh && t->tid == tid && t->pidfd >= 0 && !task_exited(t->pidfd))
		return t;
	task_drop(t);
	t->pidfd = (int)syscall(SYS_pidfd_open, tid, PIDFD_THREAD);
	t->maps_fd = sect_maps_open(tid);
	if (t->maps_fd < 0 || sect_proc_read(tid, &t->proc)) {
		task_drop(t);
		return NULL;
	}
	t->tid = tid;
	if (t->pidfd < 0)
		t->pidfd = -1;
	return t;
}

/* After the call: forget @t unless a pidfd keeps it honest. */
static void task_put(struct secd_task *t)
{
	if (t && t->pidfd < 0)
		task_drop(t);
}

void secd_copy_path(char *dst, size_t size, const char *src)
{
	size_t n = strlen(src);

	if (n >= size)
		n = 0;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* The state of process @sp (found, else a fresh slot). */
static struct secd_proc *proc_get(struct secd *d, const struct sect_proc *sp)
{
	struct secd_proc *free_slot = NULL, *e;
	size_t i;

	for (i = 0; i < SECD_PROCS; i++) {
		e = &d->procs[i];
		if (e->used && e->tgid == sp->tgid &&
		    e->start_time == sp->start_time && !strcmp(e->exe, sp->exe))
			return e;
	}
	/* A new process (or one that exec'd): an empty slot or a dead one's. */
	for (i = 0; i < SECD_PROCS && !free_slot; i++) {
		e = &d->procs[i];
		if (!e->used || (kill(e->tgid, 0) && errno == ESRCH) ||
		    (e->tgid == sp->tgid && e->start_time == sp->start_time))
			free_slot = e;
	}
	e = free_slot ? free_slot : &d->procs[sp->tgid % SECD_PROCS];
	memset(e, 0, sizeof(*e));
	e->used = true;
	e->tgid = sp->tgid;
	e->start_time = sp->start_time;
	snprintf(e->exe, sizeof(e->exe), "%s", sp->exe);
	e->selected = policy_selects_process(d->policy,
					     sp->exe[0] ? sp->exe : NULL);
	return e;
}

/* Count @len more bytes asked RANDOM of file @v for @e's group. */
static void note_file(struct secd_proc *e, const struct sect_vma *v,
		      uint64_t len)
{
	uint64_t dev = ((uint64_t)v->dev_major << 20) | v->dev_minor;
	unsigned int i;

	for (i = 0; i < e->nr_files; i++)
		if (e->files[i].dev == dev && e->files[i].ino == v->inode) {
			e->files[i].asked += len;
			return;
		}
	if (e->nr_files == SECD_FILES)
		return;		/* counted by the files already there */
	e->files[i].dev = dev;
	e->files[i].ino = v->inode;
	e->files[i].asked = len;
	secd_copy_path(e->files[i].path, sizeof(e->files[i].path), v->path);
	e->nr_files++;
}

/* The choice of @e's group now: sampled when due. */
static enum adapt_choice adapt_now(struct secd *d, struct secd_proc *e)
{
	const struct policy_adaptive *pa = &d->policy->adaptive;
	struct adapt_sample x = { 0 };
	struct adapt_verdict v;
	uint64_t t = now_ms();

	if (e->have_state && t - e->last_ms < pa->interval_ms)
		return e->st.choice;
	if (!e->have_state) {
		adapt_init(&e->st, &pa->params, ADAPT_RANDOM);
		e->have_state = true;
	}
	secd_sample(e, &x);
	x.t_ms = t;
	v = adapt_step(&e->st, &x);
	e->last_ms = t;
	adapt_describe(&v, d->last_desc, sizeof(d->last_desc));
	return v.choice;
}

/*
 * The rule for the file at @path and its action on RANDOM advice of
 * @family into *@a, its name into @r; false: no rule (or not a path).
 */
static bool rule_action(const struct secd *d, const char *path,
			enum adv_family family, struct secd_result *r,
			struct adv_action *a)
{
	const struct policy_rule *rule;

	if (path[0] != '/')
		return false;
	rule = policy_match(d->policy, path);
	if (!rule)
		return false;
	r->rule = rule->name;
	*a = policy_decide(rule, family, ADV_RANDOM);
	return true;
}

/* What a rule's action other than adaptive does to RANDOM. */
static enum secd_why action_why(struct adv_action a)
{
	switch (a.act) {
	case ADV_ACT_SKIP:
		return SECD_W_SKIP;
	case ADV_ACT_REWRITE:
		if (a.to == ADV_NORMAL)
			return SECD_W_NORMAL;
		return a.to == ADV_RANDOM ? SECD_W_KEEP : SECD_W_OTHER;
	default:
		return SECD_W_KEEP;
	}
}

/* One mapping's answer for madvise RANDOM. */
static enum secd_why piece_why(struct secd *d, struct secd_proc *e,
			       const struct sect_vma *v, uint64_t len,
			       struct secd_result *r)
{
	struct adv_action a;

	if (!v->inode ||
	    !rule_action(d, v->path, ADV_FAMILY_MADVISE, r, &a))
		return SECD_W_NORULE;
	if (a.act != ADV_ACT_ADAPT)
		return action_why(a);
	note_file(e, v, len);
	return adapt_now(d, e) == ADAPT_NORMAL ?
	       SECD_W_ADAPT_NORMAL : SECD_W_ADAPT_RANDOM;
}

static enum secd_answer answer_of(enum secd_why w)
{
	return w == SECD_W_SKIP || w == SECD_W_NORMAL ||
	       w == SECD_W_ADAPT_NORMAL ? SECD_DROP : SECD_CONTINUE;
}

/* madvise(addr, len, MADV_RANDOM): every mapping of the range. */
static enum secd_why decide_madvise(struct secd *d, struct secd_proc *e,
				    int maps_fd, const struct secd_call *c,
				    struct secd_result *r)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	uint64_t addr = c->args[0], len = c->args[1], end, cur, lo, hi;
	enum secd_why w, first = SECD_W_NR;
	struct sect_vma v;
	int n, pieces = 0;

	end = addr + ((len + page - 1) & ~(page - 1));
	if (!len || (addr & (page - 1)) || end <= addr)
		return SECD_W_KERNEL;
	for (cur = addr; cur < end; cur = hi) {
		n = sect_vma_at(maps_fd, cur, &v, &d->no_query);
		if (n < 0)
			return SECD_W_LOOKUP;
		if (n == 0 || v.start > cur) {
			first = SECD_W_KERNEL;	/* a hole: ENOMEM */
			break;
		}
		lo = cur;
		hi = v.end < end ? v.end : end;
		w = piece_why(d, e, &v, hi - lo, r);
		if (!pieces++)
			secd_copy_path(r->path, sizeof(r->path), v.path);
		if (first == SECD_W_NR)
			first = w;
		else if (answer_of(w) != answer_of(first))
			first = SECD_W_MIXED;
	}
	if (pieces > 1 && first != SECD_W_MIXED)
		r->path[0] = '\0';
	return first;
}

/*
 * fadvise64(fd, off, len, POSIX_FADV_RANDOM): the file behind fd.  An
 * adaptive rule keeps it: the choice is made on the file's mappings.
 */
static enum secd_why decide_fadvise(struct secd *d, const struct secd_call *c,
				    struct secd_result *r)
{
	struct adv_action a;
	uint64_t dev, ino;

	if (sect_fd_path(c->tid, (int)c->args[0], r->path, sizeof(r->path),
			 &dev, &ino))
		return SECD_W_KERNEL;		/* EBADF is the kernel's */
	if (!rule_action(d, r->path, ADV_FAMILY_FADVISE, r, &a))
		return SECD_W_NORULE;
	return action_why(a);
}

void secd_decide(struct secd *d, const struct secd_call *c,
		 struct secd_result *r)
{
	struct secd_task *t = task_get(d, c->tid, false);
	struct secd_proc *e;

	memset(r, 0, sizeof(*r));
	r->answer = SECD_CONTINUE;
	r->why = SECD_W_LOOKUP;
	if (!t)
		return;
	r->tgid = t->proc.tgid;
	e = proc_get(d, &t->proc);
	r->proc = e;
	if (!e->selected) {
		r->why = SECD_W_NOPROC;
	} else if (c->nr == __NR_madvise) {
		r->why = decide_madvise(d, e, t->maps_fd, c, r);
		/* A kept maps file of an mm the thread left (exec): anew. */
		if (r->why == SECD_W_LOOKUP) {
			t = task_get(d, c->tid, true);
			if (t) {
				r->tgid = t->proc.tgid;
				e = proc_get(d, &t->proc);
				r->proc = e;
				r->why = e->selected ?
					 decide_madvise(d, e, t->maps_fd, c, r) :
					 SECD_W_NOPROC;
			}
		}
	} else {
		r->why = decide_fadvise(d, c, r);
	}
	task_put(t);
	r->answer = answer_of(r->why);
}

