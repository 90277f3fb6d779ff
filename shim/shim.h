/* SPDX-License-Identifier: MIT */
/*
 * shim.h - libadvshim.so internals shared by its source files.
 *
 * Lock protocol (the one lock, shim.lock, a pthread rwlock):
 *   - shim.table (address ranges), shim.dontfork and shim.files (the
 *     (dev, ino) decision cache, every struct shim_file field except
 *     `logged`) are written only with shim.lock held for writing, and read
 *     with it held either way;
 *   - shim_file.logged is an atomic flag, set with the lock held in
 *     either mode;
 *   - shim.policy and the fast-path masks are written once during init,
 *     before shim.state becomes SHIM_ACTIVE (release), and read after
 *     observing it (acquire): readers take no lock for them;
 *   - every function that takes the lock releases it before returning;
 *     a function that must be called with it held says so (and in which
 *     mode) in its contract, and never releases it;
 *   - the decision for a file already in the cache is read under the read
 *     lock (advice, posix_fadvise); the write lock is taken only to change
 *     the table or the cache;
 *   - slab_alloc/slab_free run only under the write lock;
 *   - no system call runs under the lock except the slab's raw mmap for a
 *     new chunk and the log's write(2) (levels info and debug); naming a
 *     new file (readlink, glob matching) and the kernel's view are done
 *     outside it;
 *   - shim.table_gen is atomic: bumped (an atomic add) on every change of
 *     the table and every refresh of a cached file (its rule, `logged`
 *     cleared), with the write lock held, and on every change of what the
 *     adaptive advice decides (a range's `asked` tag, the group's choice:
 *     below), in any lock mode; read with or without the lock; each
 *     thread's view (view.c, TLS) is written by that thread with the lock
 *     held and read by it without, valid while the generation is the one
 *     it was learnt at;
 *   - the adaptive advice (adapt_table.c, sampler.c): a range's `asked`
 *     tag (the two low bits of map_node.file) is written with the lock
 *     held for reading and adapt.mu held, read with the lock held either
 *     way (atomic loads); adapt.mu serialises "set the tag, read the
 *     group's choice, issue madvise" of an application's call against
 *     "check the tag, issue madvise" of a switch, range by range; those
 *     madvise(NORMAL/RANDOM) calls, which only flip VMA flags under the
 *     mm's mmap_lock (no I/O), are the system calls made with the read
 *     lock held; the lock order is shim.lock, then adapt.mu;
 *   - fork: prepare takes the write lock, then adapt.mu; the parent
 *     releases both, the child re-initialises them (init.c).
 * Anonymous mappings, advice nobody acts on and advice inside a range the
 * calling thread's view knows never touch the lock.
 */
#ifndef ADVSHIM_SHIM_H
#define ADVSHIM_SHIM_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "shim/slab.h"

/*
 * uthash allocates through the shim's slab (under the write lock), and an
 * allocation failure must not exit(): HASH_NONFATAL_OOM makes HASH_ADD
 * leave the table unchanged and raise files_oom instead.
 */
extern int files_oom;
#define uthash_malloc(sz)		slab_alloc(sz)
#define uthash_free(ptr, sz)		slab_free(ptr, sz)
#define HASH_NONFATAL_OOM		1
#define uthash_nonfatal_oom(obj)	(files_oom = 1)
#include <uthash.h>

#include "policy/policy.h"
#include "adapt/adapt.h"
#include "shim/maptable.h"
#include "shim/page.h"
#include "shim/stats_layout.h"
#include "shim/sys.h"

/* The interposers: exported, plus hidden aliases the shim itself uses. */
#define SHIM_EXPORT __attribute__((visibility("default")))
#if defined(__clang__)
#define SHIM_COPY_ATTRS(name)
#else
#define SHIM_COPY_ATTRS(name) __attribute__((copy(name)))
#endif
#define SHIM_SELF(name) \
	extern __typeof(name) shim_##name##_self SHIM_COPY_ATTRS(name) \
		__attribute__((alias(#name), visibility("hidden")))

#define likely(x)	__builtin_expect(!!(x), 1)
#define unlikely(x)	__builtin_expect(!!(x), 0)

enum shim_state {
	SHIM_UNINIT,
	SHIM_INITIALIZING,
	SHIM_ACTIVE,
	SHIM_PASSTHROUGH,	/* config error or process not selected */
};

struct file_key {
	dev_t dev;
	ino_t ino;
};

/* One file the process mapped or advised: its identity and decision. */
struct shim_file {
	struct file_key key;
	UT_hash_handle hh;
	struct timespec ctime;		/* to notice a reused inode number */
	off_t size;			/* st_size when named (adaptive need) */
	const struct policy_rule *rule;	/* NULL: no rule, pass through */
	unsigned int refs;		/* table ranges pointing here */
	int logged;			/* atomic: first rewrite logged */
	struct shim_file *idle_prev;	/* on the idle list when refs == 0 */
	struct shim_file *idle_next;
	size_t path_size;
	char *path;
};

/*
 * What the application last asked for on a table range of a file under
 * random = "adaptive", kept in the two low bits of map_node.file (a
 * struct shim_file pointer, 16-byte aligned by the slab): a switch of the
 * group's choice re-advises exactly the ranges asked RANDOM as a whole.
 * A read hint on part of a range cuts it first (advise.c), as the kernel
 * splits the VMA, so ASKED_MIXED is left only where that cut failed or
 * mremap moved pieces asked differently as one.  Splitting (munmap of a
 * hole) and moving (mremap) a range keep its tag, as the kernel keeps the
 * VMA's flags.
 */
enum map_asked {
	ASKED_NONE,		/* no read hint given (or not an adaptive file) */
	ASKED_RANDOM,		/* the last hint on the whole range: RANDOM */
	ASKED_OTHER,		/* NORMAL or SEQUENTIAL: not the sampler's */
	ASKED_MIXED,		/* pieces asked differently: left alone */
};
#define ASKED_MASK	3ul

/* node_word - map_node.file with its tag, one atomic load (any lock mode). */
static inline uintptr_t node_word(const struct map_node *n)
{
	return (uintptr_t)__atomic_load_n(&n->file, __ATOMIC_RELAXED);
}

/* node_file - the range's struct shim_file (shim.lock held, either mode). */
static inline struct shim_file *node_file(const struct map_node *n)
{
	return (struct shim_file *)(node_word(n) & ~ASKED_MASK);
}

/* node_asked - the range's enum map_asked (shim.lock held, either mode). */
static inline enum map_asked node_asked(const struct map_node *n)
{
	return (enum map_asked)(node_word(n) & ASKED_MASK);
}

/* The adaptive advice's state, one decision group per process. */
struct shim_adapt {
	pthread_mutex_t mu;		/* see the lock protocol above */
	int decided;			/* atomic: the first decision was taken */
	int started;			/* atomic: enum adapt_started */
	uint64_t retry_ms;		/* a failed start is retried from then */
	uint64_t fork_ms;		/* a fork child: when it was forked */
};

struct shim_globals {
	int state;			/* enum shim_state, atomic */
	struct policy *policy;
	unsigned int acts[ADV_NR_FAMILIES];	/* kinds some rule changes */
	bool on_map;			/* some rule has on_map actions */
	int log_level;			/* enum policy_log_level */
	pthread_rwlock_t lock;
	struct maptable table;
	size_t nr_ranges;		/* atomic copy of table.count */
	unsigned long vm_gen;		/* atomic: vm_gen(), vm_changed() */
	int vm_watched;			/* atomic: vm_watch() was called */
	unsigned long table_gen;	/* atomic: table_gen(), gen_bump() */
	int adapt_choice;		/* atomic: the adaptive group's enum
					   adapt_choice (hot: next to
					   table_gen, read with it) */
	struct shim_file *files;	/* uthash by key */
	struct shim_file *idle_head, *idle_tail;
	size_t nr_idle;
	/* Cold: after the fields the hot paths read. */
	struct maptable dontfork;	/* MADV_DONTFORK file ranges (dontfork.c) */
	bool dontfork_lost;		/* a record failed: the child drops all */
	struct shim_adapt adapt;	/* random = "adaptive" (sampler.c) */
};

extern struct shim_globals shim SHIM_HIDDEN;

/* Re-entry guard: non-zero while this thread runs shim code. */
extern __thread int shim_busy
	__attribute__((tls_model("initial-exec"))) SHIM_HIDDEN;

/* --- init.c */
/*
 * shim_init - the once-only initialisation: resolves the next definitions,
 * maps the stats page, loads the policy and registers the fork handlers,
 * then publishes shim.state (SHIM_ACTIVE, or SHIM_PASSTHROUGH on any
 * failure, logged once).  Safe to call from any thread at any time: one
 * caller wins, the others (and re-entrant calls) return at once while it
 * runs.  Takes no shim.lock; errno is preserved.
 */
void shim_init(void) SHIM_HIDDEN;

/* shim_state_get - shim.state (enum shim_state), an acquire load. */
static inline int shim_state_get(void)
{
	return __atomic_load_n(&shim.state, __ATOMIC_ACQUIRE);
}

/*
 * shim_active - true if the policy is in force and this thread is not
 * already inside the shim (shim_busy); no lock, never initialises.
 */
static inline bool shim_active(void)
{
	return shim_state_get() == SHIM_ACTIVE && !shim_busy;
}

/*
 * shim_activate - shim_active(), but runs shim_init() first if nobody has.
 * Only for entry points allocators never use while holding their locks
 * (file mappings, advice other than the allocator kinds, fadvise), since
 * init allocates.  No lock; errno preserved.
 */
bool shim_activate(void) SHIM_HIDDEN;

/*
 * shim_acts_on - true if some rule changes advice @kind of @family, or
 * every call is logged (level debug); false: pass such calls on as they
 * are.  Read without a lock after observing SHIM_ACTIVE.
 */
static inline bool shim_acts_on(enum adv_family family, enum adv_kind kind)
{
	return (shim.acts[family] >> kind) & 1u;
}

/* --- real.c: the next definitions (libc's), raw syscalls until resolved */
/*
 * real_resolve - look up the next definition of every interposed name
 * (dlsym(RTLD_NEXT)); a name not found keeps its raw system call.  Called
 * by shim_init; no lock, never fails visibly.
 */
void real_resolve(void) SHIM_HIDDEN;

/*
 * real_dlsym_get - the real dlsym (libc's, found with dlvsym), resolved on
 * first use and cached in advshim_real_dlsym; NULL if it cannot be found.
 * No lock, any thread, from the sanitizers' early dlsym calls too.
 */
void *real_dlsym_get(void) SHIM_HIDDEN;
extern void *advshim_real_dlsym SHIM_HIDDEN;

/*
 * call_mmap ... call_madvise - the next definition of the name, or before
 * it is resolved the raw system call with libc's contract: the result of
 * the call, -1 or MAP_FAILED with errno set on failure.  No lock.
 */
void *call_mmap(void *addr, size_t len, int prot, int flags, int fd,
		off_t off) SHIM_HIDDEN;
void *call_mmap64(void *addr, size_t len, int prot, int flags, int fd,
		  off_t off) SHIM_HIDDEN;
int call_munmap(void *addr, size_t len) SHIM_HIDDEN;
void *call_mremap(void *old, size_t old_len, size_t new_len, int flags,
		  void *new_addr) SHIM_HIDDEN;
int call_madvise(void *addr, size_t len, int advice) SHIM_HIDDEN;

/*
 * call_posix_madvise, call_posix_fadvise, call_posix_fadvise64 - likewise,
 * with the posix contract: 0 or an error number, errno never changed
 * (posix_madvise(POSIX_MADV_DONTNEED) is glibc's no-op before resolution).
 */
int call_posix_madvise(void *addr, size_t len, int advice) SHIM_HIDDEN;
int call_posix_fadvise(int fd, off_t off, off_t len, int advice) SHIM_HIDDEN;
int call_posix_fadvise64(int fd, off_t off, off_t len, int advice) SHIM_HIDDEN;

/* --- log.c: where lines go and which descriptors that takes (log.c) */
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
 * shim_log - one line "advshim[PID]: ..." at @level (enum
 * policy_log_level) if the level in force allows it: formatted on the
 * stack, one write(2) to the log target, truncated to 1 KiB.  A file
 * target is opened and closed around each line (log.c: the shim holds no
 * descriptor); fd 2 is written only while it is the file of the shim's
 * start.  No malloc, no lock (callers may hold shim.lock),
 * errno preserved, write errors ignored.
 */
void shim_log(int level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3))) SHIM_HIDDEN;

/* --- stats.c: the counters page `advshim inspect` reads (stats_layout.h) */
/* The page in use: a private static one until stats_init() maps the memfd. */
extern struct advshim_stats *shim_stats SHIM_HIDDEN;

/*
 * stats_init - fill in the page's header (magic, version, pid, library
 * version) and move the counters to a fresh MAP_SHARED memfd page; on any
 * failure they stay in the private page (inspect then finds none).
 * Called once by shim_init; no lock; errno preserved.
 */
void stats_init(void) SHIM_HIDDEN;

/*
 * stats_after_fork - in a fork child (one thread): give it its own page,
 * starting from the parent's numbers, and unmap the parent's.  Raw system
 * calls only, no allocation; on failure the private page is used.
 */
void stats_after_fork(void) SHIM_HIDDEN;

/* STAT_INC, STAT_SET - relaxed atomic update of a counter; no lock. */
#define STAT_INC(field) __atomic_fetch_add(&shim_stats->field, 1, __ATOMIC_RELAXED)
#define STAT_SET(field, v) __atomic_store_n(&shim_stats->field, (v), __ATOMIC_RELAXED)

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
		STAT_INC(kept);
	else if (to == ADV_SKIP)
		STAT_INC(skipped);
	else
		STAT_INC(rewritten);
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
 * mode (adapt.mu held for an application's call: see shim.h's protocol).
 */
static inline int adapt_random_code(int advice)
{
	return __atomic_load_n(&shim.adapt_choice, __ATOMIC_ACQUIRE) ==
	       ADAPT_NORMAL ? 0 : advice;
}

/*
 * adapt_ask - the application advised [@s, @e) of range @n (an adaptive
 * file's) with read hint @kind: update the range's tag (RANDOM on the
 * whole range; NORMAL or SEQUENTIAL: OTHER; RANDOM on a part of a range
 * not asked RANDOM, or a hint other than RANDOM on a part of one: MIXED)
 * and bump the generation if it changed.  shim.lock held for reading and
 * adapt.mu held.  Never fails.
 */
void adapt_ask(const struct map_node *n, uintptr_t s, uintptr_t e,
	       enum adv_kind kind) SHIM_HIDDEN;

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
 * advice).  Call without shim.lock and adapt.mu; errno preserved.
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
 * adapt_atfork_prepare, adapt_atfork_parent, adapt_atfork_child - take
 * adapt.mu after the table lock before a fork, release it in the parent;
 * in the child (one thread, no allocation): re-initialise it, mark the
 * sampler absent (restarted lazily by adapt_maybe_restart) and the group's
 * state to be re-derived by the new sampler's first sample, which
 * re-applies the choice to every range.
 */
void adapt_atfork_prepare(void) SHIM_HIDDEN;
void adapt_atfork_parent(void) SHIM_HIDDEN;
void adapt_atfork_child(void) SHIM_HIDDEN;

/*
 * shim_rdlock, shim_wrlock, shim_unlock - shim.lock (see the protocol at
 * the top).  They never fail visibly: an error (EDEADLK, EAGAIN) is
 * ignored and the caller goes on (fail open).
 */
static inline void shim_rdlock(void)
{
	pthread_rwlock_rdlock(&shim.lock);
}

static inline void shim_wrlock(void)
{
	pthread_rwlock_wrlock(&shim.lock);
}

static inline void shim_unlock(void)
{
	pthread_rwlock_unlock(&shim.lock);
}

/*
 * table_gen - the generation of shim.table and of the cached decisions;
 * an atomic read, with or without shim.lock.
 */
static inline unsigned long table_gen(void)
{
	return __atomic_load_n(&shim.table_gen, __ATOMIC_ACQUIRE);
}

/*
 * gen_bump - the table, a cached file's decision, a range's `asked` tag
 * or the adaptive choice changed, so every thread's view of them (view.c)
 * is stale.  An atomic add, with release order (the change it announces
 * is visible to whoever sees the new generation): callable in any lock
 * mode and by the sampler without the lock.
 */
static inline void gen_bump(void)
{
	__atomic_fetch_add(&shim.table_gen, 1, __ATOMIC_SEQ_CST);
}

/*
 * table_changed - after changing shim.table (write lock held): bump the
 * generation, publish the size for table_nr() and the stats.
 */
static inline void table_changed(void)
{
	gen_bump();
	__atomic_store_n(&shim.nr_ranges, shim.table.count, __ATOMIC_RELAXED);
	STAT_SET(file_maps_live, shim.table.count);
}

/*
 * table_nr - the number of ranges in the table, read without the lock:
 * zero means no file range is known, so munmap and mremap skip the lock.
 */
static inline size_t table_nr(void)
{
	return __atomic_load_n(&shim.nr_ranges, __ATOMIC_RELAXED);
}

/*
 * vm_gen - the generation of the address space as far as the shim sees
 * it (view_nofile's stamp), without the lock.  Bumped by vm_changed()
 * once vm_watch() was called: after every munmap, mremap, MAP_FIXED mmap
 * and file mmap, and in a fork child.  A new anonymous mapping elsewhere
 * cannot turn memory the kernel called "no file" into a file, so it
 * bumps nothing (the allocators' mmap path stays one call).
 */
static inline unsigned long vm_gen(void)
{
	return __atomic_load_n(&shim.vm_gen, __ATOMIC_ACQUIRE);
}

/* vm_watched - whether any thread asked the kernel about an address. */
static inline bool vm_watched(void)
{
	return __atomic_load_n(&shim.vm_watched, __ATOMIC_SEQ_CST);
}

/*
 * vm_watch - before asking the kernel what is at an address: start the
 * bumps (first) and return the generation to stamp the answer with, so
 * that a mapping call completing meanwhile is never missed.
 */
static inline unsigned long vm_watch(void)
{
	if (!vm_watched())
		__atomic_store_n(&shim.vm_watched, 1, __ATOMIC_SEQ_CST);
	return vm_gen();
}

/* vm_changed - after a mapping call returned (see vm_gen); errno kept. */
static inline void vm_changed(void)
{
	if (vm_watched())
		__atomic_fetch_add(&shim.vm_gen, 1, __ATOMIC_SEQ_CST);
}

#endif /* ADVSHIM_SHIM_H */
