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
 *   - fork: prepare takes the write lock, parent and child release it.
 * Anonymous mappings and advice nobody acts on never touch the lock.
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
	const struct policy_rule *rule;	/* NULL: no rule, pass through */
	unsigned int refs;		/* table ranges pointing here */
	int logged;			/* atomic: first rewrite logged */
	struct shim_file *idle_prev;	/* on the idle list when refs == 0 */
	struct shim_file *idle_next;
	size_t path_size;
	char *path;
};

struct shim_globals {
	int state;			/* enum shim_state, atomic */
	struct policy *policy;
	unsigned int acts[ADV_NR_FAMILIES];	/* kinds some rule changes */
	bool on_map;			/* some rule has on_map actions */
	int log_level;			/* enum policy_log_level */
	int log_fd;
	pthread_rwlock_t lock;
	struct maptable table;
	size_t nr_ranges;		/* atomic copy of table.count */
	unsigned long table_gen;	/* bumped on every table change */
	struct shim_file *files;	/* uthash by key */
	struct shim_file *idle_head, *idle_tail;
	size_t nr_idle;
	/* Cold, after the fields of the hot paths (their layout unchanged). */
	struct maptable dontfork;	/* MADV_DONTFORK file ranges (dontfork.c) */
	bool dontfork_lost;		/* a record failed: the child drops all */
};

extern struct shim_globals shim SHIM_HIDDEN;

/* Re-entry guard: non-zero while this thread runs shim code. */
extern __thread int shim_busy
	__attribute__((tls_model("initial-exec"))) SHIM_HIDDEN;

/* --- init.c */
/* shim_init - once-only initialisation; safe to call any time, any thread. */
void shim_init(void) SHIM_HIDDEN;

static inline int shim_state_get(void)
{
	return __atomic_load_n(&shim.state, __ATOMIC_ACQUIRE);
}

/* shim_active - policy in force and this thread not already inside. */
static inline bool shim_active(void)
{
	return shim_state_get() == SHIM_ACTIVE && !shim_busy;
}

/*
 * shim_activate - like shim_active, but initialises first if nobody has.
 * Only for entry points allocators never use while holding their locks
 * (file mappings, advice other than the allocator kinds, fadvise).
 */
bool shim_activate(void) SHIM_HIDDEN;

/* Does any rule change advice @kind of @family (or is every call logged)? */
static inline bool shim_acts_on(enum adv_family family, enum adv_kind kind)
{
	return (shim.acts[family] >> kind) & 1u;
}

/* --- real.c: the next definitions (libc's), raw syscalls until resolved. */
void real_resolve(void) SHIM_HIDDEN;
void *real_dlsym_get(void) SHIM_HIDDEN;
extern void *advshim_real_dlsym SHIM_HIDDEN;
void *call_mmap(void *addr, size_t len, int prot, int flags, int fd,
		off_t off) SHIM_HIDDEN;
void *call_mmap64(void *addr, size_t len, int prot, int flags, int fd,
		  off_t off) SHIM_HIDDEN;
int call_munmap(void *addr, size_t len) SHIM_HIDDEN;
void *call_mremap(void *old, size_t old_len, size_t new_len, int flags,
		  void *new_addr) SHIM_HIDDEN;
int call_madvise(void *addr, size_t len, int advice) SHIM_HIDDEN;
/* These two return 0 or an error number and never change errno. */
int call_posix_madvise(void *addr, size_t len, int advice) SHIM_HIDDEN;
int call_posix_fadvise(int fd, off_t off, off_t len, int advice) SHIM_HIDDEN;
int call_posix_fadvise64(int fd, off_t off, off_t len, int advice) SHIM_HIDDEN;

/* --- log.c */
void shim_log(int level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3))) SHIM_HIDDEN;

/* --- stats.c */
extern struct advshim_stats *shim_stats SHIM_HIDDEN;
void stats_init(void) SHIM_HIDDEN;
void stats_after_fork(void) SHIM_HIDDEN;
#define STAT_INC(field) __atomic_fetch_add(&shim_stats->field, 1, __ATOMIC_RELAXED)
#define STAT_SET(field, v) __atomic_store_n(&shim_stats->field, (v), __ATOMIC_RELAXED)

/* --- files.c: the (dev, ino) decision cache */
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
 * struct shim_file: the first reference takes the entry off the idle
 * list, dropping the last puts it back (the oldest idle entries beyond
 * 4096 are freed).  shim.lock held for writing.
 */
void files_get(void *f) SHIM_HIDDEN;
void files_put(void *f) SHIM_HIDDEN;

/* --- kview.c */
struct kview_vma {
	uintptr_t start, end;
	dev_t dev;
	ino_t ino;
	char path[4096];
};
int kview_query(uintptr_t addr, struct kview_vma *out) SHIM_HIDDEN;
void kview_force_maps(void) SHIM_HIDDEN;


/* --- dontfork.c: MADV_DONTFORK ranges, dropped in a fork child */
/* Before madvise(@advice): records a DONTFORK range that has known files. */
void dontfork_before(void *addr, size_t len, int advice) SHIM_HIDDEN;
/* After a successful madvise(@advice): DOFORK removes the records. */
void dontfork_after(void *addr, size_t len, int advice) SHIM_HIDDEN;
/* The write lock held: the range is a new mapping, without DONTFORK. */
void dontfork_forget(uintptr_t s, uintptr_t e) SHIM_HIDDEN;
/* Any lock mode: may some of [s, e) carry DONTFORK (mremap moves it)? */
bool dontfork_overlaps(uintptr_t s, uintptr_t e) SHIM_HIDDEN;
/* The write lock held: a DONTFORK range moved to [s, e). */
void dontfork_moved(uintptr_t s, uintptr_t e) SHIM_HIDDEN;
/*
 * Fork child (one thread, the lock held): drop the recorded ranges from
 * the table, then the records.  Frees slab nodes, never calls malloc.
 */
void dontfork_child(void) SHIM_HIDDEN;

/* --- decide.c: one advice call on one file, both families */
#define ADV_SKIP (-1)			/* issue nothing, report success */

/* The call being decided, as the caller made it. */
struct adv_call {
	const char *api;		/* "madvise", "posix_madvise", ... */
	enum adv_family family;
	enum adv_kind kind;
	int advice;			/* the caller's value */
	int fd;				/* fadvise family: the descriptor */
};

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

/* --- advise.c */
int advise_range(void *addr, size_t len, int advice, bool posix) SHIM_HIDDEN;

/* Lock helpers: never fail visibly (fail open on EDEADLK etc.). */
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
 * A thread's last table hit: valid while table_gen is unchanged (then the
 * node is still in the table, unmodified).  Programs advise a mapping
 * right after mapping it (Lucene does), so this skips most descents.
 */
struct table_hint {
	unsigned long gen;
	const struct map_node *node;
};
extern __thread struct table_hint table_hint
	__attribute__((tls_model("initial-exec"))) SHIM_HIDDEN;

/* Remember @n (lock held, either mode) as this thread's hint. */
static inline void hint_set(const struct map_node *n)
{
	table_hint.gen = shim.table_gen;
	table_hint.node = n;
}

/* The hinted node if it contains @addr (lock held), else NULL. */
static inline const struct map_node *hint_get(uintptr_t addr)
{
	const struct map_node *n = table_hint.node;

	if (table_hint.gen == shim.table_gen && n && n->start <= addr &&
	    addr < n->end)
		return n;
	return NULL;
}

/* After changing shim.table (write lock held): publish its size. */
static inline void table_changed(void)
{
	shim.table_gen++;
	__atomic_store_n(&shim.nr_ranges, shim.table.count, __ATOMIC_RELAXED);
	STAT_SET(file_maps_live, shim.table.count);
}

/* Lock-free hint: zero means no file range is known, skip the lock. */
static inline size_t table_nr(void)
{
	return __atomic_load_n(&shim.nr_ranges, __ATOMIC_RELAXED);
}

#endif /* ADVSHIM_SHIM_H */
