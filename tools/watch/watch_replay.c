// SPDX-License-Identifier: MIT
/*
 * watch_replay.c - the watcher over a recorded run (see watch_replay.h):
 * the recording's struct watch_io, the frame walk and the summary.
 */
#include "tools/watch/watch_replay.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/readfile.h"
#include "tools/watch/kver.h"
#include "tools/watch/watch.h"

/* The recording as the watcher's I/O sees it: the current frame. */
struct player {
	const char *text;
	size_t len;
	uint64_t now_ms;
	struct replay_result *res;
};

static int pl_read(void *ctx, bool full, const char **buf, size_t *len)
{
	struct player *pl = ctx;

	(void)full;	/* lru_gen_full holds all that lru_gen does */
	*buf = pl->text;
	*len = pl->len;
	return 0;
}

/* Never called in a dry run; refused so that nothing is taken as aged. */
static int pl_write(void *ctx, const char *cmd, size_t len)
{
	(void)ctx;
	(void)cmd;
	(void)len;
	errno = EROFS;
	return -1;
}

static int pl_enabled(void *ctx)
{
	(void)ctx;
	return 1;
}

static const char *pl_lockdown(void *ctx)
{
	(void)ctx;
	return NULL;
}

static void pl_unwritten(void *ctx, const char *cmd)
{
	struct player *pl = ctx;
	struct replay_result *res = pl->res;

	if (res->nr_bursts < REPLAY_MAX_BURSTS) {
		res->bursts[res->nr_bursts].t_ms = pl->now_ms;
		snprintf(res->bursts[res->nr_bursts].cmd,
			 sizeof(res->bursts[0].cmd), "%s", cmd);
	}
	res->nr_bursts++;
}

/* word_value - the value of "KEY=" among @buf's words, copied to @out. */
static bool word_value(const char *buf, size_t len, const char *key,
		       char *out, size_t size)
{
	size_t klen = strlen(key), i = 0, n;

	while (i < len) {
		while (i < len && (buf[i] == ' ' || buf[i] == '\t' ||
				   buf[i] == '\n'))
			i++;
		n = strcspn(buf + i, " \t\n");
		if (n > len - i)
			n = len - i;
		if (n > klen && !strncmp(buf + i, key, klen) &&
		    buf[i + klen] == '=') {
			snprintf(out, size, "%.*s", (int)(n - klen - 1),
				 buf + i + klen + 1);
			return true;
		}
		i += n;
	}
	return false;
}

static int u64_value(const char *buf, size_t len, const char *key,
		     uint64_t *v, bool *found)
{
	char text[32], *end;

	*found = word_value(buf, len, key, text, sizeof(text));
	if (!*found)
		return 0;
	errno = 0;
	*v = strtoull(text, &end, 10);
	return end == text || *end || errno ? -1 : 0;
}

int replay_case_parse(const char *buf, size_t len, const char *name,
		      struct replay_case *c, char *why, size_t size)
{
	bool f1, f2, f3;

	memset(c, 0, sizeof(*c));
	if (!word_value(buf, len, "kernel", c->kernel, sizeof(c->kernel))) {
		snprintf(why, size, "%s: no kernel= (the recorded kernel's "
			 "release)", name);
		return -1;
	}
	if (!word_value(buf, len, "memcg", c->memcg, sizeof(c->memcg)) ||
	    c->memcg[0] != '/') {
		snprintf(why, size, "%s: no memcg=/PATH (the recorded memcg "
			 "as lru_gen prints it)", name);
		return -1;
	}
	if (u64_value(buf, len, "reader_mono_ms", &c->base_mono_ms, &f1) ||
	    u64_value(buf, len, "cold_start_ms", &c->cold_start_ms, &f2) ||
	    u64_value(buf, len, "cold_end_ms", &c->cold_end_ms, &f3)) {
		snprintf(why, size, "%s: a time is not a whole number of ms",
			 name);
		return -1;
	}
	c->has_cold = f2 && f3;
	return 0;
}

/* header - "@ N MS" at @p: its MS, or -1 when @p is not a header. */
static int header(const char *p, const char *end, uint64_t *ms)
{
	unsigned long long n, t;
	char line[64];
	size_t l = 0;

	while (p + l < end && p[l] != '\n' && l < sizeof(line) - 1)
		l++;
	memcpy(line, p, l);
	line[l] = '\0';
	if (sscanf(line, "@ %llu %llu", &n, &t) != 2)
		return -1;
	*ms = t;
	return 0;
}

/* frame_end - where the frame whose text starts at @p ends: the next
 * header line, or @end. */
static const char *frame_end(const char *p, const char *end)
{
	const char *q = p;

	while (q < end) {
		if (*q == '@' && (q == p || q[-1] == '\n'))
			return q;
		q = memchr(q, '\n', (size_t)(end - q));
		q = q ? q + 1 : end;
	}
	return end;
}

/* play - every frame of @frames through @w, from time 0 of @c. */
static int play(struct watch *w, struct player *pl, const char *frames,
		size_t len, const struct replay_case *c, const char *path,
		char *why, size_t size)
{
	const char *p = frames, *end = frames + len, *text, *q;
	uint64_t ms;
	unsigned int line = 1;

	while (p < end) {
		if (header(p, end, &ms)) {
			snprintf(why, size, "%s:%u: expected \"@ N MONO_MS\"",
				 path, line);
			return -1;
		}
		text = memchr(p, '\n', (size_t)(end - p));
		text = text ? text + 1 : end;
		p = frame_end(text, end);
		line++;
		for (q = text; q < p; q++)
			line += *q == '\n';
		if (ms < c->base_mono_ms)
			continue;	/* before the run began */
		pl->text = text;
		pl->len = (size_t)(p - text);
		pl->now_ms = ms - c->base_mono_ms;
		watch_tick(w, pl->now_ms);
		pl->res->frames++;
	}
	return 0;
}

static int read_into(const char *dir, const char *name, char **buf,
		     size_t *len, char *path, size_t psize, char *why,
		     size_t size)
{
	snprintf(path, psize, "%s/%s", dir, name);
	if (!read_file(path, buf, len, 0))
		return 0;
	snprintf(why, size, "%s: %s", path, strerror(errno));
	return -1;
}

/* conf_for - @conf as the replay runs it (see replay_dir). */
static int conf_for(const struct watch_conf *conf,
		    const struct replay_case *c, struct watch_conf *out)
{
	char *const cgs[] = { (char *)c->memcg };

	*out = *conf;
	out->cgroups = NULL;
	out->nr_cgroups = 0;
	out->dry_run = true;
	out->log_decisions = true;
	if (conf->nr_cgroups)
		return watch_conf_set_cgroups(out, conf->cgroups,
					      conf->nr_cgroups);
	return watch_conf_set_cgroups(out, cgs, 1);
}

static int run_frames(const char *frames, size_t len, const char *path,
		      const struct watch_conf *conf, struct wlog *log,
		      const struct replay_case *c, struct replay_result *res,
		      char *why, size_t size)
{
	struct player pl = { .res = res };
	struct watch_io io = { .read_lrugen = pl_read, .write_cmd = pl_write,
			       .read_enabled = pl_enabled,
			       .lockdown = pl_lockdown, .ctx = &pl,
			       .unwritten = pl_unwritten };
	struct kver_rules rules;
	struct watch_conf rc;
	struct watch *w;
	struct kver v;
	int ret;

	if (kver_parse(c->kernel, &v)) {
		snprintf(why, size, "kernel=%s: not a kernel release",
			 c->kernel);
		return -1;
	}
	kver_rules_for(&v, &rules);
	if (conf_for(conf, c, &rc)) {
		snprintf(why, size, "out of memory");
		return -1;
	}
	w = watch_new(&rc, &rules, false, &io, log);
	watch_conf_free(&rc);
	if (!w) {
		snprintf(why, size, "out of memory");
		return -1;
	}
	ret = play(w, &pl, frames, len, c, path, why, size);
	watch_free(w);
	return ret;
}

int replay_dir(const char *dir, const struct watch_conf *conf,
	       struct wlog *log, struct replay_case *c,
	       struct replay_result *res, char *why, size_t size)
{
	char path[4096], *env = NULL, *frames = NULL;
	size_t elen, flen;
	int ret = -1;

	memset(res, 0, sizeof(*res));
	if (read_into(dir, "arm.env", &env, &elen, path, sizeof(path), why,
		      size))
		return -1;
	if (replay_case_parse(env, elen, path, c, why, size))
		goto out;
	if (read_into(dir, "frames.txt", &frames, &flen, path, sizeof(path),
		      why, size))
		goto out;
	ret = run_frames(frames, flen, path, conf, log, c, res, why, size);
out:
	free(env);
	free(frames);
	return ret;
}

static void print_s(FILE *f, const char *what, int64_t ms)
{
	fprintf(f, "%s%s%" PRId64 ".%03" PRId64 " s", what, ms < 0 ? "-" : "",
		(ms < 0 ? -ms : ms) / 1000, (ms < 0 ? -ms : ms) % 1000);
}

void replay_summary(const struct replay_case *c,
		    const struct replay_result *res, FILE *f)
{
	unsigned int i, n = res->nr_bursts < REPLAY_MAX_BURSTS ?
			    res->nr_bursts : REPLAY_MAX_BURSTS;

	fprintf(f, "replay: %u frames of %s (kernel %s)", res->frames,
		c->memcg, c->kernel);
	if (c->has_cold) {
		print_s(f, "; cold read ", (int64_t)c->cold_start_ms);
		print_s(f, " to ", (int64_t)c->cold_end_ms);
	}
	fprintf(f, "\nreplay: %u burst%s\n", res->nr_bursts,
		res->nr_bursts == 1 ? "" : "s");
	for (i = 0; i < n; i++) {
		print_s(f, "replay:   at ", (int64_t)res->bursts[i].t_ms);
		if (c->has_cold)
			print_s(f, ", ", (int64_t)res->bursts[i].t_ms -
				(int64_t)c->cold_end_ms);
		fprintf(f, "%s: %s\n", c->has_cold ?
			" from the cold read's end" : "", res->bursts[i].cmd);
	}
}
