// SPDX-License-Identifier: MIT
/*
 * sample.c - the samplers of one arm, once per interval: the throughput
 * workload's rows, the cold reader's events, memory.stat rates, bytes read
 * from storage, file residency, the memcg's lru_gen generations and VmFlags
 * rr of the workloads' mappings.  Kernel text goes through common/.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/iostat.h"
#include "common/readfile.h"
#include "common/smaps.h"
#include "tools/ab/arm.h"
#include "tools/ab/outparse.h"

/*
 * Rows of the throughput workload since the last sample, averaged over
 * their own intervals (weighted by length).  advshim-load should report
 * several times per sample (the default experiment: every 250 ms), so a
 * sample never falls between two rows.
 */
static void read_throughput(struct arm_ctx *c, struct sample *s)
{
	struct wl_run *r = &c->wl[c->e->throughput_wl];
	double reads = 0, qps = 0, span = 0;
	struct load_row row;
	char line[1024];

	while (tail_line(&r->tail, line, sizeof(line))) {
		double dt;

		if (!parse_load_row(line, &row))
			continue;
		dt = row.elapsed_ms > c->thr_elapsed ?
			(double)(row.elapsed_ms - c->thr_elapsed) : 1;
		c->thr_elapsed = row.elapsed_ms;
		reads += row.reads_s * dt;
		qps += row.qps * dt;
		span += dt;
		if (isnan(s->p99_us) || row.p99_us > s->p99_us)
			s->p99_us = row.p99_us;
	}
	if (span > 0) {
		s->reads_s = reads / span;
		s->qps = qps / span;
	}
}

void sample_events(struct arm_ctx *c)
{
	struct wl_run *r;
	char line[1024];
	unsigned int loop;
	uint64_t ms;
	bool end;

	if (c->e->event_wl < 0)
		return;
	r = &c->wl[c->e->event_wl];
	if (!r->pid)
		return;
	while (tail_line(&r->tail, line, sizeof(line))) {
		if (!parse_stream_event(line, &end, &loop, &ms))
			continue;
		if (!end && !c->ev_first_start)
			c->ev_first_start = ms;
		if (end)
			c->ev_last_end = ms;
	}
}

static double rate(uint64_t now, uint64_t prev, double dt)
{
	return now >= prev ? (double)(now - prev) / dt : NAN;
}

/* memory.stat of the arm's memcg; 0, or -1 if unreadable or not parsed. */
static int memcg_stat(struct arm_ctx *c, struct memstat *m)
{
	char *buf = memcg_read(&c->mc, "memory.stat");
	int ret;

	if (!buf)
		return -1;
	ret = memstat_parse(buf, strlen(buf), m);
	free(buf);
	return ret;
}

static void read_memstat(struct arm_ctx *c, struct sample *s, double dt)
{
	struct memstat m;

	if (memcg_stat(c, &m))
		return;
	if (m.has_pgmajfault)
		s->majflt_s = rate(m.pgmajfault, c->ms_prev.pgmajfault, dt);
	if (m.has_refault)
		s->refault_s = rate(m.refault_file, c->ms_prev.refault_file, dt);
	if (m.has_activate)
		s->activ_s = rate(m.activate_file, c->ms_prev.activate_file, dt);
	c->ms_prev = m;
}

/* rbytes of the memcg's io.stat (cgroup v2), or 0 when unknown. */
static uint64_t io_stat_rbytes(struct arm_ctx *c)
{
	uint64_t rbytes = 0;
	char *buf;

	if (!c->mc.has_io_stat || !(buf = memcg_read(&c->mc, "io.stat")))
		return 0;
	if (iostat_rbytes(buf, strlen(buf), &rbytes))
		rbytes = 0;
	free(buf);
	return rbytes;
}

/* The slot of @pid in c->pio, added if new; NULL when full. */
static struct pid_io *pio_slot(struct arm_ctx *c, pid_t pid)
{
	int j;

	for (j = 0; j < c->npio && c->pio[j].pid != pid; j++)
		;
	if (j == c->npio) {
		if (c->npio == MAX_PIDS)
			return NULL;
		c->pio[c->npio++].pid = pid;
	}
	return &c->pio[j];
}

/* Bytes read so far by the memcg's processes per /proc/PID/io. */
static uint64_t proc_io_total(struct arm_ctx *c)
{
	pid_t pids[MAX_PIDS];
	uint64_t sum = 0, v;
	char path[64], *buf;
	size_t len;
	int n = memcg_pids(&c->mc, pids, MAX_PIDS);

	for (int i = 0; i < n && i < MAX_PIDS; i++) {
		struct pid_io *slot;
		int bad;

		snprintf(path, sizeof(path), "%d/io", (int)pids[i]);
		if (read_file_at(c->o->proc, path, &buf, &len, 0))
			continue;
		bad = proc_io_read_bytes(buf, len, &v);
		free(buf);
		if (bad || !(slot = pio_slot(c, pids[i])))
			continue;
		if (v > slot->bytes)
			slot->bytes = v;
	}
	/* Exited processes keep their last value: the sum never drops. */
	for (int j = 0; j < c->npio; j++)
		sum += c->pio[j].bytes;
	return sum;
}

/*
 * MiB/s read from storage since the last sample: the memcg's io.stat on
 * cgroup v2 once it has counted anything (some devices or kernels leave
 * it empty), else the sum of /proc/PID/io read_bytes of its processes
 * (which misses what a process read between its last sample and exit).
 */
static double io_rate(struct arm_ctx *c, double dt)
{
	uint64_t stat = io_stat_rbytes(c), proc = proc_io_total(c), d;

	if (stat > c->io_stat0) {
		d = stat - (c->io_stat_prev > c->io_stat0 ? c->io_stat_prev : c->io_stat0);
		snprintf(c->res->io_source, sizeof(c->res->io_source), "io.stat");
	} else {
		d = proc >= c->io_prev ? proc - c->io_prev : 0;
	}
	c->io_stat_prev = stat;
	c->io_prev = proc;
	return (double)d / 1048576.0 / dt;
}

static void read_gens(struct arm_ctx *c, struct sample *s)
{
	const struct lrugen_memcg *m;
	struct lrugen_span span;
	struct lrugen_err err;
	size_t len;
	char *buf;

	if (read_file(c->o->lru_debug, &buf, &len, 0))
		return;
	if (!lrugen_parse(buf, len, &c->lru, &err) &&
	    (m = lrugen_find_path(&c->lru, c->mc.rel, NULL))) {
		lrugen_memcg_span(&c->lru, m, &span);
		s->min_seq = (long)span.min_seq;
		s->max_seq = (long)span.max_seq;
	}
	free(buf);
}

static void read_rr(struct arm_ctx *c, struct sample *s)
{
	int state[AB_MAX_FILES];
	char path[64], *buf;
	size_t len;

	for (size_t w = 0; w < c->e->nwl; w++) {
		struct wl_run *r = &c->wl[w];

		if (r->pid <= 0)
			continue;
		snprintf(path, sizeof(path), "%d/smaps", (int)r->pid);
		if (read_file_at(c->o->proc, path, &buf, &len, 0))
			continue;
		if (smaps_paths_flag(buf, len, (const char *const *)c->paths,
				     c->e->nfiles, "rr", state) > 0) {
			int rr = 0;

			for (size_t i = 0; i < c->e->nfiles; i++)
				rr |= state[i] == 1;
			r->rr_seen = r->rr_seen == 1 || rr;
			if ((int)w == c->e->throughput_wl)
				s->rr = rr;
		}
		free(buf);
	}
}

void sample_begin(struct arm_ctx *c)
{
	struct memstat m;

	if (!memcg_stat(c, &m))
		c->ms_prev = m;
	c->io_stat0 = c->io_stat_prev = io_stat_rbytes(c);
	c->io_prev = proc_io_total(c);
}

void sample_take(struct arm_ctx *c, struct sample *s, double t, double dt)
{
	sample_blank(s, t);
	read_throughput(c, s);
	sample_events(c);
	read_memstat(c, s, dt);
	s->read_mib_s = io_rate(c, dt);
	for (size_t i = 0; i < c->e->nfiles; i++) {
		int64_t b = resid_bytes(&c->resid[i], NULL);

		s->resid_mib[i] = b < 0 ? NAN : (double)b / 1048576.0;
	}
	read_gens(c, s);
	read_rr(c, s);
}

void sample_end(struct arm_ctx *c)
{
	lrugen_snap_free(&c->lru);
}
