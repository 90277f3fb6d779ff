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
	char id[24], node[16], seq[24];
	const struct {
		const char *key, *v;
	} nums[] = {
		{ "id", ev->has_id ? id : NULL },
		{ "node", ev->node >= 0 ? node : NULL },
		{ "max_seq", ev->has_seq ? seq : NULL },
	};
	size_t i;

	snprintf(id, sizeof(id), "%llu", (unsigned long long)ev->id);
	snprintf(node, sizeof(node), "%d", ev->node);
	snprintf(seq, sizeof(seq), "%lu", ev->max_seq);
	for (i = 0; i < sizeof(nums) / sizeof(nums[0]); i++)
		fprintf(f, ",\"%s\":%s", nums[i].key,
			nums[i].v ? nums[i].v : "null");
}

/* json_det - the verdict and its inputs (see wlog.h). */
static void json_det(FILE *f, const struct wevent *ev)
{
	const struct det_out *d = ev->det;

	fprintf(f, ",\"verdict\":\"%s\",\"file_min_seq\":%lu,\"oldest\":%lu,"
		"\"file_pages\":%lu,\"above\":%lu,\"exposed\":%lu,"
		"\"evicted\":%lu,\"refaulted\":%lu,\"evicted_now\":%lu,"
		"\"inflow\":%ld", det_verdict_name(d->verdict), ev->file_min_seq,
		d->oldest, d->file_pages, d->above, d->exposed, d->evicted,
		d->refaulted, d->evicted_now, d->inflow);
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
	if (ev->det)
		json_det(f, ev);
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
	if (ev->det)
		fprintf(f, " %s F=%lu O=%lu above=%lu exposed=%lu E=%lu R=%lu "
			"E_now=%lu inflow=%ld", det_verdict_name(ev->det->verdict),
			ev->file_min_seq, ev->det->oldest, ev->det->above,
			ev->det->exposed, ev->det->evicted, ev->det->refaulted,
			ev->det->evicted_now, ev->det->inflow);
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
