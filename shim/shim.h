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
 *   - the one system call made with the lock held is the slab's raw mmap
 *     of a new chunk (slab_alloc: the table and the cache grow inside the
 *     write-locked change that needs the memory, and an allocation that
 *     could be retried outside would make every insert a two-phase
 *     protocol; one chunk per 64 KiB of a size class).  Every other system
 *     call, madvise included, runs with the lock released: naming a new
 *     file (readlink, glob matching), the kernel's view, the application's
 *     own calls, every madvise of the adaptive advice, and the log: a line
 *     logged with the lock held (it names a cached file's path, valid only
 *     under the lock) is formatted into the thread's buffer and written by
 *     shim_unlock() after the release (log.h);
 *   - shim.table_gen is atomic: bumped (an atomic add) on every change of
 *     the table and every refresh of a cached file (its rule, `logged`
 *     cleared), with the write lock held, and on every change of what the
 *     adaptive advice decides (a range's `asked` tag, the group's choice:
 *     below), in any lock mode; read with or without the lock
 *     (sequentially consistent); each thread's view (view.c, TLS) is
 *     written by that thread with the lock held and read by it without,
 *     valid while the generation is the one it was learnt at;
 *   - the adaptive advice (adapt_table.c, sampler.c) follows one rule,
 *     with no lock of its own: a range's `asked` tag (the two low bits of
 *     map_node.file) is changed by a compare-and-swap with the lock held
 *     in either mode (readers race to tag), read with it held either way;
 *     an application's read hint on an adaptive range tags it, reads the
 *     generation and then the choice, releases the lock, waits out a
 *     switch's madvise in flight (adapt.issuing odd), issues its call and
 *     re-checks the generation, issuing again while it moved and the
 *     choice changed (bounded by the sampler's switches); a switch
 *     publishes the choice and bumps the generation before its walk, then
 *     per range makes adapt.issuing odd, finds the range and reads its tag
 *     under the read lock, releases it, issues its madvise and makes
 *     adapt.issuing even; munmap and mremap take the range out of the
 *     table before their system call and then wait out such a madvise;
 *     a MAP_FIXED mmap (or MREMAP_FIXED mremap), which replaces ranges
 *     before the table learns of it, counts itself in adapt.replacing
 *     and waits out such a madvise before its system call, and a switch
 *     finds no range while adapt.replacing is non-zero.
 *     adapt_table.c's top comment gives the argument, race by race;
 *   - fork: prepare takes the write lock, the parent releases it, the
 *     child re-initialises it, makes adapt.issuing even and clears
 *     adapt.replacing (init.c, sampler.c).
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
	unsigned long issuing;		/* atomic: odd while a switch's
					   madvise of one range is in
					   flight (adapt_table.c) */
	unsigned long replacing;	/* atomic: MAP_FIXED calls between
					   their announcement and their
					   table update (mapping.c) */
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
	int disabled;			/* atomic: the kill switch is on (kill.c) */
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

/* --- kill.c: the kill switch file */
#define ADVSHIM_DISABLE_DEFAULT	"/run/advshim/disable"

/*
 * kill_init - the switch's file: @env (ADVSHIM_DISABLE_FILE; NULL: the
 * default, "": no switch), then the first look.  Called once by shim_init.
 */
void kill_init(const char *env) SHIM_HIDDEN;

/*
 * kill_check - look now: is the file there?  Sets shim.disabled and the
 * stats page's `disabled`, bumps the generation and logs when it changed.
 * One raw faccessat, no lock, no allocation; errno preserved.
 */
bool kill_check(void) SHIM_HIDDEN;

/*
 * kill_poll - shim.disabled, looking again (kill_check) when the last
 * look is KILL_RECHECK_MS old (a coarse clock read otherwise).  Any lock
 * mode or none; errno preserved.
 */
bool kill_poll(void) SHIM_HIDDEN;

/* The next definitions (real.c) and the log (log.c). */
#include "shim/real.h"
#include "shim/log.h"

/* --- stats.c: the counters page `advshim inspect` reads (stats_layout.h) */
/* The page in use: a private static one until stats_init() maps the memfd. */
extern struct advshim_stats *shim_stats SHIM_HIDDEN;

/*
 * stats_init - fill in the page's header (magic, version, pid, library
 * version) and move the counters to a fresh MAP_SHARED memfd region; on any
 * failure they stay in the private page (inspect then finds none).
 * Called once by shim_init; no lock; errno preserved.
 */
void stats_init(void) SHIM_HIDDEN;

/*
 * stats_after_fork - in a fork child (one thread): give it its own page,
 * starting from the parent's numbers, and unmap the parent's.  The slots
 * of the parent's other threads are freed (their counts stay in them);
 * the forking thread keeps its slot under its new TID.  Raw system
 * calls only, no allocation; on failure the private page is used.
 */
void stats_after_fork(void) SHIM_HIDDEN;

/* STAT_INC, STAT_SET - relaxed atomic update of a counter; no lock. */
#define STAT_INC(field) __atomic_fetch_add(&shim_stats->field, 1, __ATOMIC_RELAXED)
#define STAT_SET(field, v) __atomic_store_n(&shim_stats->field, (v), __ATOMIC_RELAXED)

/*
 * This thread's slot in shim_stats->slots; NULL: none yet (before
 * stats_init, or none free at its last try).  Moved by stats_after_fork.
 */
extern __thread struct advshim_stats_slot *shim_stat_slot
	__attribute__((tls_model("initial-exec"))) SHIM_HIDDEN;

/*
 * stats_hot_miss - count one in @field (the page's own, atomically) for a
 * thread without a slot, and, once stats_init has run, give it one
 * (shim_stat_slot): a free one, else one whose owner has exited (tgkill
 * says ESRCH; its counts stay in it); none: it tries again after 65536
 * calls.  Lock-free (compare-and-swap on the owner), no allocation, errno
 * preserved.
 */
void stats_hot_miss(uint64_t *field) SHIM_HIDDEN;

/*
 * slot_inc - add one to a counter of this thread's own slot: a plain
 * store, the slot's only writer (no locked instruction); relaxed atomics
 * only so that readers in other processes never see a torn value.
 */
static inline void slot_inc(uint64_t *n)
{
	__atomic_store_n(n, __atomic_load_n(n, __ATOMIC_RELAXED) + 1,
			 __ATOMIC_RELAXED);
}

/*
 * STAT_HOT - add one to a hot counter (calls, passed, kept, rewritten,
 * skipped) in this thread's slot (slot_inc); a thread without one goes
 * out of line (stats_hot_miss).
 */
#define STAT_HOT(field)							\
	do {								\
		struct advshim_stats_slot *slot_ = shim_stat_slot;	\
									\
		if (likely(slot_))					\
			slot_inc(&slot_->field);			\
		else							\
			stats_hot_miss(&shim_stats->field);		\
	} while (0)

/*
 * shim_rdlock, shim_wrlock, shim_unlock - shim.lock (see the protocol at
 * the top).  They never fail visibly: an error (EDEADLK, EAGAIN) is
 * ignored and the caller goes on (fail open).
 */
static inline void shim_rdlock(void)
{
	pthread_rwlock_rdlock(&shim.lock);
	shim_log_held = 1;
}

static inline void shim_wrlock(void)
{
	pthread_rwlock_wrlock(&shim.lock);
	shim_log_held = 1;
}

/* ... and then the log lines the holder left waiting (log.h). */
static inline void shim_unlock(void)
{
	shim_log_held = 0;
	pthread_rwlock_unlock(&shim.lock);
	if (unlikely(shim_log_waiting))
		log_flush();
}

/*
 * table_gen - the generation of shim.table and of the cached decisions;
 * an atomic read, with or without shim.lock.  Sequentially consistent
 * (the same instruction as an acquire load on x86-64 and arm64): the
 * re-check of the lock protocol's rule pairs it with a tag's
 * compare-and-swap before it and a switch's gen_bump.
 */
static inline unsigned long table_gen(void)
{
	return __atomic_load_n(&shim.table_gen, __ATOMIC_SEQ_CST);
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
