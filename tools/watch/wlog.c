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

/* json_nums - the numeric keys every line has, null when unset. */
static void json_nums(FILE *f, const struct wevent *ev)
{
	char id[24], node[16], seq[24], rate[48];
	const struct {
		const char *key, *v;
	} nums[] = {
		{ "id", ev->has_id ? id : NULL },
		{ "node", ev->node >= 0 ? node : NULL },
		{ "max_seq", ev->has_seq ? seq : NULL },
		{ "refaults_per_s", ev->refaults_per_s >= 0 ? rate : NULL },
	};
	size_t i;

	snprintf(id, sizeof(id), "%llu", (unsigned long long)ev->id);
	snprintf(node, sizeof(node), "%d", ev->node);
	snprintf(seq, sizeof(seq), "%lu", ev->max_seq);
	snprintf(rate, sizeof(rate), "%.1f", ev->refaults_per_s);
	for (i = 0; i < sizeof(nums) / sizeof(nums[0]); i++)
		fprintf(f, ",\"%s\":%s", nums[i].key,
			nums[i].v ? nums[i].v : "null");
}

static void emit_json(FILE *f, uint64_t ts_ms, const struct wevent *ev)
{
	fprintf(f, "{\"ts_ms\":%llu,\"event\":\"%s\"",
		(unsigned long long)ts_ms, ev->event);
	json_opt_string(f, "memcg", ev->memcg);
	json_nums(f, ev);
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
