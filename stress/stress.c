// SPDX-License-Identifier: MIT
/*
 * stress.c - advshim-stress: many threads hammering every intercepted call.
 *
 * usage: advshim-stress DIR SECONDS [--threads N] [--shim|--no-shim]
 *
 * DIR holds keep/, rewrite/ and other/ with NR_FILES files each (created
 * here); the policy the run script writes keeps MADV_RANDOM for DIR/keep/,
 * rewrites it to normal for DIR/rewrite/, and has no rule for other/.
 * Each worker thread owns its mappings (file and anonymous) and, in a
 * loop, maps, advises (madvise, posix_madvise, posix_fadvise, and the same
 * through dlsym: every advice value the kernel knows, and invalid ones),
 * mremaps (grow, shrink, move, MREMAP_FIXED, MREMAP_DONTUNMAP) and unmaps
 * (whole, head, tail, middle).  Some threads fork children that do the
 * same with threads of their own, check their own mappings and exit; one
 * thread calls dlsym for the intercepted names all the time.
 *
 * Checked on every call: return value and errno contracts (madvise: 0, or
 * -1 with a kernel errno; posix_*: an error number, errno untouched; an
 * invalid advice: EINVAL; a bad fd: EBADF).  Each thread keeps a model of
 * what its advice did to each page (rr, sr, none, unknown after a failed
 * call), carried through mremap; at the end every live page of every
 * mapping is compared with VmFlags in /proc/self/smaps: keep/ and other/
 * and anonymous memory get `rr` from RANDOM, rewrite/ never (with --shim).
 * A watchdog fails the run when no call completes for WATCHDOG_S seconds
 * (a deadlock) or a child lives longer than that.
 * Exit: 0 all good, 1 a check failed, 2 usage/setup, 3 watchdog.
 */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/smaps.h"

#define PAGE		4096UL
#define NR_FILES	8
#define FILE_PAGES	64
#define MAX_PAGES	16
#define NR_SLOTS	12
#define MAX_THREADS	64
#define MAX_CHILDREN	2
#define WATCHDOG_S	30

enum kind { K_ANON, K_KEEP, K_REWRITE, K_OTHER, NR_KINDS };
static const char *const kind_dir[NR_KINDS] = { NULL, "keep", "rewrite", "other" };

/* Model of one page's advice flags. */
enum flag { F_NONE, F_RR, F_SR, F_UNKNOWN };

struct slot {
	bool live;
	enum kind kind;
	uintptr_t addr;
	size_t npages;
	unsigned char flag[MAX_PAGES];
};

struct worker {
	int id;
	unsigned long seed;
	struct slot slots[NR_SLOTS];
	const char *volatile last_op;
	pthread_t thread;
	bool may_fork;
};

/* Advice values: every one the kernel knows except MADV_HWPOISON (100) and
 * MADV_SOFT_OFFLINE (101), which really damage memory as root, then
 * invalid ones. */
static const int madv_valid[] = {
	0, 1, 2, 3, 4, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21,
	22, 23, 24, 25, 26, 27,
};
static const int madv_invalid[] = { 5, 6, 7, 99, 1000, -1, INT_MAX };
static const int padv_invalid[] = { 5, 6, 99, -1, INT_MAX };
static const int fadv_valid[] = { 0, 1, 2, 3, 4, 5 };
static const int fadv_invalid[] = { 6, 7, 99, -1, INT_MAX };

#define N(a) (sizeof(a) / sizeof((a)[0]))

static const char *dir;
static bool expect_shim = true;
static atomic_bool stop;
static atomic_ulong progress;
static atomic_int failures;
static atomic_ulong nr_calls[8];
enum { C_MAP, C_ADVISE, C_FADVISE, C_REMAP, C_UNMAP, C_FORK, C_DLSYM, C_CHECKED };
static const char *const call_name[] = {
	"mmap", "madvise", "fadvise", "mremap", "munmap", "fork", "dlsym",
	"pages checked",
};

static void *libc;
static int (*dl_posix_madvise)(void *, size_t, int);
static int (*dl_madvise)(void *, size_t, int);
static int (*dl_posix_fadvise)(int, off_t, off_t, int);

static pid_t children[MAX_CHILDREN];
static time_t child_start[MAX_CHILDREN];
static pthread_mutex_t child_lock = PTHREAD_MUTEX_INITIALIZER;
static bool in_child;

/* A failed check: say what, once per kind of problem is enough to debug. */
static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void fail(const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n > sizeof(buf) - 2)
		n = (int)sizeof(buf) - 2;
	buf[n++] = '\n';
	if (atomic_fetch_add(&failures, 1) < 20) {
		ssize_t w = write(2, "advshim-stress: FAIL: ", 22);

		w = write(2, buf, (size_t)n);
		(void)w;
	}
}

static unsigned long rnd(struct worker *w, unsigned long n)
{
	/* xorshift64: cheap, per thread, reproducible from the seed. */
	w->seed ^= w->seed << 13;
	w->seed ^= w->seed >> 7;
	w->seed ^= w->seed << 17;
	return n ? w->seed % n : 0;
}

static void file_path(char *buf, size_t size, enum kind k, unsigned int i)
{
	snprintf(buf, size, "%s/%s/f%u", dir, kind_dir[k], i);
}

/* errno values madvise() may legitimately fail with. */
static bool madvise_errno_ok(int e)
{
	return e == EINVAL || e == ENOMEM || e == EAGAIN || e == EBADF ||
	       e == EPERM || e == EIO || e == EFAULT || e == EACCES ||
	       e == EBUSY || e == EHWPOISON || e == ENOSYS;
}

/* What advice @adv does to rr/sr of a page of kind @k when it succeeds. */
static int flag_after(enum kind k, int adv, int old)
{
	switch (adv) {
	case MADV_NORMAL:
		return F_NONE;
	case MADV_RANDOM:
		return (k == K_REWRITE && expect_shim) ? F_NONE : F_RR;
	case MADV_SEQUENTIAL:
		return F_SR;
	default:
		return old;
	}
}

static struct slot *free_slot(struct worker *w)
{
	for (int i = 0; i < NR_SLOTS; i++)
		if (!w->slots[i].live)
			return &w->slots[i];
	return NULL;
}

static struct slot *live_slot(struct worker *w)
{
	int start = (int)rnd(w, NR_SLOTS);

	for (int i = 0; i < NR_SLOTS; i++) {
		struct slot *s = &w->slots[(start + i) % NR_SLOTS];

		if (s->live)
			return s;
	}
	return NULL;
}

static void check_fadvise(int fd, off_t off, off_t len, int adv, bool via_dl)
{
	int r, saved;

	errno = 4242;
	r = via_dl ? dl_posix_fadvise(fd, off, len, adv) :
		     posix_fadvise(fd, off, len, adv);
	saved = errno;
	atomic_fetch_add(&nr_calls[C_FADVISE], 1);
	if (saved != 4242)
		fail("posix_fadvise(%d, %ld, %ld, %d) changed errno to %d",
		     fd, (long)off, (long)len, adv, saved);
	if (fd < 0 && r != EBADF)
		fail("posix_fadvise(bad fd) returned %d, not EBADF", r);
	else if (fd >= 0) {
		bool valid = adv >= 0 && adv <= 5;

		if (!valid && r != EINVAL)
			fail("posix_fadvise(advice %d) returned %d, not EINVAL",
			     adv, r);
		if (valid && r != 0 && !(len < 0 && r == EINVAL))
			fail("posix_fadvise(advice %d) returned %d", adv, r);
	}
}

static void do_map(struct worker *w)
{
	struct slot *s = free_slot(w);
	char path[PATH_MAX];
	size_t np = 1 + rnd(w, MAX_PAGES);
	int fd = -1, flags, prot = PROT_READ;
	void *p;

	if (!s)
		return;
	s->kind = (enum kind)rnd(w, NR_KINDS);
	if (s->kind == K_ANON) {
		flags = MAP_PRIVATE | MAP_ANONYMOUS;
		prot |= PROT_WRITE;
	} else {
		bool shared = rnd(w, 2);

		file_path(path, sizeof(path), s->kind, (unsigned)rnd(w, NR_FILES));
		fd = open(path, (shared ? O_RDWR : O_RDONLY) | O_CLOEXEC);
		if (fd < 0) {
			fail("open %s: %s", path, strerror(errno));
			return;
		}
		flags = shared ? MAP_SHARED : MAP_PRIVATE;
		if (shared)
			prot |= PROT_WRITE;
		if (rnd(w, 4) == 0) {
			bool bad = rnd(w, 3) == 0;
			int adv = bad ? fadv_invalid[rnd(w, N(fadv_invalid))] :
					fadv_valid[rnd(w, N(fadv_valid))];

			check_fadvise(fd, (off_t)(rnd(w, 8) * PAGE),
				      (off_t)(rnd(w, 8) * PAGE), adv, rnd(w, 2));
		}
	}
	errno = 4242;
	p = mmap(NULL, np * PAGE, prot, flags, fd,
		 fd < 0 ? 0 : (off_t)(rnd(w, FILE_PAGES - np + 1) * PAGE));
	atomic_fetch_add(&nr_calls[C_MAP], 1);
	if (p == MAP_FAILED) {
		fail("mmap of %zu pages (kind %d): %s", np, s->kind,
		     strerror(errno));
	} else {
		if (errno != 4242)
			fail("successful mmap changed errno to %d", errno);
		for (size_t i = 0; i < np; i++)
			(void)*(volatile char *)((char *)p + i * PAGE);
		s->live = true;
		s->addr = (uintptr_t)p;
		s->npages = np;
		memset(s->flag, F_NONE, sizeof(s->flag));
	}
	if (fd >= 0)
		close(fd);
}

static int pick_advice(struct worker *w, bool posix, bool *valid)
{
	unsigned long r = rnd(w, 16);

	*valid = true;
	if (r < 8)		/* the three that matter, often */
		return (int)(r % 3);
	if (r < 14)
		return posix ? (int)rnd(w, 5) : madv_valid[rnd(w, N(madv_valid))];
	*valid = false;
	return posix ? padv_invalid[rnd(w, N(padv_invalid))] :
		       madv_invalid[rnd(w, N(madv_invalid))];
}

static void do_advise(struct worker *w)
{
	struct slot *s = live_slot(w);
	size_t a, b;
	int how, adv, r, e;
	bool valid, posix;

	if (!s)
		return;
	a = rnd(w, s->npages);
	b = a + 1 + rnd(w, s->npages - a);
	how = (int)rnd(w, 4);	/* madvise, posix_madvise, and via dlsym */
	posix = how & 1;
	adv = pick_advice(w, posix, &valid);
	w->last_op = posix ? "posix_madvise" : "madvise";
	errno = 4242;
	switch (how) {
	case 0: r = madvise((void *)(s->addr + a * PAGE), (b - a) * PAGE, adv); break;
	case 1: r = posix_madvise((void *)(s->addr + a * PAGE), (b - a) * PAGE, adv); break;
	case 2: r = dl_madvise((void *)(s->addr + a * PAGE), (b - a) * PAGE, adv); break;
	default: r = dl_posix_madvise((void *)(s->addr + a * PAGE), (b - a) * PAGE, adv); break;
	}
	e = errno;
	atomic_fetch_add(&nr_calls[C_ADVISE], 1);
	if (posix) {
		if (e != 4242)
			fail("posix_madvise(advice %d) changed errno to %d", adv, e);
		if (!valid && r != EINVAL)
			fail("posix_madvise(invalid advice %d) returned %d", adv, r);
		if (valid && r != 0)
			fail("posix_madvise(advice %d) on a live mapping returned %d",
			     adv, r);
		r = r ? -1 : 0;
	} else {
		if (r == 0 && e != 4242)
			fail("successful madvise(advice %d) changed errno to %d", adv, e);
		if (r != 0 && (r != -1 || !madvise_errno_ok(e)))
			fail("madvise(advice %d) returned %d errno %d", adv, r, e);
		if (!valid && !(r == -1 && e == EINVAL))
			fail("madvise(invalid advice %d) returned %d errno %d",
			     adv, r, e);
		/* The three rr/sr advices never fail on a live mapping. */
		if (adv >= 0 && adv <= 2 && r != 0)
			fail("madvise(advice %d) on a live mapping: errno %d", adv, e);
	}
	for (size_t i = a; i < b; i++)
		s->flag[i] = r == 0 ? (unsigned char)flag_after(s->kind, adv, s->flag[i]) :
			     (adv >= 0 && adv <= 2) ? F_UNKNOWN : s->flag[i];
}

static void do_fadvise(struct worker *w)
{
	char path[PATH_MAX];
	bool bad = rnd(w, 4) == 0;
	int fd, adv;

	w->last_op = "posix_fadvise";
	adv = bad ? fadv_invalid[rnd(w, N(fadv_invalid))] :
		    fadv_valid[rnd(w, N(fadv_valid))];
	if (rnd(w, 8) == 0) {
		check_fadvise(-1, 0, 0, adv, rnd(w, 2));
		return;
	}
	file_path(path, sizeof(path), 1 + (enum kind)rnd(w, NR_KINDS - 1),
		  (unsigned)rnd(w, NR_FILES));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		fail("open %s: %s", path, strerror(errno));
		return;
	}
	check_fadvise(fd, (off_t)(rnd(w, 16) * PAGE), (off_t)(rnd(w, 16) * PAGE),
		      adv, rnd(w, 2));
	close(fd);
}

/* The flag every page of a single VMA shares, or F_UNKNOWN. */
static int common_flag(const struct slot *s)
{
	int f = s->flag[0];

	for (size_t i = 1; i < s->npages; i++)
		if (s->flag[i] != f)
			return F_UNKNOWN;
	return f;
}

static void do_remap(struct worker *w)
{
	struct slot *s = live_slot(w), *old_keep = NULL;
	size_t np = 1 + rnd(w, MAX_PAGES);
	void *p, *target = NULL;
	int flags = 0, f, e;
	unsigned long how = rnd(w, 5);

	if (!s)
		return;
	w->last_op = "mremap";
	if (how == 1 || how == 2)
		flags = MREMAP_MAYMOVE;
	if (how == 3) {
		/* A reserved, aligned target the kernel unmaps for us. */
		target = mmap(NULL, np * PAGE, PROT_NONE,
			      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (target == MAP_FAILED)
			return;
		flags = MREMAP_MAYMOVE | MREMAP_FIXED;
	}
	if (how == 4) {
		np = s->npages;		/* DONTUNMAP needs old == new size */
		flags = MREMAP_MAYMOVE | MREMAP_DONTUNMAP;
		old_keep = free_slot(w);
		if (!old_keep)
			return;
	}
	errno = 4242;
	p = mremap((void *)s->addr, s->npages * PAGE, np * PAGE, flags, target);
	e = errno;
	atomic_fetch_add(&nr_calls[C_REMAP], 1);
	if (p == MAP_FAILED) {
		/* EFAULT: the old range crosses VMAs split by advice; ENOMEM:
		 * no room to grow in place; EINVAL: DONTUNMAP on a shared
		 * mapping on old kernels. */
		if (e != EFAULT && e != ENOMEM && e != EINVAL && e != EAGAIN)
			fail("mremap(how %lu): errno %d", how, e);
		if (target)
			munmap(target, np * PAGE);
		return;
	}
	if (e != 4242)
		fail("successful mremap changed errno to %d", e);
	f = common_flag(s);
	if (old_keep)
		*old_keep = *s;		/* still mapped, same flags */
	for (size_t i = 0; i < np; i++)
		s->flag[i] = i < s->npages ? s->flag[i] : (unsigned char)f;
	s->addr = (uintptr_t)p;
	s->npages = np;
}

static void do_unmap(struct worker *w)
{
	struct slot *s = live_slot(w), *t;
	size_t a, b;
	int r;

	if (!s)
		return;
	w->last_op = "munmap";
	a = rnd(w, s->npages);
	b = a + 1 + rnd(w, s->npages - a);
	if (rnd(w, 2)) {
		a = 0;
		b = s->npages;
	}
	errno = 4242;
	r = munmap((void *)(s->addr + a * PAGE), (b - a) * PAGE);
	atomic_fetch_add(&nr_calls[C_UNMAP], 1);
	if (r) {
		fail("munmap: %s", strerror(errno));
		return;
	}
	if (errno != 4242)
		fail("successful munmap changed errno to %d", errno);
	if (a == 0 && b == s->npages) {
		s->live = false;
	} else if (a == 0) {
		memmove(s->flag, s->flag + b, s->npages - b);
		s->addr += b * PAGE;
		s->npages -= b;
	} else if (b == s->npages) {
		s->npages = a;
	} else {
		/* A hole in the middle: the tail becomes a slot of its own. */
		t = free_slot(w);
		if (t) {
			*t = *s;
			memmove(t->flag, s->flag + b, s->npages - b);
			t->addr = s->addr + b * PAGE;
			t->npages = s->npages - b;
		} else {
			munmap((void *)(s->addr + b * PAGE), (s->npages - b) * PAGE);
		}
		s->npages = a;
	}
}

/* smaps: does the VMA containing @addr have rr / sr? -1: not mapped. */
struct vma {
	uintptr_t start, end;
	bool rr, sr;
};

/*
 * The VMAs of this process, from smaps, in anonymous memory that stays
 * mapped (no malloc: this also runs in forked children).  NULL on error.
 */
#define SMAPS_BUF	(64UL << 20)
#define SMAPS_VMAS	(1UL << 16)
static struct vma *read_smaps(size_t *nr)
{
	static char *buf;
	static struct vma *v;
	size_t n = 0, len = 0;
	struct smaps_cursor c;
	struct smaps_vma m;
	ssize_t got;
	int fd, r;

	if (!buf)
		buf = mmap(NULL, SMAPS_BUF, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (!v)
		v = mmap(NULL, SMAPS_VMAS * sizeof(*v), PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	fd = open("/proc/self/smaps", O_RDONLY | O_CLOEXEC);
	if (fd < 0 || buf == MAP_FAILED || v == MAP_FAILED) {
		fail("cannot read /proc/self/smaps");
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	while (len < SMAPS_BUF - 1 &&
	       (got = read(fd, buf + len, SMAPS_BUF - len - 1)) > 0)
		len += (size_t)got;
	close(fd);
	smaps_begin(&c, buf, len);
	while ((r = smaps_next(&c, &m)) == 1) {
		if (n == SMAPS_VMAS) {
			fail("more than %lu VMAs", SMAPS_VMAS);
			break;
		}
		v[n++] = (struct vma){ (uintptr_t)m.start, (uintptr_t)m.end,
				       smaps_has_flag(&m, "rr"),
				       smaps_has_flag(&m, "sr") };
	}
	if (r < 0)
		fail("/proc/self/smaps:%u: not smaps text", c.line);
	*nr = n;
	return v;
}

static const struct vma *find_vma(const struct vma *v, size_t n, uintptr_t a)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (v[mid].end <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && v[lo].start <= a ? &v[lo] : NULL;
}

/* Compare every live page of @w's mappings with the kernel's view. */
static void verify_worker(const struct worker *w, const struct vma *v, size_t n)
{
	static const char *const fname[] = { "none", "rr", "sr", "?" };

	for (int i = 0; i < NR_SLOTS; i++) {
		const struct slot *s = &w->slots[i];

		if (!s->live)
			continue;
		for (size_t pg = 0; pg < s->npages; pg++) {
			uintptr_t a = s->addr + pg * PAGE;
			const struct vma *m = find_vma(v, n, a);
			int seen;

			if (!m) {
				fail("thread %d: page %#lx of a live mapping is not mapped",
				     w->id, (unsigned long)a);
				continue;
			}
			if (s->flag[pg] == F_UNKNOWN)
				continue;
			seen = m->rr ? F_RR : m->sr ? F_SR : F_NONE;
			atomic_fetch_add(&nr_calls[C_CHECKED], 1);
			if (seen != s->flag[pg])
				fail("thread %d: %s page %#lx: VmFlags say %s, the policy %s",
				     w->id, s->kind == K_ANON ? "anon" :
				     kind_dir[s->kind], (unsigned long)a,
				     fname[seen], fname[s->flag[pg]]);
		}
	}
}

static void worker_loop(struct worker *w, unsigned long max_iter);

/*
 * The child: the same work from its one thread, then check and exit.  No
 * malloc and no new threads here: the sanitizers' allocators (gcc 12) are
 * not fork-safe and would deadlock a child forked while another thread
 * held their lock; glibc's malloc is, and the shim must not need either.
 */
static void child_main(struct worker *parent)
{
	static struct worker cw;
	struct vma *v;
	size_t n = 0;

	in_child = true;
	memset(&cw, 0, sizeof(cw));
	cw.id = 1000;
	cw.seed = parent->seed * 31 + 1;
	worker_loop(&cw, 600);
	v = read_smaps(&n);
	if (v)
		verify_worker(&cw, v, n);
	_exit(atomic_load(&failures) ? 1 : 0);
}

/* Collect exited children; @wait_s > 0: wait that long, then kill. */
static void reap(int wait_s)
{
	pthread_mutex_lock(&child_lock);
	for (int i = 0; i < MAX_CHILDREN; i++) {
		int st, waited = 0;
		pid_t r;

		if (!children[i])
			continue;
		while ((r = waitpid(children[i], &st, WNOHANG)) == 0 &&
		       waited++ < wait_s * 10)
			usleep(100000);
		if (r == 0 && wait_s) {
			fprintf(stderr, "advshim-stress: WATCHDOG: child %d still "
				"alive %d s after the end (deadlock after fork?)\n",
				children[i], wait_s);
			kill(children[i], SIGKILL);
			_exit(3);
		}
		if (r == 0)
			continue;
		if (r < 0)
			fail("waitpid %d: %s", children[i], strerror(errno));
		else if (!WIFEXITED(st) || WEXITSTATUS(st))
			fail("child %d: %s %d", children[i],
			     WIFEXITED(st) ? "exit" : "signal",
			     WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
		children[i] = 0;
	}
	pthread_mutex_unlock(&child_lock);
}

static void do_fork(struct worker *w)
{
	int slot = -1;
	pid_t pid;

	reap(0);
	pthread_mutex_lock(&child_lock);
	for (int i = 0; i < MAX_CHILDREN; i++)
		if (!children[i])
			slot = i;
	if (slot < 0) {
		pthread_mutex_unlock(&child_lock);
		return;
	}
	w->last_op = "fork";
	pid = fork();
	if (pid == 0)
		child_main(w);		/* never returns */
	if (pid < 0)
		fail("fork: %s", strerror(errno));
	else {
		children[slot] = pid;
		child_start[slot] = time(NULL);
		atomic_fetch_add(&nr_calls[C_FORK], 1);
	}
	pthread_mutex_unlock(&child_lock);
}

static void worker_loop(struct worker *w, unsigned long max_iter)
{
	for (unsigned long it = 0; !atomic_load(&stop) && it < max_iter; it++) {
		unsigned long r = rnd(w, 100);

		if (r < 22)
			do_map(w);
		else if (r < 55)
			do_advise(w);
		else if (r < 65)
			do_fadvise(w);
		else if (r < 80)
			do_remap(w);
		else if (r < 98)
			do_unmap(w);
		else if (w->may_fork && !in_child && r == 99)
			do_fork(w);
		w->last_op = "between calls";
		atomic_fetch_add(&progress, 1);
	}
}

static void *worker_main(void *arg)
{
	worker_loop(arg, ULONG_MAX);
	return NULL;
}

static const char *const dl_names[] = {
	"madvise", "posix_madvise", "posix_fadvise", "posix_fadvise64",
	"mmap", "mmap64", "munmap", "mremap", "getpid", "open",
};
#define NR_SHIM_NAMES 8

/* Every intercepted name, through every kind of handle, all the time. */
static void *dlsym_main(void *arg)
{
	(void)arg;
	while (!atomic_load(&stop)) {
		for (size_t i = 0; i < N(dl_names); i++) {
			void *d = dlsym(RTLD_DEFAULT, dl_names[i]);
			void *h = dlsym(libc, dl_names[i]);
			void *n = dlsym(RTLD_NEXT, dl_names[i]);

			if (!d || !h || !n)
				fail("dlsym(%s): default %p libc %p next %p",
				     dl_names[i], d, h, n);
			/* The shim answers its names itself whatever the handle;
			 * others (getpid, open) may differ under a sanitizer
			 * runtime that interposes them. */
			else if (i < NR_SHIM_NAMES && d != h)
				fail("dlsym(%s): RTLD_DEFAULT %p but the libc handle %p",
				     dl_names[i], d, h);
			atomic_fetch_add(&nr_calls[C_DLSYM], 1);
		}
		atomic_fetch_add(&progress, 1);
	}
	return NULL;
}

static struct worker workers[MAX_THREADS];
static int nr_workers = 32;

/* Fails the run when nothing progresses (a deadlock) or a child hangs. */
static void *watchdog_main(void *arg)
{
	unsigned long last = 0;
	time_t last_change = time(NULL);

	(void)arg;
	while (!atomic_load(&stop)) {
		unsigned long p = atomic_load(&progress);
		time_t now = time(NULL);

		sleep(1);
		if (p != last) {
			last = p;
			last_change = now;
		} else if (now - last_change > WATCHDOG_S) {
			fprintf(stderr, "advshim-stress: WATCHDOG: no call completed "
				"for %d s (deadlock?); threads were in:\n", WATCHDOG_S);
			for (int i = 0; i < nr_workers; i++)
				fprintf(stderr, "  thread %d: %s\n", i,
					workers[i].last_op);
			_exit(3);
		}
		pthread_mutex_lock(&child_lock);
		for (int i = 0; i < MAX_CHILDREN; i++)
			if (children[i] && now - child_start[i] > WATCHDOG_S) {
				fprintf(stderr, "advshim-stress: WATCHDOG: child %d "
					"alive for %d s (deadlock after fork?)\n",
					children[i], WATCHDOG_S);
				kill(children[i], SIGKILL);
				_exit(3);
			}
		pthread_mutex_unlock(&child_lock);
	}
	return NULL;
}

static int make_files(void)
{
	static char page[PAGE];
	char path[PATH_MAX];

	for (int k = K_KEEP; k < NR_KINDS; k++) {
		snprintf(path, sizeof(path), "%s/%s", dir, kind_dir[k]);
		if (mkdir(path, 0755) && errno != EEXIST)
			return -1;
		for (unsigned int i = 0; i < NR_FILES; i++) {
			int fd;

			file_path(path, sizeof(path), (enum kind)k, i);
			fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
			if (fd < 0)
				return -1;
			memset(page, 'a' + (int)i, sizeof(page));
			for (int pg = 0; pg < FILE_PAGES; pg++)
				if (write(fd, page, sizeof(page)) != (ssize_t)sizeof(page)) {
					close(fd);
					return -1;
				}
			close(fd);
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	pthread_t dl, wd;
	struct vma *v;
	size_t n = 0;
	int seconds;

	if (argc < 3) {
		fprintf(stderr, "usage: advshim-stress DIR SECONDS [--threads N] "
			"[--shim|--no-shim]\n");
		return 2;
	}
	dir = argv[1];
	seconds = atoi(argv[2]);
	for (int i = 3; i < argc; i++) {
		if (!strcmp(argv[i], "--no-shim"))
			expect_shim = false;
		else if (!strcmp(argv[i], "--shim"))
			expect_shim = true;
		else if (!strcmp(argv[i], "--threads") && i + 1 < argc)
			nr_workers = atoi(argv[++i]);
	}
	if (nr_workers < 1 || nr_workers > MAX_THREADS || seconds < 1) {
		fprintf(stderr, "advshim-stress: bad arguments\n");
		return 2;
	}
	if (make_files()) {
		fprintf(stderr, "advshim-stress: creating files in %s: %s\n", dir,
			strerror(errno));
		return 2;
	}
	libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
	dl_madvise = (int (*)(void *, size_t, int))dlsym(libc, "madvise");
	dl_posix_madvise = (int (*)(void *, size_t, int))dlsym(libc, "posix_madvise");
	dl_posix_fadvise = (int (*)(int, off_t, off_t, int))dlsym(libc, "posix_fadvise");
	if (!libc || !dl_madvise || !dl_posix_madvise || !dl_posix_fadvise) {
		fprintf(stderr, "advshim-stress: dlopen/dlsym libc: %s\n", dlerror());
		return 2;
	}
	for (int i = 0; i < nr_workers; i++) {
		workers[i].id = i;
		workers[i].seed = 0x9e3779b97f4a7c15UL * (unsigned long)(i + 1) ^
				  (unsigned long)getpid();
		workers[i].may_fork = i < 2;
		workers[i].last_op = "starting";
		if (pthread_create(&workers[i].thread, NULL, worker_main, &workers[i])) {
			fprintf(stderr, "advshim-stress: pthread_create failed\n");
			return 2;
		}
	}
	if (pthread_create(&dl, NULL, dlsym_main, NULL) ||
	    pthread_create(&wd, NULL, watchdog_main, NULL)) {
		fprintf(stderr, "advshim-stress: pthread_create failed\n");
		return 2;
	}
	sleep((unsigned int)seconds);
	atomic_store(&stop, true);
	for (int i = 0; i < nr_workers; i++)
		pthread_join(workers[i].thread, NULL);
	pthread_join(dl, NULL);
	pthread_join(wd, NULL);
	reap(WATCHDOG_S);
	v = read_smaps(&n);
	if (v)
		for (int i = 0; i < nr_workers; i++)
			verify_worker(&workers[i], v, n);
	printf("advshim-stress: %d threads, %d s, %s:", nr_workers, seconds,
	       expect_shim ? "policy applied" : "no shim");
	for (size_t i = 0; i < N(call_name); i++)
		printf(" %s %lu%s", call_name[i], atomic_load(&nr_calls[i]),
		       i + 1 < N(call_name) ? "," : "\n");
	printf("advshim-stress: %d failed checks\n", atomic_load(&failures));
	return atomic_load(&failures) ? 1 : 0;
}
