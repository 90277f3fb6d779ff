// SPDX-License-Identifier: MIT
/*
 * replay.c - adapt-replay: run the adaptive advice's state machine
 * (adapt/adapt.c) over a timeline recorded by tools/adapt/lab/arm.sh
 * (samples.tsv), to see what the shim would have chosen, when, and why.
 *
 *   adapt-replay [-q] [-s] [-P NAME=VALUE]... SAMPLES.TSV
 *
 * Per row: the verdict (choice, reason, the numbers used).  -q prints
 * only switches and the summary; -s uses the sampled residency (256
 * pages) instead of the full mincore count; -P overrides a parameter
 * (fit_pct, nofit_pct, guard_fit_pct, persist, thrash_persist, thrash_usage_pct,
 * thrash_majflt_s, thrash_refaults, dwell_ms, max_per_min, fail_after).
 * The process's major faults are the reader's own (getrusage in
 * load.tsv, per second), summed into the cumulative count the shim keeps.
 */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "adapt/adapt.h"
#include "common/fields.h"

#define MAX_COLS 64

struct cols {
	int t, limit, usage, file, avail, pages, resident, sampled, majflt_s, cg;
	int refault;
};

static int col_of(char **names, int n, const char *want)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(names[i], want))
			return i;
	fprintf(stderr, "adapt-replay: no column '%s'\n", want);
	exit(2);
}

/* One samples.tsv line into f[] (its newline dropped); the field count. */
static int split(char *line, char **f)
{
	line[strcspn(line, "\n")] = 0;
	return fields_split(line, f, MAX_COLS);
}

static int set_param(struct adapt_params *p, const char *kv)
{
	static const struct { const char *name; size_t off; } t[] = {
#define P(f) { #f, offsetof(struct adapt_params, f) }
		P(fit_pct), P(nofit_pct), P(guard_fit_pct), P(persist),
		P(thrash_persist),
		P(thrash_usage_pct), P(thrash_majflt_s), P(thrash_refaults),
		P(dwell_ms), P(max_per_min), P(fail_after),
#undef P
	};
	const char *eq = strchr(kv, '=');

	for (size_t i = 0; eq && i < sizeof(t) / sizeof(t[0]); i++) {
		if (strlen(t[i].name) == (size_t)(eq - kv) &&
		    !strncmp(kv, t[i].name, (size_t)(eq - kv))) {
			*(unsigned int *)((char *)p + t[i].off) =
				(unsigned int)strtoul(eq + 1, NULL, 10);
			return 0;
		}
	}
	fprintf(stderr, "adapt-replay: unknown parameter '%s'\n", kv);
	return -1;
}

static uint64_t num(const char *s)
{
	return strtoull(s, NULL, 10);
}

/* One samples.tsv row into a sample; @majflt accumulates. */
static void to_sample(char **f, const struct cols *c, bool sampled,
		      double *majflt, uint64_t *prev_t, struct adapt_sample *x)
{
	uint64_t t = num(f[c->t]);
	double rate = strtod(f[c->majflt_s], NULL);

	memset(x, 0, sizeof(*x));
	x->t_ms = t;
	if (*prev_t && t > *prev_t)
		*majflt += rate * (double)(t - *prev_t) / 1000.0;
	*prev_t = t;
	x->majflt = (uint64_t)*majflt;
	x->refault = num(f[c->refault]);
	if (!strcmp(f[c->cg], "-") || !strcmp(f[c->limit], "-")) {
		x->status = -ENOENT;
		return;
	}
	x->limit = !strcmp(f[c->limit], "max") ? ADAPT_NO_LIMIT : num(f[c->limit]);
	x->usage = num(f[c->usage]);
	x->file = num(f[c->file]);
	x->mem_avail = num(f[c->avail]);
	x->need = num(f[c->pages]) * 4096;
	x->resident = num(f[sampled ? c->sampled : c->resident]) * 4096;
}

int main(int argc, char **argv)
{
	struct adapt_params p;
	struct adapt_state s;
	struct cols c;
	char line[4096], *f[MAX_COLS], desc[256];
	bool quiet = false, sampled = false;
	uint64_t prev_t = 0, first_t = 0;
	double majflt = 0;
	const char *bad;
	FILE *in;
	int opt, n;

	adapt_params_default(&p);
	while ((opt = getopt(argc, argv, "qsP:")) != -1) {
		if (opt == 'q')
			quiet = true;
		else if (opt == 's')
			sampled = true;
		else if (opt != 'P' || set_param(&p, optarg))
			return 2;
	}
	if (optind != argc - 1 || adapt_params_check(&p, &bad)) {
		fprintf(stderr, optind != argc - 1 ?
			"usage: adapt-replay [-q] [-s] [-P NAME=VALUE]... SAMPLES.TSV\n" :
			"adapt-replay: bad parameter %s\n", bad);
		return 2;
	}
	in = fopen(argv[optind], "r");
	if (!in || !fgets(line, sizeof(line), in)) {
		fprintf(stderr, "adapt-replay: %s: %s\n", argv[optind], strerror(errno));
		return 1;
	}
	n = split(line, f);
	c = (struct cols){
		col_of(f, n, "t_ms"), col_of(f, n, "limit"), col_of(f, n, "usage"),
		col_of(f, n, "file"), col_of(f, n, "mem_avail"), col_of(f, n, "pages"),
		col_of(f, n, "resident"), col_of(f, n, "resident_sampled"),
		col_of(f, n, "proc_majflt_s"), col_of(f, n, "cg"),
		col_of(f, n, "refault"),
	};
	adapt_init(&s, &p, ADAPT_RANDOM);
	while (fgets(line, sizeof(line), in)) {
		struct adapt_sample x;
		struct adapt_verdict v;

		if (split(line, f) < n)
			continue;
		to_sample(f, &c, sampled, &majflt, &prev_t, &x);
		if (!first_t)
			first_t = x.t_ms;
		v = adapt_step(&s, &x);
		adapt_describe(&v, desc, sizeof(desc));
		if (!quiet || v.switched)
			printf("%7.1f %s %s\n", (double)(x.t_ms - first_t) / 1000.0,
			       v.switched ? "SWITCH" : "      ", desc);
	}
	printf("# switches=%" PRIu64 " held=%" PRIu64 " final=%s\n", s.switches,
	       s.held, adapt_choice_name(s.choice));
	fclose(in);
	return 0;
}
