// SPDX-License-Identifier: MIT
/*
 * fuzz_cgroup.c - any bytes into the adaptive advice's parsers
 * (common/cgroup.c) and its state machine (adapt/adapt.c).
 *
 * The first byte picks the target; the rest is its input:
 *   0: /proc/self/cgroup text: a result is NUL-terminated in the buffer,
 *      starts with '/' and occurs in the text
 *   1: a limit / usage file: parse_bytes and parse_limit agree
 *   2: /proc/meminfo text: accepted values are what a plain reading finds
 *   3: a timeline of samples (18 bytes each): the hysteresis holds (no
 *      two switches closer than dwell_ms unless the second is the
 *      fail-safe, never more than max_per_min in 60 s of non-fail-safe
 *      ones), the counters match the verdicts
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cgroup.h"
#include "adapt/adapt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void expect(int cond, const char *what)
{
	if (!cond) {
		fprintf(stderr, "fuzz_cgroup: broken: %s\n", what);
		abort();
	}
}

static void fuzz_self(const char *t, size_t n)
{
	char path[64];
	int r;

	memset(path, 'x', sizeof(path));
	r = cg_parse_self(t, n, path, sizeof(path));
	if (r < 0)
		return;
	expect(r == CG_V1 || r == CG_V2, "version");
	expect(memchr(path, 0, sizeof(path)) != NULL, "path terminated");
	expect(path[0] == '/', "path absolute");
	expect(memmem(t, n, path, strlen(path)) != NULL, "path from the text");
}

static void fuzz_value(const char *t, size_t n)
{
	uint64_t b = 1, l = 2;
	int rb = cg_parse_bytes(t, n, &b), rl = cg_parse_limit(t, n, &l);

	if (!rb) {
		expect(!rl, "a byte count is a limit");
		expect(l == (b >= CG_V1_UNLIMITED_MIN ? CG_UNLIMITED : b),
		       "limit value");
	} else {
		expect(b == 1, "bytes untouched on failure");
	}
	if (rl)
		expect(l == 2, "limit untouched on failure");
}

static void fuzz_meminfo(const char *t, size_t n)
{
	uint64_t total = 0, avail = 0;

	if (meminfo_parse(t, n, &total, &avail))
		return;
	expect(memmem(t, n, "MemTotal:", 9) != NULL, "MemTotal present");
	expect(memmem(t, n, "MemAvailable:", 13) != NULL, "MemAvailable present");
}

static uint64_t get(const uint8_t *p, unsigned int bytes)
{
	uint64_t v = 0;

	while (bytes--)
		v = v << 8 | *p++;
	return v;
}

/* 18 bytes: dt, status, ratio-ish sizes, counters. */
static void to_sample(const uint8_t *p, uint64_t *t, struct adapt_sample *x)
{
	*t += get(p, 2);
	memset(x, 0, sizeof(*x));
	x->t_ms = *t - (p[2] == 0xff ? 5000 : 0);	/* sometimes back */
	x->status = p[3] < 16 ? -EIO : 0;
	x->limit = p[4] == 0 ? ADAPT_NO_LIMIT : get(p + 4, 2) << 20;
	x->usage = get(p + 6, 2) << 20;
	x->file = get(p + 8, 2) << 20;
	x->mem_avail = get(p + 10, 1) << 24;
	x->need = get(p + 11, 2) << 20;
	x->resident = get(p + 13, 1) << 20;
	x->majflt = get(p + 14, 2) << 4;
	x->refault = get(p + 16, 2) << 6;
	x->guarded = p[3] & 0x80;	/* the watcher's mark comes and goes */
}

/* Switches before @t within 60 s, of the @n recorded in @at. */
static unsigned int within_minute(const uint64_t *at, unsigned int n, uint64_t t)
{
	unsigned int c = 0;

	for (unsigned int i = 0; i < n; i++)
		c += t - at[i] < 60000;
	return c;
}

static void fuzz_machine(const uint8_t *d, size_t n)
{
	struct adapt_params p;
	struct adapt_state s;
	uint64_t t = 0, switches = 0, at[512];
	unsigned int nat = 0;

	adapt_params_default(&p);
	p.dwell_ms = 10000;
	adapt_init(&s, &p, ADAPT_RANDOM);
	for (; n >= 18 && nat < 512; d += 18, n -= 18) {
		struct adapt_sample x;
		struct adapt_verdict v;
		enum adapt_choice before = s.choice;
		bool first = !s.measured;

		to_sample(d, &t, &x);
		v = adapt_step(&s, &x);
		expect(v.choice == s.choice, "verdict and state agree");
		expect(v.switched == (v.choice != before), "switched iff changed");
		if (!v.switched)
			continue;
		if (!first || v.reason == ADAPT_R_UNREADABLE)
			switches++;
		if (!first && v.reason != ADAPT_R_UNREADABLE) {
			expect(!nat || v.t_ms - at[nat - 1] >= p.dwell_ms, "dwell time");
			expect(within_minute(at, nat, v.t_ms) < p.max_per_min, "rate");
		}
		at[nat++] = v.t_ms;
	}
	expect(s.switches == switches, "switch count");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *t;

	if (size < 1)
		return 0;
	if (data[0] % 4 == 3) {
		fuzz_machine(data + 1, size - 1);
		return 0;
	}
	/* an exact-size copy, so reads past the input are caught */
	t = malloc(size - 1 ? size - 1 : 1);
	if (!t)
		return 0;
	memcpy(t, data + 1, size - 1);
	switch (data[0] % 4) {
	case 0: fuzz_self(t, size - 1); break;
	case 1: fuzz_value(t, size - 1); break;
	default: fuzz_meminfo(t, size - 1); break;
	}
	free(t);
	return 0;
}
