// SPDX-License-Identifier: MIT
/*
 * init.c - once-only initialisation, configuration and fork handling.
 *
 * Init runs from the constructor, or earlier from the first interposed call
 * that may safely trigger it (a library constructor that runs before ours
 * can map and advise files).  One thread wins a compare-and-swap and
 * initialises; calls from other threads meanwhile, and calls re-entering
 * from inside init (libconfig allocates, allocators may mmap), pass
 * straight through.  Every failure leaves the shim in pure pass-through.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>

#include "shim/calls.h"

#if defined(__SANITIZE_THREAD__)
#define SHIM_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define SHIM_TSAN 1
#endif
#endif
#ifndef SHIM_TSAN
#define SHIM_TSAN 0
#endif
#if SHIM_TSAN
#include <sanitizer/tsan_interface.h>
#endif

struct shim_globals shim = {
	.state = SHIM_UNINIT,
	.log_level = POLICY_LOG_WARN,
	.lock = PTHREAD_RWLOCK_INITIALIZER,
	.table = { .file_get = files_get, .file_put = files_put },
	.table_gen = 1,		/* a zeroed view never matches */
	.vm_gen = 1,
	.adapt_choice = ADAPT_RANDOM,
};

__thread int shim_busy __attribute__((tls_model("initial-exec")));

static const char *const level_names[] = {
	[POLICY_LOG_OFF] = "off",
	[POLICY_LOG_WARN] = "warn",
	[POLICY_LOG_INFO] = "info",
	[POLICY_LOG_DEBUG] = "debug",
};

static int parse_level(const char *s, int fallback)
{
	size_t i;

	for (i = 0; i < sizeof(level_names) / sizeof(level_names[0]); i++)
		if (!strcmp(s, level_names[i]))
			return (int)i;
	return fallback;
}

/* Environment, unless the process is setuid/setgid/file-capable. */
static const char *shim_getenv(const char *name)
{
	if (getauxval(AT_SECURE))
		return NULL;
	return getenv(name);
}

/* Which advice kinds some rule changes: everything else goes straight on. */
static void compute_fast_paths(const struct policy *p)
{
	const struct policy_rule *r;
	size_t i;
	int fam, kind;

	for (i = 0; i < p->nr_rules; i++) {
		r = &p->rules[i];
		if (r->on_map)
			shim.on_map = true;
		for (fam = 0; fam < ADV_NR_FAMILIES; fam++)
			for (kind = 0; kind < ADV_NR_KINDS; kind++)
				if (r->action[fam][kind].act != ADV_ACT_KEEP)
					shim.acts[fam] |= 1u << kind;
		/* Adaptive ranges record every read hint they are given. */
		if (policy_rule_adaptive(r))
			shim.acts[ADV_FAMILY_MADVISE] |= 1u << ADV_NORMAL |
				1u << ADV_RANDOM | 1u << ADV_SEQUENTIAL;
	}
	/* debug logs every advice call: every kind gets examined. */
	if (shim.log_level >= POLICY_LOG_DEBUG)
		shim.acts[0] = shim.acts[1] = ~0u;
}

static int load_policy(struct policy **out)
{
	const char *path = shim_getenv("ADVSHIM_CONFIG");
	struct policy_error err;
	int ret;

	memset(&err, 0, sizeof(err));
	if (!path || !*path) {
		path = "/etc/advshim.conf";
		if (access(path, F_OK))
			path = NULL;
	}
	ret = path ? policy_load_file(path, out, &err) :
		     policy_load_default(out, &err);
	if (!ret)
		return 0;
	if (err.line)
		shim_log(POLICY_LOG_WARN, "%s:%d: %s; passing everything through",
			 err.file, err.line, err.msg);
	else
		shim_log(POLICY_LOG_WARN, "%s: %s; passing everything through",
			 err.file[0] ? err.file : (path ? path : "<default>"),
			 err.msg);
	strncpy(shim_stats->policy_source, path ? path : "<default>",
		sizeof(shim_stats->policy_source) - 1);
	return -1;
}

static bool process_selected(const struct policy *p)
{
	char exe[PATH_MAX];
	const char *base;
	ssize_t n;

	if (!p->nr_processes)
		return true;
	n = syscall(SYS_readlink, "/proc/self/exe", exe, sizeof(exe) - 1);
	if (n < 0)
		return false;
	exe[n] = '\0';
	base = strrchr(exe, '/');
	return policy_selects_process(p, base ? base + 1 : exe);
}

/* Whether this (forking) thread's prepare handler took the lock. */
static __thread int fork_locked __attribute__((tls_model("initial-exec")));

static void atfork_prepare(void)
{
	fork_locked = shim_state_get() == SHIM_ACTIVE;
	if (fork_locked)
		shim_wrlock();
}

static void atfork_parent(void)
{
	if (fork_locked)
		shim_unlock();
	fork_locked = 0;
}

/*
 * Child: one thread, the lock held for writing by the parent's forking
 * thread.  Unlocking is not enough: glibc's rwlock counts readers that were
 * still waiting in the parent (they register before they wait), and those
 * threads do not exist here, so the lock would never become free for a
 * writer.  Re-initialise it instead (no allocation), as glibc does with
 * its own locks in a child.  TSan tracks the lock by address: tell it the
 * write lock was released first, or it would see a locked lock forever.
 * Before that, while still the writer: ranges the parent marked
 * MADV_DONTFORK are not in this process, they leave the table.  A switch
 * the fork cut in half is forgotten (no thread here finishes it) and the
 * sampler thread (absent here) marked for a lazy restart (sampler.c).
 */
static void atfork_child(void)
{
	static const pthread_rwlock_t fresh = PTHREAD_RWLOCK_INITIALIZER;

	if (!fork_locked)
		return;
	fork_locked = 0;
	vm_changed();		/* MADV_DONTFORK ranges are holes here */
	stats_after_fork();
	/* Still as the lock's writer: forget what this child did not get. */
	dontfork_child();
#if SHIM_TSAN
	__tsan_mutex_pre_unlock(&shim.lock, 0);
	__tsan_mutex_post_unlock(&shim.lock, 0);
#endif
	adapt_atfork_child();
	memcpy(&shim.lock, &fresh, sizeof(fresh));
	/* The lines this child logged as the writer are its own to write. */
	shim_log_held = 0;
	log_flush();
}

static int init_policy(void)
{
	const char *lvl = shim_getenv("ADVSHIM_LOG");
	struct policy *p = NULL;

	if (lvl && *lvl)
		shim.log_level = parse_level(lvl, shim.log_level);
	if (load_policy(&p)) {
		STAT_SET(state, ADVSHIM_STATE_CONFIG_ERROR);
		return -1;
	}
	strncpy(shim_stats->policy_source, p->source ? p->source : "?",
		sizeof(shim_stats->policy_source) - 1);
	if (!lvl || !*lvl)
		shim.log_level = (int)p->log.level;
	log_set_target(p->log.target);
	if (!process_selected(p)) {
		shim_log(POLICY_LOG_INFO, "process not selected by %s; passing through",
			 p->source);
		STAT_SET(state, ADVSHIM_STATE_NOT_SELECTED);
		policy_free(p);
		return -1;
	}
	shim.policy = p;
	compute_fast_paths(p);
	return 0;
}

void shim_init(void)
{
	int expect = SHIM_UNINIT, saved = errno, next;

	if (!__atomic_compare_exchange_n(&shim.state, &expect, SHIM_INITIALIZING,
					 false, __ATOMIC_ACQ_REL,
					 __ATOMIC_ACQUIRE))
		return;
	shim_busy++;
	log_init();
	real_resolve();
	stats_init();
	kill_init(shim_getenv("ADVSHIM_DISABLE_FILE"));
	if (shim_getenv("ADVSHIM_KVIEW") &&
	    !strcmp(shim_getenv("ADVSHIM_KVIEW"), "maps"))
		kview_force_maps();
	next = SHIM_PASSTHROUGH;
	if (!init_policy() && !pthread_atfork(atfork_prepare, atfork_parent,
					      atfork_child)) {
		next = SHIM_ACTIVE;
		STAT_SET(state, ADVSHIM_STATE_ACTIVE);
		STAT_SET(log_level, shim.log_level);
		shim_log(POLICY_LOG_INFO, "active, policy %s", shim.policy->source);
	}
	__atomic_store_n(&shim.state, next, __ATOMIC_RELEASE);
	shim_busy--;
	errno = saved;
}

bool shim_activate(void)
{
	if (unlikely(shim_state_get() == SHIM_UNINIT) && !shim_busy)
		shim_init();
	return shim_active();
}

__attribute__((constructor)) static void shim_ctor(void)
{
	shim_init();
}
