/* SPDX-License-Identifier: MIT */
/*
 * watch_replay.h - the watcher over a recorded run: `advshim-watch
 * --replay DIR` and the replay tests.
 *
 * A recording is a directory with
 *   frames.txt  lru_gen_full as the kernel printed it, one frame a
 *               second: a line "@ N MONO_MS" (frame N, read at
 *               CLOCK_MONOTONIC MONO_MS) and then the text
 *               (tools/lab/guest/record.sh writes it in lab arms run
 *               with LAB_RECORD=1);
 *   arm.env     key=value words: kernel= (uname -r, for the write rules),
 *               memcg= (the path lru_gen prints), reader_mono_ms= (time
 *               0 of the run, on the frames' clock), and when the run had
 *               one, cold_start_ms= and cold_end_ms= (the cold read, ms
 *               from time 0).  Other keys are ignored.
 * Every frame is one tick of the real watcher (watch.h) through a struct
 * watch_io that serves the frame's text for both lru_gen and
 * lru_gen_full.  The replay is a dry run that logs every decision
 * (dry_run and log_decisions forced on): a burst is recorded, never
 * applied, so the frames after the first one are what the kernel did
 * without it (or with the recorded watcher's writes, when one ran), and
 * only the first burst of a recording answers "when would it age".
 * Single-threaded; nothing here locks.
 */
#ifndef ADVSHIM_WATCH_REPLAY_H
#define ADVSHIM_WATCH_REPLAY_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "tools/watch/watch_conf.h"
#include "tools/watch/wlog.h"

#define REPLAY_MAX_BURSTS 64

struct replay_case {
	char kernel[64];
	char memcg[256];
	uint64_t base_mono_ms;		/* time 0 on the frames' clock */
	bool has_cold;
	uint64_t cold_start_ms, cold_end_ms;	/* from time 0 */
};

struct replay_burst {
	uint64_t t_ms;			/* from time 0 */
	char cmd[320];
};

struct replay_result {
	unsigned int frames;		/* ticks played */
	unsigned int nr_bursts;		/* would_age events (all counted) */
	struct replay_burst bursts[REPLAY_MAX_BURSTS];	/* the first ones */
};

/*
 * replay_case_parse - arm.env's text (@len bytes, named @name in errors)
 * into @c.  0, or -1 with "NAME: no memcg=" (or the bad key) in @why.
 */
int replay_case_parse(const char *buf, size_t len, const char *name,
		      struct replay_case *c, char *why, size_t size);

/*
 * replay_dir - play recording @dir (its arm.env and frames.txt) through a
 * watcher with the settings @conf (copied; dry_run and log_decisions
 * forced on, cgroups set to the recording's memcg when @conf names
 * none), logging to @log (may be NULL), into @c and @res.  0, or -1 with
 * the reason (a missing or unreadable file, a bad header line "PATH:LINE:
 * ...") in @why and nothing played.
 */
int replay_dir(const char *dir, const struct watch_conf *conf,
	       struct wlog *log, struct replay_case *c,
	       struct replay_result *res, char *why, size_t size);

/*
 * replay_summary - one paragraph on @f: frames played, the cold read, the
 * bursts with their times from the cold read's end.
 */
void replay_summary(const struct replay_case *c,
		    const struct replay_result *res, FILE *f);

#endif /* ADVSHIM_WATCH_REPLAY_H */
