/* SPDX-License-Identifier: MIT */
/*
 * wlog.h - the watcher's decision log: one line per decision, as text for
 * people or as JSON for machines (advshim-ab counts events from it).
 *
 * JSON contract, one object per line, always with these keys (null when
 * they do not apply): "ts_ms" (ms since start), "event", "memcg", "id",
 * "node", "max_seq"; "cmd" for age/would_age/age_failed; "error"
 * (strerror text) for failures; optional "msg".  Events that carry a
 * detector verdict (decision, thrash, healthy) add "verdict" and the
 * inputs it was judged on, in pages: "file_min_seq", "oldest" (in it),
 * "file_pages", "above" (above it, less the protected), "exposed" (in the
 * youngest generation aging would move), "evicted" and "refaulted" (the
 * window's, from lru_gen_full's counters), "evicted_now" (this interval)
 * and "inflow" (growth above the oldest generation this interval).
 * Events: start decision thrash age would_age age_failed healthy idle
 * vanished error stop.
 *
 * One thread writes to a struct wlog at a time; nothing here locks or
 * allocates.  Logging is best effort: stdio errors are not reported.
 */
#ifndef ADVSHIM_WATCH_WLOG_H
#define ADVSHIM_WATCH_WLOG_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "tools/watch/detector.h"

enum wlog_format { WLOG_TEXT, WLOG_JSON };

struct wlog {
	FILE *f;
	enum wlog_format format;
};

struct wevent {
	const char *event;
	const char *memcg;	/* NULL: not about a memcg */
	bool has_id;
	uint64_t id;
	int node;		/* < 0: none */
	bool has_seq;
	unsigned long max_seq;
	const struct det_out *det;	/* NULL: no verdict */
	unsigned long file_min_seq;	/* with det */
	const char *cmd;
	const char *error;
	const char *msg;
};

/* wevent_init - an event named @event with every optional field unset. */
void wevent_init(struct wevent *ev, const char *event);

/*
 * wlog_emit - write @ev at @ts_ms as one line (text or JSON, as @log
 * says) and flush.  A NULL @log or log->f writes nothing.
 */
void wlog_emit(struct wlog *log, uint64_t ts_ms, const struct wevent *ev);

#endif /* ADVSHIM_WATCH_WLOG_H */
