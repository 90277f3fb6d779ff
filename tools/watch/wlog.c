// SPDX-License-Identifier: MIT
/*
 * wlog.c - text and JSON decision lines.
 */
#include "tools/watch/wlog.h"

#include <string.h>

#include "common/json.h"

void wevent_init(struct wevent *ev, const char *event)
{
	memset(ev, 0, sizeof(*ev));
	ev->event = event;
	ev->node = -1;
	ev->refaults_per_s = -1;
	ev->streak = -1;
}

static void json_opt_string(FILE *f, const char *key, const char *v)
{
	fprintf(f, ",\"%s\":", key);
	if (v)
		json_put_string(f, v);
	else
		fputs("null", f);
}

static void emit_json(FILE *f, uint64_t ts_ms, const struct wevent *ev)
{
	fprintf(f, "{\"ts_ms\":%llu,\"event\":\"%s\"",
		(unsigned long long)ts_ms, ev->event);
	json_opt_string(f, "memcg", ev->memcg);
	if (ev->has_id)
		fprintf(f, ",\"id\":%llu", (unsigned long long)ev->id);
	else
		fputs(",\"id\":null", f);
	if (ev->node >= 0)
		fprintf(f, ",\"node\":%d", ev->node);
	else
		fputs(",\"node\":null", f);
	if (ev->has_seq)
		fprintf(f, ",\"max_seq\":%lu", ev->max_seq);
	else
		fputs(",\"max_seq\":null", f);
	if (ev->refaults_per_s >= 0)
		fprintf(f, ",\"refaults_per_s\":%.1f", ev->refaults_per_s);
	else
		fputs(",\"refaults_per_s\":null", f);
	if (ev->cmd)
		json_opt_string(f, "cmd", ev->cmd);
	if (ev->error)
		json_opt_string(f, "error", ev->error);
	if (ev->streak >= 0)
		fprintf(f, ",\"streak\":%d", ev->streak);
	if (ev->msg)
		json_opt_string(f, "msg", ev->msg);
	fputs("}\n", f);
}

/* Text: "[   12.345] event memcg="/a b" node=0 id=5 ... msg" */
static void emit_text(FILE *f, uint64_t ts_ms, const struct wevent *ev)
{
	fprintf(f, "[%7llu.%03llu] %-10s", (unsigned long long)(ts_ms / 1000),
		(unsigned long long)(ts_ms % 1000), ev->event);
	if (ev->memcg)
		fprintf(f, " memcg=\"%s\"", ev->memcg);
	if (ev->node >= 0)
		fprintf(f, " node=%d", ev->node);
	if (ev->has_id)
		fprintf(f, " id=%llu", (unsigned long long)ev->id);
	if (ev->has_seq)
		fprintf(f, " max_seq=%lu", ev->max_seq);
	if (ev->refaults_per_s >= 0)
		fprintf(f, " refaults/s=%.1f", ev->refaults_per_s);
	if (ev->streak >= 0)
		fprintf(f, " streak=%d", ev->streak);
	if (ev->cmd)
		fprintf(f, " cmd=\"%s\"", ev->cmd);
	if (ev->error)
		fprintf(f, " error=\"%s\"", ev->error);
	if (ev->msg)
		fprintf(f, ": %s", ev->msg);
	fputc('\n', f);
}

void wlog_emit(struct wlog *log, uint64_t ts_ms, const struct wevent *ev)
{
	if (!log || !log->f)
		return;
	if (log->format == WLOG_JSON)
		emit_json(log->f, ts_ms, ev);
	else
		emit_text(log->f, ts_ms, ev);
	fflush(log->f);
}
