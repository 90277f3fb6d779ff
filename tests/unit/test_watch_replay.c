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
#define MAX_FRAMES 256

struct replay {
	char dir[256];
	int frame;			/* the frame this tick reads */
	char *buf[3];			/* lru_gen, lru_gen_full, memory.stat */
	uint64_t first_write_ms;	/* 0: none */
	unsigned int writes;
	char first_cmd[320];
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

	if (!r->writes++) {
		r->first_write_ms = r->now_ms;
		snprintf(r->first_cmd, sizeof(r->first_cmd), "%.*s", (int)len,
			 cmd);
	}
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

/* A case's key=value file: the kernel, the memcg, the cold read's end. */
static void case_info(const char *dir, char *kernel, char *cgroup,
		      uint64_t *cold_end_ms)
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
	free(buf);
}

/*
 * Plays case @name through a watcher with the default settings; returns
 * the time of its first write (0: none) in *first_ms, relative to the
 * recording's start, and the cold read's end in *cold_end_ms.
 */
static unsigned int replay(const char *name, uint64_t *first_ms,
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
	case_info(r.dir, kernel, cgroup, cold_end_ms);
	cr_assert_eq(kver_parse(kernel, &v), 0, "%s", kernel);
	kver_rules_for(&v, &rules);
	watch_conf_defaults(&conf);
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
	*first_ms = r.first_write_ms;
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
	uint64_t first, cold_end;

	cr_assert_eq(replay(name, &first, &cold_end), 0,
		     "%s: aged at %lu ms (cold read ended at %lu ms)", name,
		     (unsigned long)first, (unsigned long)cold_end);
}

Test(replay, read_cold_never_ages)
{
	never_ages("6.12-fio-read-cold");
	never_ages("7.3-fio-read-cold");
}
