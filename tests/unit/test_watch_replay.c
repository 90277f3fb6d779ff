// SPDX-License-Identifier: MIT
/*
 * test_watch_replay.c - the watcher's decisions on runs recorded in the
 * lab (tests/fixtures/watch-replay/CASE, README.md there), played through
 * watch_replay.c exactly as `advshim-watch --replay CASE` plays them: the
 * real watcher with the default settings, one tick per frame, a dry run.
 * A stalled run must age within two intervals of the cold read's end
 * (and not while the cold read still brings its pages in); a run whose
 * cold read cannot be aged away (read(2): its pages land in the oldest
 * generation with the working set's) must never age.  REPLAY_LOG=1
 * prints every decision (JSON).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/watch/watch_conf.h"
#include "tools/watch/watch_replay.h"
#include "tools/watch/wlog.h"

#define FIX "tests/fixtures/watch-replay/"

static struct replay_result res;

static const struct replay_result *play(const char *name,
					struct replay_case *c)
{
	struct wlog log = { getenv("REPLAY_LOG") ? stdout : NULL, WLOG_JSON };
	struct watch_conf conf;
	char why[512];
	char dir[256];

	watch_conf_defaults(&conf);
	snprintf(dir, sizeof(dir), FIX "%s", name);
	cr_assert_eq(replay_dir(dir, &conf, &log, c, &res, why, sizeof(why)),
		     0, "%s", why);
	cr_assert_gt(res.frames, 30, "%s: %u frames", name, res.frames);
	cr_assert(c->has_cold, "%s: no cold read in arm.env", name);
	watch_conf_free(&conf);
	return &res;
}

static void never_ages(const char *name)
{
	struct replay_case c;
	const struct replay_result *r = play(name, &c);

	cr_assert_eq(r->nr_bursts, 0, "%s: aged at %llu ms (cold read ended "
		     "at %llu ms): %s", name,
		     (unsigned long long)r->bursts[0].t_ms,
		     (unsigned long long)c.cold_end_ms, r->bursts[0].cmd);
}

/* The first burst: after the cold read began, at most 2 s after its end. */
static const struct replay_burst *ages_at_the_end(const char *name)
{
	static struct replay_case c;
	const struct replay_result *r = play(name, &c);
	const struct replay_burst *b = &r->bursts[0];

	cr_assert_geq(r->nr_bursts, 1, "%s: never aged", name);
	cr_assert_gt(b->t_ms, c.cold_start_ms, "%s: aged at %llu ms, before "
		     "the cold read", name, (unsigned long long)b->t_ms);
	cr_assert_leq(b->t_ms, c.cold_end_ms + 2000, "%s: first burst at %llu "
		      "ms, cold read ended at %llu ms", name,
		      (unsigned long long)b->t_ms,
		      (unsigned long long)c.cold_end_ms);
	return b;
}

/*
 * fio's cold job through read(2) (psync): its pages land in the oldest
 * generation with the working set's, nothing sits above it to fold.
 */
Test(replay, read_cold_never_ages)
{
	never_ages("6.12-fio-read-cold");
	never_ages("7.3-fio-read-cold");
}

/* 6.12, the report's fio: the cold file's second pass in max_seq. */
Test(replay, mmap_cold_612)
{
	const struct replay_burst *b = ages_at_the_end("6.12-fio-mmap-cold");

	cr_assert_str_eq(b->cmd, "+ 2 0 3;+ 2 0 4;+ 2 0 5;+ 2 0 6");
}

/* 7.3: the cold file in max_seq - 2, two steps fold it into F. */
Test(replay, mmap_cold_73)
{
	const struct replay_burst *b = ages_at_the_end("7.3-fio-mmap-cold");

	cr_assert_str_eq(b->cmd, "+ 28 0 3;+ 28 0 4");
}

/*
 * 7.3, a run whose recorded watcher (the old rule) aged 0.4 s before the
 * cold read's end, while the cold job still faulted its pages in.
 */
Test(replay, mmap_cold_73_late)
{
	ages_at_the_end("7.3-fio-mmap-cold-late");
}

Test(replay, bad_recordings_are_refused)
{
	struct replay_case c;
	char why[256];

	cr_assert_eq(replay_case_parse("memcg=/a",
				       strlen("memcg=/a"), "x.env", &c, why,
				       sizeof(why)), -1);
	cr_assert_str_eq(why, "x.env: no kernel= (the recorded kernel's "
			 "release)");
	cr_assert_eq(replay_case_parse("kernel=6.12 memcg=a",
				       strlen("kernel=6.12 memcg=a"), "x.env", &c,
				       why, sizeof(why)), -1);
	cr_assert_eq(replay_case_parse("kernel=6.12 memcg=/a cold_end_ms=1x",
				       strlen("kernel=6.12 memcg=/a cold_end_ms=1x"), "x.env", &c, why, sizeof(why)), -1);
	cr_assert_eq(replay_case_parse("kernel=6.12\nmemcg=/a cold_start_ms=5 "
				       "cold_end_ms=9\n",
				       strlen("kernel=6.12\nmemcg=/a cold_start_ms=5 "
				       "cold_end_ms=9\n"), "x.env", &c, why,
				       sizeof(why)), 0, "%s", why);
	cr_assert(c.has_cold);
	cr_assert_eq(c.cold_end_ms, 9);
	cr_assert_str_eq(c.memcg, "/a");
}
