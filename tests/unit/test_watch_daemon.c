// SPDX-License-Identifier: MIT
/*
 * test_watch_daemon.c - watch_tick() against an in-process fake kernel.
 *
 * The fake renders lru_gen in the kernel's format from a small model and
 * answers writes the way mm/vmscan.c does (unknown ID or node: EINVAL; on
 * 6.1-6.13 seq < max_seq is a silent no-op and seq > max_seq EINVAL; on
 * 6.14+ EEXIST when nothing aged), or with a forced errno.  It can also
 * change the world between the watcher's detection read and its re-read,
 * which is where ID reuse and removal races bite.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/watch/kver.h"
#include "tools/watch/watch.h"

#define MAXM 4

struct fmemcg {
	int alive;
	unsigned long long id;
	char path[64];
	unsigned long max_seq, age;
	unsigned long long refaults, activations;
	int aging;		/* the kernel ages it by itself */
};

/*
 * 6.6-6.13 count MADV_RANDOM refaults as activations (the lab's 6.12
 * shows activate/s == refault/s); 6.14+ and 6.1 leave them at ~0.
 */
static int activations_follow_refaults;

struct fake {
	struct fmemcg m[MAXM];
	int enabled;
	int seq_exact;		/* 6.1-6.13 write rules */
	int force_errno;	/* every write fails with this */
	int eexist_advance;	/* EEXIST after advancing (other walker) */
	int noop_writes;	/* accept writes but never age */
	int lockdown;		/* lru_gen unreadable + unwritable */
	int garble_read;	/* lru_gen read number that is garbled */
	int mutate_read;	/* before this lru_gen read, run mutate */
	void (*mutate)(struct fake *);
	int reads;
	char writes[16][128];
	int nr_writes;
	char buf[8192], statbuf[256];
};

static int render(struct fake *f, char *out, size_t size, bool full)
{
	size_t off = 0;
	int i;

	for (i = 0; i < MAXM; i++) {
		struct fmemcg *m = &f->m[i];
		unsigned long s;

		if (!m->alive)
			continue;
		off += (size_t)snprintf(out + off, size - off,
					f->seq_exact ? "memcg %5llu %s\n node %5d\n" :
					"memcg %llu %s\n node %5d\n", m->id, m->path, 0);
		for (s = m->max_seq - 3; s <= m->max_seq; s++) {
			off += (size_t)snprintf(out + off, size - off,
						" %10lu %10lu %10lu  %10lu \n", s,
						m->age + (m->max_seq - s) * 1000, 5ul,
						100ul);
			if (full)
				off += (size_t)snprintf(out + off, size - off,
					"            %10d %10lur %10lue %10lup %10lur %10lue %10lup\n",
					0, 0ul, 0ul, 0ul,
					s == m->max_seq - 3 ? (unsigned long)m->refaults : 0ul,
					s == m->max_seq - 3 ? (unsigned long)m->refaults + 10 : 0ul,
					0ul);
		}
	}
	return (int)off;
}

static int f_read(void *ctx, bool full, const char **buf, size_t *len)
{
	struct fake *f = ctx;

	if (!full) {
		f->reads++;
		if (f->mutate && f->reads == f->mutate_read)
			f->mutate(f);
		if (f->lockdown) {
			errno = EPERM;
			return -1;
		}
		if (f->reads == f->garble_read) {
			strcpy(f->buf, "memcg     5 /a\n node     0\n   zzz\n");
			*buf = f->buf;
			*len = strlen(f->buf);
			return 0;
		}
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
	if (f->force_errno == EEXIST && f->eexist_advance && m) {
		m->max_seq++;
		m->age = 0;
	}
	if (f->force_errno) {
		errno = f->force_errno;
		return -1;
	}
	if (!m || nid != 0 || seq > m->max_seq) {
		errno = EINVAL;
		return -1;
	}
	if (f->noop_writes || (f->seq_exact && seq < m->max_seq))
		return 0;
	m->max_seq++;
	m->age = 0;
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

static int f_memstat(void *ctx, const char *path, const char **buf,
		     size_t *len)
{
	struct fake *f = ctx;
	int i;

	for (i = 0; i < MAXM; i++) {
		if (!f->m[i].alive || strcmp(f->m[i].path, path))
			continue;
		*len = (size_t)snprintf(f->statbuf, sizeof(f->statbuf),
					"workingset_refault_file %llu\n"
					"workingset_activate_file %llu\n",
					f->m[i].refaults, f->m[i].activations);
		*buf = f->statbuf;
		return 0;
	}
	errno = ENOENT;
	return -1;
}

static int f_enabled(void *ctx)
{
	return ((struct fake *)ctx)->enabled;
}

static const char *f_lockdown(void *ctx)
{
	return ((struct fake *)ctx)->lockdown ? "integrity" : NULL;
}

/* One second of the world: thrashing memcgs refault, aging ones age. */
static void advance(struct fake *f)
{
	int i;

	for (i = 0; i < MAXM; i++) {
		struct fmemcg *m = &f->m[i];

		if (!m->alive)
			continue;
		if (m->aging) {
			m->max_seq++;
			m->age = 10;
			m->refaults += 50000;
			m->activations += 40000;
		} else {
			m->age += 1000;
			m->refaults += 20000;
			if (activations_follow_refaults)
				m->activations += 20000;
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

static void rig_init(struct rig *r, const char *kernel, bool dry)
{
	struct watch_io io = { f_read, f_write, f_memstat, f_enabled,
			       f_lockdown, &r->f };
	struct watch_conf c;
	struct kver_rules rules;
	struct kver v;

	memset(r, 0, sizeof(*r));
	cr_assert_eq(kver_parse(kernel, &v), 0);
	kver_rules_for(&v, &rules);
	r->f.enabled = 1;
	r->f.seq_exact = rules.seq_exact;
	activations_follow_refaults = !rules.activations_meaningful;
	r->f.m[0] = (struct fmemcg){ 1, 5, "/a", 7, 1000, 0, 0, 0 };
	/* the root memcg is always there, and busy but healthy */
	r->f.m[3] = (struct fmemcg){ 1, 1, "/", 40, 10, 0, 0, 1 };
	watch_conf_defaults(&c);
	c.dry_run = dry;
	r->log.f = open_memstream(&r->logbuf, &r->loglen);
	r->log.format = WLOG_JSON;
	r->w = watch_new(&c, &rules, false, &io, &r->log);
	cr_assert_not_null(r->w);
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

/*
 * The fake's youngest generation holds a quarter of the file pages: the
 * detector asks for the burst that folds it into the oldest generation,
 * four commands in one write.
 */
Test(daemon, thrash_is_aged_with_the_exact_command_and_verified)
{
	struct rig r;

	rig_init(&r, "6.12", false);
	rig_ticks(&r, 5);	/* prime, rate, 3 thrash -> age at tick 4 */
	cr_assert_eq(r.f.nr_writes, 1, "%s", r.logbuf);
	cr_assert_str_eq(r.f.writes[0], BURST7);
	cr_assert_eq(counts(&r)->age, 1);
	cr_assert(strstr(r.logbuf, "\"event\":\"age\",\"memcg\":\"/a\",\"id\":5,"
			 "\"node\":0,\"max_seq\":11"), "%s", r.logbuf);
	cr_assert(strstr(r.logbuf, "\"cmd\":\"" BURST7 "\""));
	cr_assert(strstr(r.logbuf, "max_seq 7 -> 11"), "%s", r.logbuf);
	/* then it waits for the oldest generation to drain: no more writes */
	rig_ticks(&r, 2);
	cr_assert_eq(r.f.nr_writes, 1, "%s", r.logbuf);
	cr_assert(strstr(r.logbuf, "\"msg\":\"draining\""), "%s", r.logbuf);
	/*
	 * The fake's oldest generation never shrinks (as on 7.x, where
	 * refaults land in it): after persist intervals the drain counts as
	 * stalled, and the pages still stuck are folded again.
	 */
	rig_ticks(&r, 1);
	cr_assert_eq(r.f.nr_writes, 2, "%s", r.logbuf);
	cr_assert(strstr(r.logbuf, "stopped draining"), "%s", r.logbuf);
	rig_fini(&r);
}

/* A daemon limited to one step per write gets the burst interval by
 * interval. */
Test(daemon, max_burst_1_steps_once_per_interval)
{
	struct rig r;
	struct watch_conf c;

	rig_init(&r, "6.12", false);
	watch_conf_defaults(&c);
	c.det.max_burst = 1;
	cr_assert_eq(watch_set_conf(r.w, &c), 0);
	rig_ticks(&r, 5);
	cr_assert_eq(r.f.nr_writes, 1, "%s", r.logbuf);
	cr_assert_str_eq(r.f.writes[0], "+ 5 0 7");
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
	f->m[1] = (struct fmemcg){ 1, 5, "/b", 3, 10, 0, 0, 0 };
}

Test(daemon, reused_id_is_never_written)
{
	struct rig r;

	rig_init(&r, "6.12", false);
	r.f.mutate = reuse_id;
	r.f.mutate_read = 5;	/* the re-read right before the first write */
	rig_ticks(&r, 6);
	cr_assert_eq(r.f.nr_writes, 0, "%s", r.logbuf);
	cr_assert_geq(counts(&r)->vanished, 1);
	/* /b thrashes on its own later: it is aged under its own path */
	rig_ticks(&r, 3);
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
	r.f.mutate_read = 5;
	rig_ticks(&r, 6);
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
	r.f.garble_read = 5;
	rig_ticks(&r, 4);
	cr_assert_eq(r.f.nr_writes, 0);
	cr_assert(strstr(r.logbuf, "garbled at line 3"), "%s", r.logbuf);
	rig_fini(&r);
}

Test(daemon, accepted_write_without_advance_is_a_failure)
{
	struct rig r;
	struct watch_conf c;

	/* one step: accepted, but max_seq stays (a walk that lost a race) */
	rig_init(&r, "6.12", false);
	watch_conf_defaults(&c);
	c.det.max_burst = 1;
	cr_assert_eq(watch_set_conf(r.w, &c), 0);
	r.f.noop_writes = 1;
	rig_ticks(&r, 6);
	cr_assert_geq(r.f.nr_writes, 1);
	cr_assert_eq(counts(&r)->age, 0);
	cr_assert(strstr(r.logbuf, "did not advance"), "%s", r.logbuf);
	rig_fini(&r);
	/* a burst: the next command's seq is then too new, EINVAL */
	rig_init(&r, "6.12", false);
	r.f.noop_writes = 1;
	rig_ticks(&r, 6);
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

Test(daemon, metrics_text)
{
	struct rig r;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	rig_init(&r, "6.12", false);
	r.f.m[0] = (struct fmemcg){ 1, 5, "/a \"q\"", 7, 1000, 0, 0, 0 };
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
