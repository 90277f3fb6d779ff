// SPDX-License-Identifier: MIT
/*
 * test_watch_daemon.c - watch_tick() against an in-process fake kernel.
 *
 * The fake renders lru_gen in the kernel's format from a small model and
 * answers writes the way mm/vmscan.c does (unknown ID or node: EINVAL; on
 * 6.1-6.13 seq < max_seq is a silent no-op and seq > max_seq EINVAL; on
 * 6.14+ EEXIST when nothing aged), or with a forced errno.  It can also
 * change the world between the watcher's detection read and its re-read,
 * which is where ID reuse and removal races bite.  It keeps the marks
 * the watcher puts on memcgs for the shim (common/guard.h).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/guard.h"
#include "tools/watch/kver.h"
#include "tools/watch/watch.h"

#define MAXM 4

/*
 * One memcg of the fake, on node 0, with four generations max_seq - 3 ..
 * max_seq (so the file min_seq F is max_seq - 3 and every aging step moves
 * it, restarting F's counters as the kernel does).
 */
struct fmemcg {
	int alive;
	unsigned long long id;
	char path[64];
	unsigned long max_seq, age;
	int aging;		/* the kernel ages it by itself */
	unsigned long file[4];	/* file pages of F .. max_seq */
	unsigned long evicted, refaulted;	/* on F's row */
	unsigned long inflow;	/* pages added to max_seq per second */
	unsigned long promote;	/* pages each aging walk moves from F into
				 * the new youngest generation */
};

struct fake {
	struct fmemcg m[MAXM];
	int enabled;
	int seq_exact;		/* 6.1-6.13 write rules */
	int force_errno;	/* every write fails with this */
	int eexist_advance;	/* EEXIST after advancing (other walker) */
	int noop_writes;	/* accept writes but never age (1: valid ones,
				 * 2: every one) */
	int lockdown;		/* lru_gen unreadable + unwritable */
	int no_full;		/* lru_gen_full missing (ENOENT) */
	int garble_read;	/* lru_gen read number that is garbled */
	int mutate_read;	/* before this lru_gen read, run mutate */
	void (*mutate)(struct fake *);
	int reads;
	char writes[16][128];
	int nr_writes;
	char buf[8192];
	struct {
		char path[64];
		int on;		/* the mark is there */
		int puts, removes;
	} marks[MAXM];
	int guard_errno;	/* every mark fails with this */
	int mark_tries;		/* puts attempted */
};

/* The mark's record for @path (a new one when first seen). */
static int mark_of(struct fake *f, const char *path)
{
	int i;

	for (i = 0; i < MAXM && f->marks[i].path[0]; i++)
		if (!strcmp(f->marks[i].path, path))
			return i;
	cr_assert_lt(i, MAXM);
	snprintf(f->marks[i].path, sizeof(f->marks[i].path), "%s", path);
	return i;
}

/* Read even where writes fail (a read-only cgroupfs: no mark, EROFS). */
static int f_guard_there(void *ctx, const char *path)
{
	struct fake *f = ctx;

	return f->marks[mark_of(f, path)].on;
}

static int f_guard(void *ctx, const char *path, bool on)
{
	struct fake *f = ctx;
	int i = mark_of(f, path);

	f->mark_tries += on;
	if (on && f->guard_errno) {
		errno = f->guard_errno;
		return -1;
	}
	f->marks[i].on = on;
	if (on)
		f->marks[i].puts++;
	else
		f->marks[i].removes++;
	return 0;
}

/* A memcg whose whole working set is recycled through F. */
static struct fmemcg thrasher(unsigned long long id, const char *path,
			      unsigned long max_seq)
{
	struct fmemcg m = { 1, id, "", max_seq, 1000, 0,
			    { 10000, 2000, 2000, 10000 }, 0, 0, 0, 0 };

	snprintf(m.path, sizeof(m.path), "%s", path);
	return m;
}

static int render(struct fake *f, char *out, size_t size, bool full)
{
	size_t off = 0;
	int i;

	for (i = 0; i < MAXM; i++) {
		struct fmemcg *m = &f->m[i];
		unsigned long s, k;

		if (!m->alive)
			continue;
		off += (size_t)snprintf(out + off, size - off,
					f->seq_exact ? "memcg %5llu %s\n node %5d\n" :
					"memcg %llu %s\n node %5d\n", m->id, m->path, 0);
		for (s = m->max_seq - 3; s <= m->max_seq; s++) {
			k = s - (m->max_seq - 3);
			off += (size_t)snprintf(out + off, size - off,
						" %10lu %10lu %10lu  %10lu \n", s,
						m->age + (m->max_seq - s) * 1000, 5ul,
						m->file[k]);
			if (full)
				off += (size_t)snprintf(out + off, size - off,
					"            %10d %10lur %10lue %10lup %10lur %10lue %10lup\n",
					0, 0ul, 0ul, 0ul,
					k ? 0ul : m->refaulted,
					k ? 0ul : m->evicted, 0ul);
		}
	}
	return (int)off;
}

static int f_read(void *ctx, bool full, const char **buf, size_t *len)
{
	struct fake *f = ctx;

	f->reads++;
	if (f->mutate && f->reads == f->mutate_read)
		f->mutate(f);
	if (f->lockdown && !full) {
		errno = EPERM;
		return -1;
	}
	if (f->no_full && full) {
		errno = ENOENT;
		return -1;
	}
	if (f->reads == f->garble_read) {
		strcpy(f->buf, "memcg     5 /a\n node     0\n   zzz\n");
		*buf = f->buf;
		*len = strlen(f->buf);
		return 0;
	}
	*len = (size_t)render(f, f->buf, sizeof(f->buf), full);
	*buf = f->buf;
	return 0;
}

static struct fmemcg *by_id(struct fake *f, unsigned long long id)
{
	int i;

	for (i = 0; i < MAXM; i++)
		if (f->m[i].alive && f->m[i].id == id)
			return &f->m[i];
	return NULL;
}

/* One step of aging: F folds into F + 1, a new empty youngest. */
static void inc_max_seq(struct fmemcg *m)
{
	m->file[1] += m->file[0];
	memmove(m->file, m->file + 1, 3 * sizeof(m->file[0]));
	m->file[3] = m->file[0] < m->promote ? m->file[0] : m->promote;
	m->file[0] -= m->file[3];
	m->max_seq++;
	m->age = 0;
	m->evicted = 0;
	m->refaulted = 0;
}

/* One command, as run_aging() on the fake's kernel version. */
static int f_one(struct fake *f, const char *cmd)
{
	unsigned long long id;
	unsigned long seq;
	struct fmemcg *m;
	int nid;

	if (sscanf(cmd, "+ %llu %d %lu", &id, &nid, &seq) != 3) {
		errno = EINVAL;
		return -1;
	}
	m = by_id(f, id);
	if (f->force_errno == EEXIST && f->eexist_advance && m)
		inc_max_seq(m);
	if (f->force_errno) {
		errno = f->force_errno;
		return -1;
	}
	if (f->noop_writes == 2)
		return 0;
	if (!m || nid != 0 || seq > m->max_seq) {
		errno = EINVAL;
		return -1;
	}
	if (f->noop_writes || (f->seq_exact && seq < m->max_seq))
		return 0;
	inc_max_seq(m);
	return 0;
}

/* One write(2): commands split on ",;" and run until the first error. */
static int f_write(void *ctx, const char *cmd, size_t len)
{
	struct fake *f = ctx;
	char buf[256], *c, *save;

	cr_assert_eq(cmd[len - 1], '\n');
	cr_assert_lt(f->nr_writes, 16);
	cr_assert_lt(len, sizeof(buf));
	snprintf(f->writes[f->nr_writes++], sizeof(f->writes[0]), "%.*s",
		 (int)len - 1, cmd);
	if (f->lockdown) {
		errno = EPERM;
		return -1;
	}
	snprintf(buf, sizeof(buf), "%.*s", (int)len - 1, cmd);
	for (c = strtok_r(buf, ",;", &save); c; c = strtok_r(NULL, ",;", &save))
		if (f_one(f, c))
			return -1;
	return 0;
}

static int f_enabled(void *ctx)
{
	return ((struct fake *)ctx)->enabled;
}

static const char *f_lockdown(void *ctx)
{
	return ((struct fake *)ctx)->lockdown ? "integrity" : NULL;
}

/*
 * One second of the world.  A memcg the kernel ages itself moves max_seq
 * every second and what it evicts rarely comes back; any other memcg
 * evicts twice F's pages a second and 90% of them refault (its working
 * set recycles through F), while a reader may add pages at the top.
 */
static void advance(struct fake *f)
{
	int i;

	for (i = 0; i < MAXM; i++) {
		struct fmemcg *m = &f->m[i];

		if (!m->alive)
			continue;
		if (m->aging) {
			inc_max_seq(m);
			m->age = 10;
			m->evicted += 50000;
			m->refaulted += 5000;
		} else {
			m->age += 1000;
			m->evicted += 20000;
			m->refaulted += 18000;
			m->file[3] += m->inflow;
		}
	}
}

struct rig {
	struct fake f;
	struct watch *w;
	struct wlog log;
	char *logbuf;
	size_t loglen;
	uint64_t now;
};

/* A rig on @kernel; cgroup v1 when @v1; @interval_ms 0: the default. */
static void rig_init_ex(struct rig *r, const char *kernel, bool dry, bool v1,
			unsigned int interval_ms)
{
	struct watch_io io = { .read_lrugen = f_read, .write_cmd = f_write,
			       .read_enabled = f_enabled,
			       .lockdown = f_lockdown, .ctx = &r->f,
			       .guard = f_guard, .guard_there = f_guard_there };
	struct watch_conf c;
	struct kver_rules rules;
	struct kver v;

	memset(r, 0, sizeof(*r));
	cr_assert_eq(kver_parse(kernel, &v), 0);
	kver_rules_for(&v, &rules);
	r->f.enabled = 1;
	r->f.seq_exact = rules.seq_exact;
	r->f.m[0] = thrasher(5, "/a", 7);
	/* the root memcg is always there, and busy but healthy */
	r->f.m[3] = thrasher(1, "/", 40);
	r->f.m[3].aging = 1;
	watch_conf_defaults(&c);
	c.dry_run = dry;
	if (interval_ms)
		c.interval_ms = interval_ms;
	r->log.f = open_memstream(&r->logbuf, &r->loglen);
	r->log.format = WLOG_JSON;
	r->w = watch_new(&c, &rules, v1, &io, &r->log);
	cr_assert_not_null(r->w);
}

static void rig_init(struct rig *r, const char *kernel, bool dry)
{
	rig_init_ex(r, kernel, dry, false, 0);
}

static void rig_ticks(struct rig *r, int n)
{
	while (n--) {
		watch_tick(r->w, r->now);
		r->now += 1000;
		advance(&r->f);
	}
	fflush(r->log.f);
}

static void rig_fini(struct rig *r)
{
	watch_free(r->w);
	fclose(r->log.f);
	free(r->logbuf);
}

static const struct watch_counts *counts(struct rig *r)
{
	return watch_counts(r->w);
}

#define BURST7 "+ 5 0 7;+ 5 0 8;+ 5 0 9;+ 5 0 10"
#define BURST11 "+ 5 0 11;+ 5 0 12;+ 5 0 13;+ 5 0 14"

/*
 * /a evicts F round with 90% refaults and its youngest generation holds
 * the most pages above F: on the second look (the first has nothing to
 * compare the growth above F with) the detector asks for the burst that
 * folds the youngest generation into F, four commands in one write.
 */
Test(daemon, thrash_is_aged_with_the_exact_command_and_verified)
{
	struct rig r;

	rig_init(&r, "6.12", false);
	r.f.m[0].promote = 2000;
	rig_ticks(&r, 2);
	cr_assert_eq(r.f.nr_writes, 1, "%s", r.logbuf);
	cr_assert_str_eq(r.f.writes[0], BURST7);
	cr_assert_eq(counts(&r)->age, 1);
	cr_assert(strstr(r.logbuf, "\"event\":\"age\",\"memcg\":\"/a\",\"id\":5,"
			 "\"node\":0,\"max_seq\":11"), "%s", r.logbuf);
	cr_assert(strstr(r.logbuf, "\"cmd\":\"" BURST7 "\""));
	cr_assert(strstr(r.logbuf, "max_seq 7 -> 11"), "%s", r.logbuf);
	cr_assert(strstr(r.logbuf, "\"verdict\":\"age\""), "%s", r.logbuf);
	/*
	 * The fake keeps thrashing and its aging walks put pages above F
	 * again: F moved, so its counters start again, and the new F is
	 * judged over one more interval before the next burst; then the cap
	 * (16 steps a minute: four bursts) stops it.
	 */
	rig_ticks(&r, 1);
	cr_assert_eq(r.f.nr_writes, 1, "%s", r.logbuf);
	rig_ticks(&r, 1);
	cr_assert_eq(r.f.nr_writes, 2, "%s", r.logbuf);
	cr_assert_str_eq(r.f.writes[1], BURST11);
	rig_ticks(&r, 20);
	cr_assert_eq(r.f.nr_writes, 4, "%s", r.logbuf);
	cr_assert(strstr(r.logbuf, "\"verdict\":\"rate_limited\""), "%s",
		  r.logbuf);
	rig_ticks(&r, 36);
	cr_assert_eq(r.f.nr_writes, 4, "%s", r.logbuf);
	rig_ticks(&r, 2);
	cr_assert_eq(r.f.nr_writes, 5, "a minute after the first: %s",
		     r.logbuf);
	rig_fini(&r);
}

/*
 * The exposed pages in F + 2: three steps fold them into F.  (On 6.12 with
 * four generations F + 1 holds the working set's refaults and is never
 * exposed: the detector's tests.)
 */
Test(daemon, burst_folds_up_to_the_exposed_generation)
{
	struct rig r;

	rig_init(&r, "6.12", false);
	r.f.m[0].file[1] = 0;
	r.f.m[0].file[2] = 8000;
	r.f.m[0].file[3] = 0;
	rig_ticks(&r, 2);
	cr_assert_eq(r.f.nr_writes, 1, "%s", r.logbuf);
	cr_assert_str_eq(r.f.writes[0], "+ 5 0 7;+ 5 0 8;+ 5 0 9");
	rig_fini(&r);
}

/* Every page in F: a working set that does not fit; aging cannot help. */
Test(daemon, nothing_exposed_is_thrash_without_a_write)
{
	struct rig r;

	rig_init(&r, "6.12", false);
	r.f.m[0].file[0] = 24000;
	r.f.m[0].file[1] = r.f.m[0].file[2] = r.f.m[0].file[3] = 100;
	rig_ticks(&r, 10);
	cr_assert_eq(r.f.nr_writes, 0, "%s", r.logbuf);
	cr_assert_geq(counts(&r)->thrash, 1);
	cr_assert(strstr(r.logbuf, "\"verdict\":\"nothing_exposed\""), "%s",
		  r.logbuf);
	rig_fini(&r);
}

/* A reader still adding pages above F: wait until it stops. */
Test(daemon, inflow_waits_for_the_reader_to_stop)
{
	struct rig r;

	rig_init(&r, "6.12", false);
	r.f.m[0].inflow = 5000;		/* 25% of each second's evictions */
	rig_ticks(&r, 6);
	cr_assert_eq(r.f.nr_writes, 0, "%s", r.logbuf);
	cr_assert(strstr(r.logbuf, "\"verdict\":\"inflow\""), "%s", r.logbuf);
	r.f.m[0].inflow = 0;
	rig_ticks(&r, 2);
	cr_assert_eq(r.f.nr_writes, 1, "%s", r.logbuf);
	rig_fini(&r);
}

Test(daemon, healthy_busy_memcg_gets_no_write)
{
	struct rig r;

	rig_init(&r, "6.12", false);
	r.f.m[0].aging = 1;
	rig_ticks(&r, 12);
	cr_assert_eq(r.f.nr_writes, 0);
	cr_assert_eq(counts(&r)->thrash, 0);
	rig_fini(&r);
}

/* With log_decisions every lruvec's verdict is logged at every tick. */
Test(daemon, log_decisions_logs_every_verdict)
{
	struct rig r;
	struct watch_conf c;

	rig_init(&r, "6.12", true);
	watch_conf_defaults(&c);
	c.dry_run = true;
	c.log_decisions = true;
	cr_assert_eq(watch_set_conf(r.w, &c), 0);
	r.f.m[0].aging = 1;
	rig_ticks(&r, 3);
	cr_assert(strstr(r.logbuf, "\"event\":\"decision\",\"memcg\":\"/a\""),
		  "%s", r.logbuf);
	cr_assert(strstr(r.logbuf, "\"verdict\":\"healthy\""), "%s",
		  r.logbuf);
	cr_assert(strstr(r.logbuf, "\"evicted\":50000,\"refaulted\":5000"),
		  "%s", r.logbuf);
	rig_fini(&r);
}

Test(daemon, disabled_lru_gen_idles)
{
	struct rig r;

	rig_init(&r, "6.12", false);
	r.f.enabled = 0;
	cr_assert_eq(watch_tick(r.w, 0), 1);
	rig_ticks(&r, 8);
	cr_assert_eq(r.f.nr_writes, 0);
	cr_assert_eq(counts(&r)->idle, 1, "one idle line, not one per poll");
	cr_assert_eq(r.f.reads, 0, "nothing read while disabled");
	rig_fini(&r);
}

static void reuse_id(struct fake *f)
{
	/* /a dies; a new cgroup /b gets its private 16-bit ID */
	f->m[0].alive = 0;
	f->m[1] = thrasher(5, "/b", 3);
}

Test(daemon, reused_id_is_never_written)
{
	struct rig r;

	rig_init(&r, "6.12", false);
	r.f.mutate = reuse_id;
	r.f.mutate_read = 4;	/* the re-read right before the first write */
	rig_ticks(&r, 2);
	cr_assert_eq(r.f.nr_writes, 0, "%s", r.logbuf);
	cr_assert_geq(counts(&r)->vanished, 1);
	/* /b thrashes on its own later: it is aged under its own path */
	rig_ticks(&r, 2);
	cr_assert_geq(r.f.nr_writes, 1, "%s", r.logbuf);
	cr_assert_str_eq(r.f.writes[0], "+ 5 0 3;+ 5 0 4;+ 5 0 5;+ 5 0 6");
	cr_assert(strstr(r.logbuf, "\"event\":\"age\",\"memcg\":\"/b\""));
	rig_fini(&r);
}

static void recreate_same_path(struct fake *f)
{
	f->m[0].id = 9;		/* same path, new memcg */
	f->m[0].max_seq = 3;
}

Test(daemon, recreated_path_is_not_written_in_the_same_interval)
{
	struct rig r;

	rig_init(&r, "6.12", false);
	r.f.mutate = recreate_same_path;
	r.f.mutate_read = 4;
	rig_ticks(&r, 2);
	cr_assert_eq(r.f.nr_writes, 0);
	cr_assert(strstr(r.logbuf, "recreated"), "%s", r.logbuf);
	rig_fini(&r);
}

static void remove_a(struct fake *f)
{
	f->m[0].alive = 0;
}

Test(daemon, memcg_removed_mid_run)
{
	struct rig r;

	rig_init(&r, "6.12", false);
	r.f.mutate = remove_a;
	r.f.mutate_read = 3;
	rig_ticks(&r, 8);
	cr_assert_eq(r.f.nr_writes, 0);
	cr_assert_eq(counts(&r)->vanished, 1, "%s", r.logbuf);
	rig_fini(&r);
}

Test(daemon, errno_einval)
{
	struct rig r;

	rig_init(&r, "6.12", false);
	r.f.force_errno = EINVAL;
	rig_ticks(&r, 5);
	cr_assert_geq(counts(&r)->age_failed, 1);
	cr_assert_eq(counts(&r)->age, 0);
	cr_assert(strstr(r.logbuf, "\"error\":\"Invalid argument\""));
	rig_fini(&r);
}

Test(daemon, errno_erange_retries_with_explicit_force_scan)
{
	struct rig r;
	int i;

	rig_init(&r, "6.12", false);
	r.f.force_errno = ERANGE;
	rig_ticks(&r, 6);
	cr_assert_geq(r.f.nr_writes, 2);
	cr_assert_str_eq(r.f.writes[0], BURST7);
	for (i = 1; i < r.f.nr_writes; i++)
		cr_assert_str_eq(r.f.writes[i], "+ 5 0 7 1 1;+ 5 0 8 1 1;"
				 "+ 5 0 9 1 1;+ 5 0 10 1 1");
	rig_fini(&r);
}

Test(daemon, errno_eexist_after_another_walker)
{
	struct rig r;

	rig_init(&r, "6.14", false);
	r.f.force_errno = EEXIST;
	r.f.eexist_advance = 1;
	rig_ticks(&r, 5);
	cr_assert_geq(counts(&r)->age_failed, 1);
	cr_assert(strstr(r.logbuf, "another walker aged it"), "%s", r.logbuf);
	rig_fini(&r);
	rig_init(&r, "6.14", false);
	r.f.force_errno = EEXIST;
	rig_ticks(&r, 5);
	cr_assert(strstr(r.logbuf, "nothing aged"), "%s", r.logbuf);
	rig_fini(&r);
}

Test(daemon, errno_eperm_stops_writing)
{
	struct rig r;

	rig_init(&r, "6.12", false);
	r.f.force_errno = EPERM;
	rig_ticks(&r, 12);
	cr_assert_eq(r.f.nr_writes, 1, "one refused write, then none");
	cr_assert(strstr(r.logbuf, "lockdown"), "%s", r.logbuf);
	rig_fini(&r);
}

Test(daemon, lockdown_read_falls_back_to_lru_gen_full)
{
	struct rig r;

	rig_init(&r, "6.12", false);
	r.f.lockdown = 1;
	rig_ticks(&r, 6);
	cr_assert_eq(r.f.nr_writes, 0);
	cr_assert_geq(counts(&r)->thrash, 1, "still detects through _full");
	cr_assert(strstr(r.logbuf, "(integrity)"), "%s", r.logbuf);
	rig_fini(&r);
}

Test(daemon, garbled_reread_means_no_write)
{
	struct rig r;

	rig_init(&r, "6.12", false);
	r.f.garble_read = 4;
	rig_ticks(&r, 2);
	cr_assert_eq(r.f.nr_writes, 0);
	cr_assert(strstr(r.logbuf, "garbled at line 3"), "%s", r.logbuf);
	rig_fini(&r);
}

Test(daemon, accepted_write_without_advance_is_a_failure)
{
	struct rig r;

	/* every command accepted, max_seq stays (a walk that lost a race) */
	rig_init(&r, "6.12", false);
	r.f.noop_writes = 2;
	rig_ticks(&r, 3);
	cr_assert_geq(r.f.nr_writes, 1);
	cr_assert_eq(counts(&r)->age, 0);
	cr_assert(strstr(r.logbuf, "did not advance"), "%s", r.logbuf);
	rig_fini(&r);
	/* the first accepted: the next command's seq is too new, EINVAL */
	rig_init(&r, "6.12", false);
	r.f.noop_writes = 1;
	rig_ticks(&r, 3);
	cr_assert_geq(r.f.nr_writes, 1);
	cr_assert_eq(counts(&r)->age, 0);
	cr_assert(strstr(r.logbuf, "the kernel rejected the command"), "%s",
		  r.logbuf);
	rig_fini(&r);
}

Test(daemon, dry_run_logs_and_never_writes)
{
	struct rig r;

	rig_init(&r, "7.0", true);
	rig_ticks(&r, 10);
	cr_assert_eq(r.f.nr_writes, 0);
	cr_assert_geq(counts(&r)->would_age, 1);
	cr_assert(strstr(r.logbuf, "\"event\":\"would_age\""));
	cr_assert(strstr(r.logbuf, "\"cmd\":\"" BURST7 "\""));
	rig_fini(&r);
}

/*
 * The shim counts on a live watcher (docs/adaptive.md, "Guarded"): every
 * memcg it watches carries the mark, refreshed every GUARD_REFRESH_S
 * (10 ticks of 1 s here), and removed when it stops.
 */
Test(daemon, live_watcher_marks_the_memcgs_it_ages_and_refreshes)
{
	struct rig r;
	int a, root;

	rig_init(&r, "6.12", false);
	rig_ticks(&r, 1);
	a = mark_of(&r.f, "/a");
	root = mark_of(&r.f, "/");
	cr_assert(r.f.marks[a].on && r.f.marks[root].on, "%s", r.logbuf);
	rig_ticks(&r, 9);
	cr_assert_eq(r.f.marks[a].puts, 1, "not rewritten every tick");
	rig_ticks(&r, 1);
	cr_assert_eq(r.f.marks[a].puts, 2, "refreshed after 10 s");
	watch_free(r.w);
	r.w = NULL;
	cr_assert_not(r.f.marks[a].on, "removed at exit");
	cr_assert_not(r.f.marks[root].on);
	fclose(r.log.f);
	free(r.logbuf);
}

Test(daemon, no_mark_in_a_dry_run_or_when_it_cannot_age)
{
	struct rig r;
	int a;

	rig_init(&r, "6.12", true);
	rig_ticks(&r, 12);
	a = mark_of(&r.f, "/a");
	cr_assert_eq(r.f.marks[a].puts, 0, "a dry run ends no stall");
	rig_fini(&r);

	rig_init(&r, "6.12", false);
	rig_ticks(&r, 1);
	a = mark_of(&r.f, "/a");
	cr_assert(r.f.marks[a].on);
	r.f.enabled = 0;
	rig_ticks(&r, 1);
	cr_assert_not(r.f.marks[a].on, "lru_gen disabled: removed");
	r.f.enabled = 1;
	rig_ticks(&r, 1);
	cr_assert(r.f.marks[a].on, "enabled again: back");
	r.f.force_errno = EPERM;
	rig_ticks(&r, 12);
	cr_assert(strstr(r.logbuf, "lockdown"), "%s", r.logbuf);
	cr_assert_not(r.f.marks[a].on, "lockdown: removed");
	rig_fini(&r);
}

static int occurrences(const char *s, const char *what)
{
	int n = 0;

	while ((s = strstr(s, what))) {
		n++;
		s++;
	}
	return n;
}

/*
 * Nor where the watcher will never age: without lru_gen_full (its
 * detector has no counters), a non-root memcg of cgroup v1 on 7.0+ (no
 * ID to write), or polling too seldom to keep the mark fresh.
 */
Test(daemon, no_mark_where_it_would_never_age)
{
	struct rig r;

	rig_init(&r, "6.12", false);
	r.f.no_full = 1;
	rig_ticks(&r, 3);
	cr_assert_not(r.f.marks[mark_of(&r.f, "/a")].on);
	cr_assert(strstr(r.logbuf, "lru_gen_full is missing"), "%s", r.logbuf);
	rig_fini(&r);

	rig_init_ex(&r, "7.2", false, true, 0);
	rig_ticks(&r, 3);
	cr_assert_not(r.f.marks[mark_of(&r.f, "/a")].on, "v1 on 7.2: /a");
	cr_assert(r.f.marks[mark_of(&r.f, "/")].on, "the root can be aged");
	rig_fini(&r);

	rig_init_ex(&r, "6.12", false, false, GUARD_MAX_INTERVAL_MS + 1);
	rig_ticks(&r, 3);
	cr_assert_not(r.f.marks[mark_of(&r.f, "/a")].on);
	cr_assert_eq(occurrences(r.logbuf, "would go stale between polls"), 1,
		     "%s", r.logbuf);
	rig_fini(&r);
}

Test(daemon, a_vanished_memcg_loses_its_entry_and_failed_marks_are_logged_once)
{
	struct rig r;
	int a;

	rig_init(&r, "6.12", false);
	r.f.mutate = remove_a;
	r.f.mutate_read = 3;
	rig_ticks(&r, 4);
	a = mark_of(&r.f, "/a");
	cr_assert_eq(r.f.marks[a].removes, 1, "dropped when no longer seen");
	rig_fini(&r);

	rig_init(&r, "6.12", false);
	r.f.guard_errno = EOPNOTSUPP;
	rig_ticks(&r, 25);
	cr_assert_eq(occurrences(r.logbuf, "cannot mark the memcg"), 1,
		     "once, not for each memcg at every refresh: %s",
		     r.logbuf);
	rig_fini(&r);
}

/*
 * rmdir and mkdir of /a: a new directory without the mark, very likely
 * under the same memcg ID (the kernel hands out the lowest free one).
 */
static void recreate_a(struct fake *f)
{
	f->marks[mark_of(f, f->m[0].path)].on = 0;
}

Test(daemon, a_mark_gone_between_refreshes_is_put_again_at_the_next_poll)
{
	struct rig r;
	int a;

	rig_init(&r, "6.12", false);
	r.f.mutate = recreate_a;
	r.f.mutate_read = 3;
	rig_ticks(&r, 5);
	a = mark_of(&r.f, "/a");
	cr_assert(r.f.marks[a].on, "not 10 s without a mark: %s", r.logbuf);
	cr_assert_eq(r.f.marks[a].puts, 2);
	/* put at 0 s, gone and put again at 2 s: refreshed at 12 s */
	rig_ticks(&r, 6);
	cr_assert_eq(r.f.marks[a].puts, 2, "not rewritten while it is there");
	rig_ticks(&r, 1);
	cr_assert_eq(r.f.marks[a].puts, 3, "refreshed 10 s after the re-mark");
	rig_fini(&r);

	rig_init(&r, "6.12", false);
	r.f.guard_errno = EROFS;
	rig_ticks(&r, 9);
	cr_assert_eq(r.f.mark_tries, 2, "after a failed put, not every poll "
		     "(the memcgs / and /a, once each)");
	r.f.guard_errno = 0;
	rig_ticks(&r, 2);
	a = mark_of(&r.f, "/a");
	cr_assert_eq(r.f.marks[a].puts, 1, "put at the refresh after a failure");
	r.f.marks[a].on = 0;
	rig_ticks(&r, 1);
	cr_assert_eq(r.f.marks[a].puts, 2, "and watched for again once put");
	rig_fini(&r);
}

Test(daemon, metrics_text)
{
	struct rig r;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	rig_init(&r, "6.12", false);
	r.f.m[0] = thrasher(5, "/a \"q\"", 7);
	rig_ticks(&r, 6);
	f = open_memstream(&buf, &len);
	cr_assert_eq(watch_write_metrics(r.w, f), 0);
	fclose(f);
	cr_assert(strstr(buf, "advshim_watch_agings_total{memcg=\"/a \\\"q\\\"\","
			 "node=\"0\"} "), "%s", buf);
	cr_assert(strstr(buf, "advshim_watch_max_seq{"));
	cr_assert(strstr(buf, "advshim_watch_thrashing{"));
	free(buf);
	rig_fini(&r);
}
