// SPDX-License-Identifier: MIT
/*
 * test_watch_replay.c - the watcher replayed over kernel text recorded in
 * the lab, one frame a second: lru_gen, lru_gen_full and the memcg's
 * memory.stat as the guest read them (tests/fixtures/watch-replay/CASE,
 * README.md there).  Every tick of the real watcher (watch.h) reads frame
 * N through a struct watch_io; its writes are recorded, not applied, so
 * the frames after the first write are what the kernel did without it
 * and only the time of the first burst (and whether there is one) is
 * judged.  REPLAY_LOG=1 prints the watcher's decision log (JSON).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/readfile.h"
#include "tools/watch/kver.h"
#include "tools/watch/watch.h"
#include "tools/watch/watch_conf.h"
#include "tools/watch/wlog.h"

#define FIX "tests/fixtures/watch-replay/"
#define MAX_WRITES 8

struct replay {
	char dir[256];
	int frame;			/* the frame this tick reads */
	char *buf[3];			/* lru_gen, lru_gen_full, memory.stat */
	unsigned int writes;
	uint64_t write_ms[MAX_WRITES];	/* when each write came */
	char cmd[MAX_WRITES][320];	/* and what it said */
	uint64_t now_ms;
};

static int frame_file(struct replay *r, int which, const char *name,
		      const char **buf, size_t *len)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s.%d", r->dir, name, r->frame);
	free(r->buf[which]);
	r->buf[which] = NULL;
	if (read_file(path, &r->buf[which], len, 0))
		return -1;
	*buf = r->buf[which];
	return 0;
}

static int rp_lrugen(void *ctx, bool full, const char **buf, size_t *len)
{
	return frame_file(ctx, full, full ? "lru_gen_full" : "lru_gen", buf,
			  len);
}

static int rp_memstat(void *ctx, const char *path, const char **buf,
		      size_t *len)
{
	(void)path;
	return frame_file(ctx, 2, "memory.stat", buf, len);
}

static int rp_write(void *ctx, const char *cmd, size_t len)
{
	struct replay *r = ctx;

	if (r->writes < MAX_WRITES) {
		r->write_ms[r->writes] = r->now_ms;
		/* without the newline that ends the write */
		snprintf(r->cmd[r->writes], sizeof(r->cmd[0]), "%.*s",
			 (int)(len && cmd[len - 1] == '\n' ? len - 1 : len),
			 cmd);
	}
	r->writes++;
	return 0;
}

static int rp_enabled(void *ctx)
{
	(void)ctx;
	return 1;
}

static const char *rp_lockdown(void *ctx)
{
	(void)ctx;
	return NULL;
}

/*
 * A case's key=value file: the kernel, the memcg, the cold read's end,
 * and optionally a max_youngest_growth_pct the replay runs with.
 */
static void case_info(const char *dir, char *kernel, char *cgroup,
		      uint64_t *cold_end_ms, struct watch_conf *conf)
{
	char path[512], *buf, *p;

	snprintf(path, sizeof(path), "%s/case", dir);
	cr_assert_eq(read_file(path, &buf, NULL, 0), 0, "%s: %s", path,
		     strerror(errno));
	p = strstr(buf, "kernel=");
	cr_assert(p && sscanf(p, "kernel=%15s", kernel) == 1, "%s", path);
	p = strstr(buf, "cgroup=");
	cr_assert(p && sscanf(p, "cgroup=%255s", cgroup) == 1, "%s", path);
	p = strstr(buf, "cold_end_ms=");
	cr_assert(p && sscanf(p, "cold_end_ms=%lu", cold_end_ms) == 1, "%s",
		  path);
	p = strstr(buf, "max_youngest_growth_pct=");
	if (p)
		cr_assert_eq(sscanf(p, "max_youngest_growth_pct=%lf",
				    &conf->det.max_youngest_growth_pct), 1);
	free(buf);
}

/*
 * Plays case @name through a watcher with the default settings into @r:
 * its writes (times relative to the recording's start) and the cold
 * read's end in *cold_end_ms.  Returns the number of writes.
 */
static unsigned int replay(const char *name, struct replay *rp,
			   uint64_t *cold_end_ms)
{
	struct replay r = { .frame = 0 };
	char kernel[16], cgroup[256], path[512], *t;
	struct watch_conf conf;
	struct kver_rules rules;
	struct kver v;
	struct watch_io io = { rp_lrugen, rp_write, rp_memstat, rp_enabled,
			       rp_lockdown, &r };
	struct wlog log = { getenv("REPLAY_LOG") ? stdout : NULL, WLOG_JSON };
	struct watch *w;
	char *const cgs[] = { cgroup };
	int n, off = 0, used;
	unsigned long ms;

	snprintf(r.dir, sizeof(r.dir), FIX "%s", name);
	watch_conf_defaults(&conf);
	case_info(r.dir, kernel, cgroup, cold_end_ms, &conf);
	cr_assert_eq(kver_parse(kernel, &v), 0, "%s", kernel);
	kver_rules_for(&v, &rules);
	cr_assert_eq(watch_conf_set_cgroups(&conf, cgs, 1), 0);
	w = watch_new(&conf, &rules, false, &io, &log);
	cr_assert_not_null(w);
	snprintf(path, sizeof(path), "%s/t_ms", r.dir);
	cr_assert_eq(read_file(path, &t, NULL, 0), 0, "%s", path);
	while (sscanf(t + off, "%d %lu%n", &n, &ms, &used) == 2) {
		off += used;
		r.frame = n;
		r.now_ms = ms;
		watch_tick(w, ms);
	}
	free(t);
	watch_free(w);
	watch_conf_free(&conf);
	for (n = 0; n < 3; n++)
		free(r.buf[n]);
	*rp = r;
	return r.writes;
}

/*
 * 6.12 and 7.3, fio's cold job read through read(2) (psync, not the
 * report's mmap): its pages land in the oldest generation with the
 * working set's,
 * nothing sits above it, and no number of aging steps can put the cold
 * pages at the tail.  The watcher must never age here.
 */
static void never_ages(const char *name)
{
	struct replay r;
	uint64_t cold_end;

	cr_assert_eq(replay(name, &r, &cold_end), 0,
		     "%s: aged at %lu ms (cold read ended at %lu ms)", name,
		     (unsigned long)r.write_ms[0], (unsigned long)cold_end);
}

Test(replay, read_cold_never_ages)
{
	never_ages("6.12-fio-read-cold");
	never_ages("7.3-fio-read-cold");
}

/*
 * 6.12, the report's fio: 4 reader processes, the cold file read twice
 * through a normal mmap from 20 s (its second pass lands in max_seq).
 * The recorded watcher burst at 40013 ms, when its own read showed no
 * growth; the guest's frame 40 was read 150 ms into that burst and is
 * left out, and frame 39 still shows the last 98 pages of growth, so the
 * case replays with max_youngest_growth_pct 0.5 to burst at frame 39:
 * the frames after it are the kernel's answer to the same 4 steps.  The
 * burst comes at once, but
 * fio still mapped the cold file: the steps' aging walks promoted 1,801
 * of its pages into the generations the burst made last (frame 41:
 * 1,737 in seq 6, 64 in seq 7), 6% of the file pages, under
 * min_stuck_pct.  The recorded watcher ended its episode there
 * ("nothing stuck") and they stayed cached for the rest of the run (tail
 * 78%, recovery 18.0 s after the cold read; lru_gen off 4.9 s).  Once the
 * oldest generation has drained (frame 56) the leftover must be folded:
 * 3 steps from max_seq 7.  (The frames cannot show that burst's effect,
 * so the watcher, finding max_seq unmoved, retries; only the first two
 * writes are judged.)
 */
Test(replay, mmap_cold_612_folds_the_leftover_after_the_drain)
{
	struct replay r;
	uint64_t cold_end;
	unsigned int n = replay("6.12-fio-mmap-cold", &r, &cold_end);

	cr_assert_geq(n, 2, "%u writes: the leftover was never folded", n);
	cr_assert_str_eq(r.cmd[0], "+ 2 0 3;+ 2 0 4;+ 2 0 5;+ 2 0 6");
	cr_assert_leq(r.write_ms[0], cold_end, "first burst at %lu ms",
		      (unsigned long)r.write_ms[0]);
	cr_assert_str_eq(r.cmd[1], "+ 2 0 7;+ 2 0 8;+ 2 0 9");
	cr_assert(r.write_ms[1] >= 56000 && r.write_ms[1] <= 58000,
		  "second burst at %lu ms (drained at 56 s)",
		  (unsigned long)r.write_ms[1]);
}

/*
 * 7.3, the same fio: the cold file in max_seq - 2.  One burst of 2 steps
 * by the end of the cold read (the recorded arm: 38.2 s, recovered 2.7 s
 * after the cold read; lru_gen off 16.0 s), and nothing more: what the
 * burst left above the oldest generation is nothing.
 */
Test(replay, mmap_cold_73_one_burst_of_two)
{
	struct replay r;
	uint64_t cold_end;
	unsigned int n = replay("7.3-fio-mmap-cold", &r, &cold_end);

	cr_assert_eq(n, 1, "%u writes", n);
	cr_assert_str_eq(r.cmd[0], "+ 28 0 3;+ 28 0 4");
	cr_assert_leq(r.write_ms[0], cold_end + 1000, "burst at %lu ms",
		      (unsigned long)r.write_ms[0]);
}

/*
 * 7.3, the same fio, a run where the burst came 0.4 s before the end of
 * the cold read (39.0 s; the cold job still mapped its file): the two
 * steps' aging walks promoted 2,743 of its pages into seq 3, right above
 * the oldest generation, which held the working set (27,000 pages).  On
 * 7.x a RANDOM mapping's refaults land in the oldest generation, so it
 * never drains: the recorded watcher waited for the drain for the rest of
 * the run (file min_seq 2 from 39 s to 80 s, the oldest generation's file
 * pages between 26,149 and 27,172; the pages stayed cached, tail 15%).
 * Once the oldest generation has stopped shrinking (`persist` intervals
 * without it falling by 1% of the file pages) the leftover must be folded
 * as after a drain: 2 steps from max_seq 5.  The first write is the one
 * the recording made (the frames after it are the kernel's answer).
 */
Test(replay, mmap_cold_73_late_burst_folds_when_the_drain_stalls)
{
	struct replay r;
	uint64_t cold_end;
	unsigned int n = replay("7.3-fio-mmap-cold-late", &r, &cold_end);

	cr_assert_geq(n, 2, "%u writes: the leftover was never folded", n);
	cr_assert_str_eq(r.cmd[0], "+ 28 0 3;+ 28 0 4");
	cr_assert_leq(r.write_ms[0], cold_end, "first burst at %lu ms",
		      (unsigned long)r.write_ms[0]);
	cr_assert_str_eq(r.cmd[1], "+ 28 0 5;+ 28 0 6");
	cr_assert(r.write_ms[1] >= cold_end && r.write_ms[1] <= cold_end + 6000,
		  "second burst at %lu ms (cold read ended at %lu ms)",
		  (unsigned long)r.write_ms[1], (unsigned long)cold_end);
}
