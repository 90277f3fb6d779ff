/* SPDX-License-Identifier: MIT */
/*
 * calls.h - what the interposers use on each call: the file cache
 * (files.c), the kernel's view of an address (kview.c), MADV_DONTFORK
 * records (dontfork.c), the decision on one file (decide.c), the piece
 * engine (advise.c) and the adaptive advice's entry points (adapt_table.c,
 * sampler.c).  The process-wide state, the lock protocol and the services
 * every file shares (init, the next definitions, the log, the counters)
 * are in shim.h, which this includes.
 */
#ifndef ADVSHIM_CALLS_H
#define ADVSHIM_CALLS_H

#include "shim/shim.h"

/* --- files.c: the (dev, ino) decision cache */
#define FILES_IDLE_MAX	4096		/* entries kept with no range */

/* A file's name and rule, found without the lock (files_name_fd). */
struct file_name {
	char path[4096];		/* "" when unreadable */
	const struct policy_rule *rule;	/* NULL: no rule, pass through */
};

/*
 * files_find - the entry for (@dev, @ino), or NULL.  shim.lock held in
 * either mode; the entry stays valid until the lock is released.
 */
struct shim_file *files_find(dev_t dev, ino_t ino) SHIM_HIDDEN;

/*
 * files_fresh - the entry for the file @st describes (its fstat or stat)
 * if there is one and it is still that file (same ctime), else NULL.
 * shim.lock held in either mode.
 */
struct shim_file *files_fresh(const struct stat *st) SHIM_HIDDEN;

/*
 * files_name_fd - the path the kernel reports for @fd and the policy's
 * rule for it, into *@out ("" and NULL when /proc/self/fd cannot be read).
 * Takes no lock: call it without shim.lock held.  errno is clobbered.
 */
void files_name_fd(int fd, struct file_name *out) SHIM_HIDDEN;

/*
 * files_store - the entry for the file @st describes, saying @path and
 * @rule: an existing fresh entry is returned as it is (another thread
 * stored it first), a stale one is refreshed, a missing one added (idle
 * until a table range takes a reference).  shim.lock held for writing.
 * Returns NULL when memory runs out (counted in errors; the caller
 * passes through).
 */
struct shim_file *files_store(const struct stat *st, const char *path,
			      const struct policy_rule *rule) SHIM_HIDDEN;

/*
 * files_get, files_put - the mapping table's reference callbacks on a
 * struct shim_file (@f may carry a range's tag in its low bits: it is
 * masked off): the first reference takes the entry off the idle
 * list, dropping the last puts it back (the oldest idle entries beyond
 * FILES_IDLE_MAX are freed).  shim.lock held for writing.
 */
void files_get(void *f) SHIM_HIDDEN;
void files_put(void *f) SHIM_HIDDEN;

/* --- kview.c: the kernel's view of an address */
struct kview_vma {
	uintptr_t start, end;
	dev_t dev;
	ino_t ino;
	char path[4096];		/* "" for anonymous memory */
};

/*
 * kview_query - the VMA covering @addr, or the first one after it, from
 * the kernel (PROCMAP_QUERY on Linux 6.11+, else /proc/self/maps parsed on
 * the stack).  Returns 0 with *@out filled in, or -1 with errno (ENOENT:
 * nothing at or above @addr; any error opening or reading the maps file).
 * Call without shim.lock (it makes system calls); errno is clobbered.
 */
int kview_query(uintptr_t addr, struct kview_vma *out) SHIM_HIDDEN;

/* kview_force_maps - always parse /proc/self/maps (tests of the fallback). */
void kview_force_maps(void) SHIM_HIDDEN;

/* --- dontfork.c: MADV_DONTFORK file ranges, dropped in a fork child */
/*
 * dontfork_before - before madvise(@addr, @len, @advice): for
 * MADV_DONTFORK over known file ranges, record the range (a fork racing
 * with the call then sees it).  Takes and releases the write lock; an
 * unstorable record marks the whole table lost for the child.  errno
 * preserved.
 */
void dontfork_before(void *addr, size_t len, int advice) SHIM_HIDDEN;

/*
 * dontfork_after - after a successful madvise(@addr, @len, @advice): for
 * MADV_DOFORK, drop the records of that range.  Takes and releases the
 * write lock.
 */
void dontfork_after(void *addr, size_t len, int advice) SHIM_HIDDEN;

/*
 * dontfork_forget - [@s, @e) is a new mapping, inherited by a fork child:
 * drop its records.  Write lock held; never fails (a split that cannot
 * get a node forgets the tail too, the safe side).
 */
void dontfork_forget(uintptr_t s, uintptr_t e) SHIM_HIDDEN;

/*
 * dontfork_overlaps - may some of [@s, @e) carry VM_DONTCOPY (a record, or
 * records lost)?  Lock held, either mode.
 */
bool dontfork_overlaps(uintptr_t s, uintptr_t e) SHIM_HIDDEN;

/*
 * dontfork_moved - a DONTFORK range moved to [@s, @e) (mremap): record
 * it there.  Write lock held; errors as dontfork_before.
 */
void dontfork_moved(uintptr_t s, uintptr_t e) SHIM_HIDDEN;

/*
 * dontfork_child - in a fork child (one thread, the lock held for writing
 * by the fork handler): drop the recorded ranges from the table (all of
 * it if records were lost), then the records.  Frees slab nodes, never
 * calls malloc, never fails.
 */
void dontfork_child(void) SHIM_HIDDEN;

/* --- decide.c: one advice call on one file, both families */
#define ADV_SKIP (-1)			/* issue nothing, report success */
#define ADV_KEEP (-2)			/* issue the caller's value */

/* The call being decided, as the caller made it. */
struct adv_call {
	const char *api;		/* "madvise", "posix_madvise", ... */
	enum adv_family family;
	enum adv_kind kind;
	int advice;			/* the caller's value */
	int fd;				/* fadvise family: the descriptor */
};

/*
 * decide_code - what action @a means for a call of @family: ADV_KEEP,
 * ADV_SKIP, or the value to issue instead (a rewrite to a kind the family
 * lacks keeps).  No lock, no counting, never fails.
 */
int decide_code(enum adv_family family, struct adv_action a) SHIM_HIDDEN;

/*
 * decide_count - count one piece whose caller asked for @advice and that
 * is issued as @to (ADV_SKIP: not at all): kept, skipped or rewritten.
 * Relaxed atomic adds, no lock.
 */
static inline void decide_count(int advice, int to)
{
	if (to == advice)
		STAT_HOT(kept);
	else if (to == ADV_SKIP)
		STAT_HOT(skipped);
	else
		STAT_HOT(rewritten);
}

/*
 * decide_apply - the value to issue for @c under action @a: the caller's
 * advice (keep, or a rewrite to a kind this family lacks), the rewritten
 * value, or ADV_SKIP; counted in kept, rewritten or skipped.  No lock, no
 * log, never fails.
 */
int decide_apply(const struct adv_call *c, struct adv_action a) SHIM_HIDDEN;

/*
 * decide - decide_apply() for the piece [@start, @start + @len) (fadvise:
 * offset and length) of a file with rule @rule (NULL: no rule, keep) and
 * path @path, and log it: the file's first rewrite or skip at level info
 * (@f: its cache entry, whose `logged` flag says if that was done; NULL:
 * log every one), every call at level debug.  shim.lock held (either
 * mode) when @f is non-NULL, so that it and @path stay valid.
 */
int decide(const struct adv_call *c, struct shim_file *f,
	   const struct policy_rule *rule, const char *path, long long start,
	   long long len) SHIM_HIDDEN;

/*
 * decide_adaptive_log - log a MADV_RANDOM call on the piece [@start,
 * @start + @len) of file @f under random = "adaptive", issued as @to: the
 * file's first such call at level info (its `logged` flag), every call at
 * level debug.  shim.lock held (either mode).
 */
void decide_adaptive_log(const struct adv_call *c, struct shim_file *f,
			 int to, uintptr_t start, size_t len) SHIM_HIDDEN;

/* --- advise.c */
/* Below ADV_KEEP and ADV_SKIP, so that one compare tells them apart. */
#define ADV_UNKNOWN (-3)		/* advise_known: take advise_range */
#define ADV_ADAPT (-4)			/* advise_known: take adapt_known */

/*
 * advise_known - without the lock: the value to issue for madvise-family
 * @advice (kind @kind) on [@addr, @addr + @len) when that range lies in
 * one extent this thread's view knows (view.c) and nothing is left to
 * log: the caller's value, a rewrite, or ADV_SKIP; counted like a decided
 * piece.  Inside memory the kernel told this thread holds no file
 * (view_nofile; not at level debug, where every call is logged): the
 * caller's value, uncounted, as advise_range would give.  ADV_ADAPT: RANDOM on adaptive ranges asked RANDOM, to be issued
 * by adapt_known().  ADV_UNKNOWN otherwise: then call advise_range().  The
 * caller issues the call itself, with the caller's exact arguments when
 * the value is unchanged and the length in whole pages when rewritten, as
 * advise_range() does.  Never fails, errno untouched.
 */
int advise_known(void *addr, size_t len, int advice, enum adv_kind kind)
	SHIM_HIDDEN;

/*
 * advise_range - apply madvise-family @advice (the caller's value, of kind
 * @kind) to [@addr, @addr + @len): each piece gets its file's action, pieces the
 * table does not know are asked of the kernel's view, adjacent pieces
 * with the same result go as one call (an unchanged range is the caller's
 * exact call).  @posix: issue through posix_madvise.  Returns 0 or an
 * error number as the kernel would for the whole range (a hole: ENOMEM
 * after the rest is done; another error stops the walk).  Call without
 * shim.lock; takes the read lock per piece, the write lock to cache a new
 * file; a call inside one range this thread's view knows takes none.
 * errno changes only when a piece fails.
 */
int advise_range(void *addr, size_t len, int advice, enum adv_kind kind,
		 bool posix) SHIM_HIDDEN;

/* --- adapt_table.c, sampler.c: random = "adaptive" (docs/adaptive.md) */
enum adapt_started {
	ADAPT_IDLE,		/* no sampler: none needed yet, or a fork child */
	ADAPT_STARTING,		/* one thread decides / creates the sampler */
	ADAPT_RUNNING,		/* the sampler thread runs */
	ADAPT_FAILED,		/* it could not be created: retried later */
};

/*
 * adapt_tracks - does an advice call of @kind on a file with @rule need
 * the adaptive path: the rule has random = "adaptive" and @kind is a read
 * hint (NORMAL, RANDOM, SEQUENTIAL: what the range is tagged with).
 */
static inline bool adapt_tracks(const struct policy_rule *rule,
				enum adv_kind kind)
{
	return kind <= ADV_SEQUENTIAL && policy_rule_adaptive(rule);
}

/* adapt_decided - has the first decision been taken (acquire)? */
static inline bool adapt_decided(void)
{
	return __atomic_load_n(&shim.adapt.decided, __ATOMIC_ACQUIRE);
}

/*
 * adapt_random_code - the madvise-family value to issue for RANDOM
 * advice @advice on a range asked RANDOM: MADV_NORMAL (== POSIX_MADV_
 * NORMAL) while the group's choice is normal, else @advice.  Any lock
 * mode or none; read after the generation the call re-checks (shim.h).
 */
static inline int adapt_random_code(int advice)
{
	return __atomic_load_n(&shim.adapt_choice, __ATOMIC_SEQ_CST) ==
	       ADAPT_NORMAL ? 0 : advice;
}

/*
 * adapt_ask - the application advised [@s, @e) of range @n (an adaptive
 * file's) with read hint @kind: update the range's tag (RANDOM on the
 * whole range; NORMAL or SEQUENTIAL: OTHER; RANDOM on a part of a range
 * not asked RANDOM, or a hint other than RANDOM on a part of one: MIXED),
 * a compare-and-swap (other callers tag under the read lock too, seq_cst:
 * ordered before the generation and `issuing` loads that follow), and
 * bump the generation if it changed.  shim.lock held for reading (or
 * writing).  Never fails.
 */
void adapt_ask(const struct map_node *n, uintptr_t s, uintptr_t e,
	       enum adv_kind kind) SHIM_HIDDEN;

/*
 * adapt_wait_issued - wait (yielding) until shim.adapt.issuing is no
 * longer @seen: the switch's madvise of one range, in flight when @seen
 * was read, has returned.  No lock held; never fails.
 */
void adapt_wait_issued(unsigned long seen) SHIM_HIDDEN;

/*
 * adapt_settle - after tagging a range (adapt_ask) and before issuing the
 * application's call on it, or after taking a range out of the table and
 * before unmapping it: if a switch's madvise of a range is in flight
 * (shim.adapt.issuing odd), wait for it to return, so that a switch that
 * read the range's old tag, or found the range still there, lands first.
 * One seq_cst load when none is; no lock held.
 */
static inline void adapt_settle(void)
{
	unsigned long seen = __atomic_load_n(&shim.adapt.issuing,
					     __ATOMIC_SEQ_CST);

	if (unlikely(seen & 1))
		adapt_wait_issued(seen);
}

/* A file whose first RANDOM piece is being decided (the first sample). */
struct adapt_seed {
	dev_t dev;
	ino_t ino;
	uint64_t size;		/* st_size */
	uint64_t bytes;		/* the piece's length */
};

/*
 * adapt_first - before the first decision, from an application's RANDOM
 * call on an adaptive file (@seed: that piece, not yet tagged): the first
 * caller takes the first sample in its own thread (reads the memory
 * cgroup, ~0.3 ms, no lock held), publishes and applies the choice, then
 * starts the sampler thread; concurrent callers wait for that decision
 * (at most ADAPT_FIRST_WAIT_MS, then go on with the application's
 * advice).  Call without shim.lock; errno preserved.
 */
void adapt_first(const struct adapt_seed *seed) SHIM_HIDDEN;

/*
 * adapt_maybe_restart - after an adaptive call, without any lock: start
 * the sampler thread where none runs although a decision was taken (a
 * fork child's first adaptive call ADAPT_CHILD_DELAY_MS or more after
 * the fork; a failed start once ADAPT_RETRY_MS have passed).  One cheap
 * load when it runs.  errno preserved.
 */
void adapt_maybe_restart(void) SHIM_HIDDEN;

/*
 * adapt_replace_begin, adapt_replace_end - around a MAP_FIXED mmap or an
 * mremap, which may replace or move table ranges before the table learns
 * of it (the table is updated after the call): begin counts
 * the call in shim.adapt.replacing, then waits out a switch's madvise in
 * flight (adapt_settle); while the count is non-zero a switch finds no
 * range (adapt_apply), so its madvise never lands on the new mapping.
 * Begin returns whether it counted (not when the table is empty); pass
 * that to end, after the table update.  No lock held; errno untouched.
 */
static inline bool adapt_replace_begin(void)
{
	if (!table_nr())
		return false;
	__atomic_fetch_add(&shim.adapt.replacing, 1, __ATOMIC_SEQ_CST);
	adapt_settle();
	return true;
}

void adapt_replace_done(void) SHIM_HIDDEN;

static inline void adapt_replace_end(bool counted)
{
	if (counted)
		adapt_replace_done();
}

/*
 * adapt_atfork_child - in a fork child (one thread, no allocation): no
 * switch is in flight here (shim.adapt.issuing made even) and no MAP_FIXED
 * call of another thread (shim.adapt.replacing cleared), mark the
 * sampler absent (restarted lazily by adapt_maybe_restart) and the
 * group's state to be re-derived by the new sampler's first sample,
 * which re-applies the choice to every range.
 */
void adapt_atfork_child(void) SHIM_HIDDEN;

#endif /* ADVSHIM_CALLS_H */
