// SPDX-License-Identifier: MIT
/*
 * sampler.c - the adaptive advice's sampler: one decision group per
 * process (its files under random = "adaptive" that it advised RANDOM),
 * re-decided from what the process can measure, by a background thread.
 *
 * Life cycle (docs/adaptive.md, "The sampler in the shim"):
 *  - The first RANDOM call on an adaptive file takes the first sample in
 *    its own thread (adapt_first: ~0.3 ms of reading the memory cgroup,
 *    no lock held), so the advice it issues is already the decided one;
 *    other threads' adaptive RANDOM calls meanwhile wait for it, bounded.
 *    Then it starts the sampler thread: detached, every signal blocked
 *    (it never runs an application's handler), named "advshim", with
 *    shim_busy raised (nothing it calls re-enters the shim).
 *  - The thread samples every interval_ms: a snapshot of the group's
 *    ranges (adapt_table.c, a leaf at a time under the read lock), then
 *    without any lock the memory cgroup (common/cgroup_read.c,
 *    common/memstat.c), advshim-watch's mark on it (common/guard.c),
 *    MemAvailable, getrusage and mincore windows; one
 *    adapt_step(); on a switch it publishes the choice (gen_bump: every
 *    thread's view re-learns), re-advises the ranges asked RANDOM, logs
 *    one line and counts it.  A process that never calls the shim again
 *    is still re-decided: that is why it is a thread.
 *  - fork: the child has no sampler.  It keeps the choice in force (its
 *    VMAs are copies), and its first adaptive call made ADAPT_CHILD_DELAY_MS
 *    or more after the fork starts a new one, whose first sample
 *    re-applies the sampler's choice to every range (a fork may have cut
 *    a switch in half, a kill switch or a failed start may have given
 *    RANDOM back) and goes on from the parent's sampler state
 *    (adapt_resume): no first decision by size alone, which would end
 *    a guarded RANDOM, and no log line or history entry unless the advice
 *    in force changes.  Children that exec or exit soon never start a thread.
 *    exec: a new image, a new shim.  exit: the thread holds no lock
 *    across a blocking call; nobody waits for it.
 * Fail-open: a thread that cannot start leaves the application's RANDOM
 * (retried at an adaptive call ADAPT_RETRY_MS later); figures that cannot
 * be read fall back to RANDOM (adapt.c); a madvise that fails leaves that
 * range's advice as it was.  Every file is opened, read and closed within
 * a sample (read_buf: raw system calls, O_CLOEXEC), in a descriptor table
 * of the thread's own (private_fds): the application's table never sees
 * them; nothing is allocated once the thread exists.  The files' sizes are
 * read again every sample (adapt_snapshot), so the need follows a file
 * that grows under its mapping.
 */
#include <errno.h>
#include <linux/futex.h>
#include <sched.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <time.h>

#include "common/guard.h"
#include "common/cgroup_read.h"
#include "common/memstat.h"
#include "common/readbuf.h"
#include "shim/sampler.h"

#define ADAPT_FIRST_WAIT_MS	2000	/* others wait for the first decision */
#define ADAPT_CHILD_DELAY_MS	1000	/* a fork child restarts after this */
#define ADAPT_RETRY_MS		60000	/* a failed start is retried after */
#define ADAPT_STACK_BYTES	(256 * 1024)
#define MIB			(1024 * 1024)
#ifndef SYS_close_range
#define SYS_close_range		436
#endif

/* Which sample sample_once takes. */
enum sample_kind {
	SAMPLE_NEXT,		/* the next of a running sampler */
	SAMPLE_DECIDE,		/* the process's first decision */
	SAMPLE_RESUMED,		/* a sampler's first, going on from smp.st */
};

/* The sampling role's own data: one thread at a time uses it. */
static struct {
	struct adapt_state st;
	struct adapt_snap snap;
	struct cg_where where;
	char stat[16384];		/* memory.stat */
	uint64_t prev_bytes;		/* last snapshot's, for its windows */
	bool unreadable_logged;
	bool off;			/* the kill switch was applied */
	bool decided;			/* a first decision was taken (not
					   held back by the kill switch) */
} smp;

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* memory.stat of the cgroup found: the page cache and refault counter. */
static int read_memstat(struct adapt_sample *x)
{
	char path[CG_PATH_MAX + 64];
	struct memstat ms;
	ssize_t n;
	int r;

	r = cg_file_path(path, sizeof(path), NULL, smp.where.version,
			 smp.where.path, "memory.stat");
	if (r)
		return r;
	n = read_buf(path, smp.stat, sizeof(smp.stat));
	if (n == -ENOENT && !strcmp(smp.where.path, "/")) {
		x->file = x->refault = 0;	/* a root cgroup without one */
		return 0;
	}
	if (n < 0)
		return (int)n;
	if (memstat_parse(smp.stat, (size_t)n, &ms) || !ms.has_file)
		return -EINVAL;
	x->file = ms.file_bytes;
	x->refault = ms.has_refault ? ms.refault_file : 0;
	return 0;
}

/* Whether a live advshim-watch marks the cgroup found (common/guard.h). */
static bool guarded(void)
{
	char path[CG_PATH_MAX + 64];
	struct timespec ts;
	uint64_t t_s;

	if (cg_file_path(path, sizeof(path), NULL, smp.where.version,
			 smp.where.path, ".") || guard_read(path, &t_s))
		return false;
	clock_gettime(CLOCK_REALTIME, &ts);
	return guard_fresh(t_s, (uint64_t)ts.tv_sec);
}

/* The memory cgroup's figures into @x; 0 or a negative errno. */
static int read_figures(struct adapt_sample *x)
{
	struct cg_figures f;
	struct rusage ru;
	uint64_t total;
	int r;

	smp.where.version = 0;
	r = cg_locate(NULL, &smp.where);
	if (!r)
		r = cg_read_figures(NULL, &smp.where, &f);
	if (!r)
		r = read_memstat(x);
	if (r)
		return r;
	x->limit = f.limit == CG_UNLIMITED ? ADAPT_NO_LIMIT : f.limit;
	x->usage = f.usage;
	if (cg_read_meminfo(NULL, &total, &x->mem_avail))
		x->mem_avail = 0;	/* unknown: fine with a limit */
	if (!getrusage(RUSAGE_SELF, &ru))
		x->majflt = (uint64_t)ru.ru_majflt;
	x->guarded = guarded();
	return 0;
}

/* The stats page's adaptive part: begin and end of one update. */
static struct advshim_stats_adapt *stats_begin(void)
{
	struct advshim_stats_adapt *a = &shim_stats->adapt;

	/*
	 * Odd before any field changes. An acquire-release read-modify-write
	 * keeps the stores that follow after it (the writer side of a
	 * seqlock) without a fence, which -fsanitize=thread does not support.
	 */
	__atomic_fetch_or(&a->seq, 1, __ATOMIC_ACQ_REL);
	return a;
}

static void stats_end(struct advshim_stats_adapt *a)
{
	__atomic_store_n(&a->seq, (a->seq | 1) + 1, __ATOMIC_RELEASE);
}

static void stats_verdict(struct advshim_stats_adapt *a,
			  const struct adapt_verdict *v,
			  const struct adapt_sample *x)
{
	const struct policy_adaptive *pa = &shim.policy->adaptive;

	a->state = ADVSHIM_ADAPT_SAMPLING;
	a->fit_pct = pa->params.fit_pct;
	a->nofit_pct = pa->params.nofit_pct;
	a->dwell_ms = pa->params.dwell_ms;
	a->interval_ms = pa->interval_ms;
	a->choice = (int32_t)v->choice;
	a->reason = (int32_t)v->reason;
#define FROM_VERDICT(field) a->field = v->field;
	ADVSHIM_ADAPT_VERDICT_FIGURES(FROM_VERDICT)
#undef FROM_VERDICT
	a->cg_version = x->status ? 0 : smp.where.version;
	memcpy(a->cgroup, smp.where.path, sizeof(a->cgroup) - 1);
	a->cgroup[sizeof(a->cgroup) - 1] = 0;
	a->limit = x->limit;
	a->usage = x->usage;
	a->file = x->file;
	a->mem_avail = x->mem_avail;
	a->switches = smp.st.switches;
	a->held = smp.st.held;
	a->samples++;
	a->sample_errors += x->status != 0;
	a->ranges_asked = smp.snap.nr_ranges;
	a->nr_files = smp.snap.nr_files;
	a->nr_more = smp.snap.nr_more;
	memcpy(a->files, smp.snap.files, sizeof(a->files));
}

/* Count what re-advising the ranges asked RANDOM did (@ap). */
static void stats_applied(struct advshim_stats_adapt *a,
			  const struct adapt_applied *ap)
{
	a->ranges_applied += ap->ranges;
	a->skipped_mixed += ap->mixed;
	a->apply_errors += ap->errors;
}

/*
 * Record a switch in the history.  @from: the advice in force before it
 * (the sampler's choice, or what was published when a sampler goes on
 * from its state: a fork child's, after a failed start or the kill
 * switch), -1 for the process's first decision.
 */
static void stats_switch(struct advshim_stats_adapt *a, int from,
			 const struct adapt_verdict *v)
{
	struct advshim_adapt_switch *h = &a->history[a->history_head %
						     ADVSHIM_ADAPT_HISTORY];

	*h = (struct advshim_adapt_switch){
		.t_ms = v->t_ms, .from = from, .to = (int32_t)v->choice,
		.reason = (int32_t)v->reason, .ratio_pct = v->ratio_pct,
	};
	a->history_head = (a->history_head + 1) % ADVSHIM_ADAPT_HISTORY;
	if (a->nr_history < ADVSHIM_ADAPT_HISTORY)
		a->nr_history++;
}

/*
 * One line per change of the advice in force (and the first decision;
 * @from as for stats_switch), once per fail-safe episode.
 */
static void log_verdict(const struct adapt_verdict *v, int from,
			const struct adapt_applied *ap)
{
	char what[256];

	adapt_describe(v, what, sizeof(what));
	if (from < 0 || (int)v->choice != from) {
		shim_log(POLICY_LOG_INFO, "adaptive: %s -> %s, %u files, %llu "
			 "ranges asked random, %llu re-advised", from < 0 ?
			 "start" : adapt_choice_name((enum adapt_choice)from),
			 what, smp.snap.nr_files + smp.snap.nr_more,
			 (unsigned long long)smp.snap.nr_ranges,
			 (unsigned long long)ap->ranges);
	} else if (v->reason == ADAPT_R_UNREADABLE && !smp.unreadable_logged) {
		shim_log(POLICY_LOG_INFO, "adaptive: memory cgroup figures "
			 "unreadable (%s); keeping the application's random",
			 strerror(-v->status));
	} else if (!v->status && smp.unreadable_logged) {
		shim_log(POLICY_LOG_INFO, "adaptive: memory cgroup figures "
			 "readable again: %s", what);
	}
	/* An episode lasts from the fail-safe to the next good sample. */
	if (v->reason == ADAPT_R_UNREADABLE)
		smp.unreadable_logged = true;
	else if (!v->status)
		smp.unreadable_logged = false;
}

/*
 * Publish RANDOM and give every range asked RANDOM its RANDOM back (@ap:
 * what that did); the page shows @state, choice RANDOM, the errors and,
 * when @count, the ranges in ranges_applied.
 */
static void random_back(int32_t state, bool count, struct adapt_applied *ap)
{
	struct advshim_stats_adapt *a;

	__atomic_store_n(&shim.adapt_choice, ADAPT_RANDOM, __ATOMIC_RELEASE);
	gen_bump();
	adapt_apply(ADAPT_RANDOM, ap);
	a = stats_begin();
	a->state = state;
	a->choice = ADAPT_RANDOM;
	if (count)
		a->ranges_applied += ap->ranges;
	a->apply_errors += ap->errors;
	stats_end(a);
}

/*
 * The kill switch is on (kill.c): publish RANDOM and give every range
 * asked RANDOM its RANDOM back, once per episode; the sampler then only
 * looks at the file until it is gone.
 */
static void switch_off(void)
{
	struct adapt_applied ap = { 0 };

	if (smp.off)
		return;
	random_back(ADVSHIM_ADAPT_DISABLED, true, &ap);
	shim_log(POLICY_LOG_WARN, "adaptive: kill switch: %llu ranges given "
		 "their random back", (unsigned long long)ap.ranges);
	smp.off = true;
}

/*
 * One sample and its decision.  @kind: SAMPLE_DECIDE, the process's first
 * decision; SAMPLE_RESUMED, the first sample of a sampler that goes on
 * from smp.st (a fork child's, a retry's): in both the choice is published
 * and applied whatever it is.  @seed: see adapt_first.  While the kill
 * switch is on nothing is sampled (switch_off); the first sample after it
 * is gone is a resumed one, and the first decision if the switch was on
 * from the start.
 */
static void sample_once(enum sample_kind kind, const struct adapt_seed *seed)
{
	struct adapt_sample x = { 0 };
	struct adapt_applied ap = { 0 };
	struct advshim_stats_adapt *a;
	struct adapt_verdict v;
	bool applied;
	int from;

	if (kill_check()) {
		switch_off();
		return;
	}
	if (smp.off) {		/* re-apply whatever is decided now */
		kind = SAMPLE_RESUMED;
		adapt_resume(&smp.st);	/* runs and rates from before are stale */
	}
	smp.off = false;
	/* The first decision, also where the kill switch held it back. */
	if (kind == SAMPLE_DECIDE || !smp.decided)
		from = -1;
	else if (kind == SAMPLE_RESUMED)	/* what is in force now */
		from = __atomic_load_n(&shim.adapt_choice, __ATOMIC_ACQUIRE);
	else
		from = (int)smp.st.choice;

	adapt_snapshot(&smp.snap, seed, smp.prev_bytes);
	smp.prev_bytes = smp.snap.bytes;
	x.status = read_figures(&x);
	x.need = smp.snap.need;
	x.resident = x.status ? 0 : adapt_resident(&smp.snap);
	x.t_ms = now_ms();
	v = adapt_step(&smp.st, &x);
	applied = v.switched || kind != SAMPLE_NEXT;
	if (applied) {
		__atomic_store_n(&shim.adapt_choice, (int)v.choice,
				 __ATOMIC_RELEASE);
		gen_bump();
		adapt_apply(v.choice, &ap);
	}
	smp.decided = true;
	a = stats_begin();
	stats_verdict(a, &v, &x);
	if (applied)
		stats_applied(a, &ap);
	if (from < 0 || (int)v.choice != from)
		stats_switch(a, from, &v);
	stats_end(a);
	log_verdict(&v, from, &ap);
}

/*
 * Give this thread a descriptor table of its own, emptied: every file it
 * reads is opened and closed in a sample, and in the application's table
 * each of those opens would take, for a moment, the lowest free number,
 * which another thread of the application may be about to open and
 * expect (closing 0-2 and opening /dev/null, say).  Where close_range(2)
 * is missing (before 5.9) or unshare is refused the table stays shared.
 * Not under a sanitizer: its reports go to descriptors of the shared table.
 */
static void private_fds(void)
{
#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
	/* A probe that closes nothing: ENOSYS before 5.9. */
	if (syscall(SYS_close_range, ~0U, ~0U, 0) ||
	    syscall(SYS_unshare, CLONE_FILES))
		return;
	/* The copies of the application's descriptors must not keep its files open. */
	(void)syscall(SYS_close_range, 0, ~0U, 0);
	shim_fd_private = 1;
#endif
}

static void sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000 };

	while (clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts) == EINTR)
		;
}

/*
 * The thread: @arg non-NULL when it is started again (a fork child, a
 * retry): its first sample goes on from smp.st and re-applies the choice.
 */
static void *sampler_main(void *arg)
{
	enum sample_kind k = arg ? SAMPLE_RESUMED : SAMPLE_NEXT;

	shim_busy = 1;		/* nothing here re-enters the shim */
	prctl(PR_SET_NAME, "advshim", 0, 0, 0);
	private_fds();
	if (k == SAMPLE_RESUMED)	/* started again: go on from the state */
		adapt_resume(&smp.st);
	for (;;) {
		if (k == SAMPLE_NEXT)
			sleep_ms(shim.policy->adaptive.interval_ms);
		sample_once(k, NULL);
		k = SAMPLE_NEXT;
	}
	return NULL;
}

/* Start the thread, all signals blocked in it; 0 or an error number. */
static int start_thread(bool first)
{
	pthread_attr_t attr;
	sigset_t all, old;
	pthread_t t;
	int r;

	if (pthread_attr_init(&attr))
		return EAGAIN;
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&attr, ADAPT_STACK_BYTES);
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	r = pthread_create(&t, &attr, sampler_main, first ? &smp : NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&attr);
	return r;
}

/*
 * Start (or restart) the sampler; the caller won ADAPT_STARTING and holds
 * no lock.  Without a sampler nothing would re-decide, so a failure gives
 * the application its RANDOM back (fail open) until a retry succeeds.
 */
static void launch(bool first)
{
	struct adapt_applied ap;
	int r = start_thread(first), to = r ? ADAPT_FAILED : ADAPT_RUNNING;

	if (r) {
		STAT_INC(errors);
		__atomic_store_n(&shim.adapt.retry_ms, now_ms() + ADAPT_RETRY_MS,
				 __ATOMIC_RELAXED);
		shim_log(POLICY_LOG_WARN, "adaptive: cannot start the sampler "
			 "thread (%s); keeping the application's random",
			 strerror(r));
		random_back(ADVSHIM_ADAPT_NO_SAMPLER, false, &ap);
	}
	__atomic_store_n(&shim.adapt.started, to, __ATOMIC_RELEASE);
}

static void futex(int *word, int op, int val, const struct timespec *ts)
{
	syscall(SYS_futex, word, op | FUTEX_PRIVATE_FLAG, val, ts, NULL, 0);
}

void adapt_first(const struct adapt_seed *seed)
{
	struct timespec ts = { 0, 100 * 1000000 };
	int expect = ADAPT_IDLE, saved = errno, waited;

	if (__atomic_compare_exchange_n(&shim.adapt.started, &expect,
					ADAPT_STARTING, false,
					__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		if (adapt_decided()) {	/* decided after all: restart */
			launch(true);
			errno = saved;
			return;
		}
		adapt_init(&smp.st, &shim.policy->adaptive.params, ADAPT_RANDOM);
		sample_once(SAMPLE_DECIDE, seed);
		__atomic_store_n(&shim.adapt.decided, 1, __ATOMIC_RELEASE);
		futex(&shim.adapt.decided, FUTEX_WAKE, 0x7fffffff, NULL);
		launch(false);
		errno = saved;
		return;
	}
	for (waited = 0; !adapt_decided() && waited < ADAPT_FIRST_WAIT_MS;
	     waited += 100)
		futex(&shim.adapt.decided, FUTEX_WAIT, 0, &ts);
	errno = saved;
}

void adapt_maybe_restart(void)
{
	int s = __atomic_load_n(&shim.adapt.started, __ATOMIC_RELAXED);
	uint64_t t;

	if (likely(s == ADAPT_RUNNING || s == ADAPT_STARTING) ||
	    !adapt_decided())
		return;
	t = now_ms();
	if (t < (s == ADAPT_FAILED ?
		 __atomic_load_n(&shim.adapt.retry_ms, __ATOMIC_RELAXED) :
		 __atomic_load_n(&shim.adapt.fork_ms, __ATOMIC_RELAXED) +
		 ADAPT_CHILD_DELAY_MS))
		return;
	if (!__atomic_compare_exchange_n(&shim.adapt.started, &s,
					 ADAPT_STARTING, false,
					 __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
		return;
	launch(true);
}

void adapt_atfork_child(void)
{
	struct advshim_stats_adapt *a = &shim_stats->adapt;

	/* A switch cut by the fork has no thread here to finish it. */
	__atomic_store_n(&shim.adapt.issuing,
			 (__atomic_load_n(&shim.adapt.issuing, __ATOMIC_RELAXED) +
			  1) & ~1ul, __ATOMIC_RELAXED);
	__atomic_store_n(&shim.adapt.replacing, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&shim.adapt.fork_ms, now_ms(), __ATOMIC_RELAXED);
	if (__atomic_load_n(&shim.adapt.started, __ATOMIC_RELAXED) !=
	    ADAPT_IDLE) {
		shim.adapt.started = ADAPT_IDLE;
		a->state = ADVSHIM_ADAPT_NO_SAMPLER;
	}
	a->seq &= ~1u;		/* a write cut by the fork: start even */
}
