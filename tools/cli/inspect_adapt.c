// SPDX-License-Identifier: MIT
/*
 * inspect_adapt.c - the adaptive advice's part of `advshim inspect`: the
 * group's current choice, why (the numbers the last sample used), the
 * switches and when, and which files the choice applies to.  It reads the
 * `adapt` part of the shim's stats page (shim/stats_layout.h, version 2).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>

#include "common/clock.h"
#include "common/json.h"
#include "adapt/adapt.h"
#include "tools/cli/inspect.h"
#include "tools/cli/shimstats.h"

#define MIB	(1024.0 * 1024.0)

/* Seconds from @t_ms (the shim's CLOCK_MONOTONIC) to now. */
static double ago_s(uint64_t t_ms)
{
	uint64_t now = mono_ms();

	return now > t_ms ? (double)(now - t_ms) / 1000 : 0;
}

/* The verdict's figures as the shim's log line has them. */
static void describe(const struct advshim_stats_adapt *a, char *buf,
		     size_t size)
{
	struct adapt_verdict v = {
		.choice = (enum adapt_choice)a->choice,
		.reason = (enum adapt_reason)a->reason,
	};

#define TO_VERDICT(field) v.field = a->field;
	ADVSHIM_ADAPT_VERDICT_FIGURES(TO_VERDICT)
#undef TO_VERDICT
	adapt_describe(&v, buf, size);
}

/* The @i-th switch, oldest first. */
static const struct advshim_adapt_switch *history_at(
	const struct advshim_stats_adapt *a, uint32_t i)
{
	uint32_t n = a->nr_history, head = a->history_head;

	return &a->history[(head + ADVSHIM_ADAPT_HISTORY - n + i) %
			   ADVSHIM_ADAPT_HISTORY];
}

static const char *from_name(int32_t from)
{
	return from < 0 ? "start" : adapt_choice_name((enum adapt_choice)from);
}

static void print_memcg(const struct advshim_stats_adapt *a, FILE *f)
{
	fprintf(f, "    memcg");
	if (a->cg_version)
		fprintf(f, " v%d %s", a->cg_version, a->cgroup);
	else
		fprintf(f, " unknown");
	if (a->limit == UINT64_MAX)
		fprintf(f, ": no limit");
	else
		fprintf(f, ": limit %.1f MiB", (double)a->limit / MIB);
	fprintf(f, ", usage %.1f MiB, page cache %.1f MiB, MemAvailable "
		"%.1f MiB; normal <= %u%%, random >= %u%%\n",
		(double)a->usage / MIB, (double)a->file / MIB,
		(double)a->mem_avail / MIB, a->fit_pct, a->nofit_pct);
}

void inspect_adapt_text(const struct advshim_stats_adapt *a, FILE *f)
{
	const struct advshim_adapt_switch *h;
	char what[256];
	uint32_t i;

	if (a->state == ADVSHIM_ADAPT_UNUSED && !a->samples) {
		fprintf(f, "  adaptive: not used yet (no RANDOM advice on a "
			"file under an adaptive rule)\n");
		return;
	}
	describe(a, what, sizeof(what));
	fprintf(f, "  adaptive: %s\n", what);
	print_memcg(a, f);
	fprintf(f, "    %u files, %" PRIu64 " ranges asked random; %" PRIu64
		" switches, %" PRIu64 " held; %" PRIu64 " samples (%" PRIu64
		" unreadable), last %.1f s ago; %s\n",
		a->nr_files + a->nr_more, a->ranges_asked, a->switches,
		a->held, a->samples, a->sample_errors, ago_s(a->t_ms),
		shimstats_adapt_state_name(a->state, false));
	for (i = 0; i < a->nr_history; i++) {
		h = history_at(a, i);
		fprintf(f, "    switch %.1f s ago: %s -> %s (%s, need %u%% of "
			"capacity)\n", ago_s(h->t_ms), from_name(h->from),
			adapt_choice_name((enum adapt_choice)h->to),
			adapt_reason_name((enum adapt_reason)h->reason),
			h->ratio_pct);
	}
}

void inspect_adapt_json(const struct advshim_stats_adapt *a, FILE *f)
{
	const struct advshim_adapt_switch *h;
	uint32_t i;

	fprintf(f, "\"adaptive\":{\"state\":");
	json_put_string(f, shimstats_adapt_state_name(a->state, false));
	fprintf(f, ",\"choice\":\"%s\",\"reason\":",
		adapt_choice_name((enum adapt_choice)a->choice));
	json_put_string(f, adapt_reason_name((enum adapt_reason)a->reason));
	fprintf(f, ",\"status\":%d,\"cgroup_version\":%d,\"cgroup\":",
		a->status, a->cg_version);
	json_put_string(f, a->cgroup);
	fprintf(f, ",\"need_bytes\":%" PRIu64 ",\"capacity_bytes\":%" PRIu64
		",\"ratio_pct\":%u,\"resident_pct\":%u,\"usage_pct\":%u"
		",\"limit_bytes\":%" PRId64 ",\"usage_bytes\":%" PRIu64
		",\"file_bytes\":%" PRIu64 ",\"mem_available_bytes\":%" PRIu64
		",\"majflt_per_s\":%" PRIu64 ",\"refaults_per_s\":%" PRIu64
		",\"fit_pct\":%u,\"nofit_pct\":%u,\"dwell_ms\":%u"
		",\"interval_ms\":%u,\"guarded\":%s,\"sample_age_s\":%.1f",
		a->need, a->capacity, a->ratio_pct, a->resident_pct,
		a->usage_pct, a->limit == UINT64_MAX ? -1 : (int64_t)a->limit,
		a->usage, a->file, a->mem_avail, a->majflt_s, a->refault_s,
		a->fit_pct, a->nofit_pct, a->dwell_ms, a->interval_ms,
		a->guarded ? "true" : "false", ago_s(a->t_ms));
	fprintf(f, ",\"samples\":%" PRIu64 ",\"sample_errors\":%" PRIu64
		",\"switches\":%" PRIu64 ",\"held\":%" PRIu64
		",\"ranges_asked\":%" PRIu64 ",\"ranges_applied\":%" PRIu64
		",\"skipped_mixed\":%" PRIu64 ",\"apply_errors\":%" PRIu64
		",\"files\":%u,\"history\":[", a->samples, a->sample_errors,
		a->switches, a->held, a->ranges_asked, a->ranges_applied,
		a->skipped_mixed, a->apply_errors, a->nr_files + a->nr_more);
	for (i = 0; i < a->nr_history; i++) {
		h = history_at(a, i);
		fprintf(f, "%s{\"ago_s\":%.1f,\"from\":\"%s\",\"to\":\"%s\","
			"\"reason\":", i ? "," : "", ago_s(h->t_ms),
			from_name(h->from),
			adapt_choice_name((enum adapt_choice)h->to));
		json_put_string(f, adapt_reason_name((enum adapt_reason)h->reason));
		fprintf(f, ",\"ratio_pct\":%u}", h->ratio_pct);
	}
	fprintf(f, "]}");
}

const char *inspect_adapt_mark(const struct advshim_stats_adapt *a,
			       const char *path, uint64_t inode)
{
	struct stat st;
	bool have = stat(path, &st) == 0 && (uint64_t)st.st_ino == inode;
	uint32_t i, n = a->nr_files < ADVSHIM_ADAPT_FILES ? a->nr_files :
						ADVSHIM_ADAPT_FILES;

	if (a->state == ADVSHIM_ADAPT_UNUSED)
		return NULL;
	for (i = 0; i < n; i++)
		if (a->files[i].ino == inode &&
		    (!have || a->files[i].dev == (uint64_t)st.st_dev))
			return adapt_choice_name((enum adapt_choice)a->choice);
	return NULL;
}
