/* SPDX-License-Identifier: MIT */
/*
 * timeline.h - one arm's sampled timeline, its TSV form, and the summary
 * computed from it (pure: the same code renders a live run and
 * `advshim-ab report DIR`).  No locks: an arm_result belongs to its
 * caller.
 */
#ifndef ADVSHIM_AB_TIMELINE_H
#define ADVSHIM_AB_TIMELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define AB_MAX_FILES 8
#define AB_NAME 64

/* One sample; NaN (or -1 for integers) marks "not available". */
struct sample {
	double t;		/* s since the arm started (end of interval) */
	double reads_s, qps, p99_us;
	double majflt_s, refault_s, activ_s;
	double read_mib_s;	/* from storage */
	double resid_mib[AB_MAX_FILES];
	long min_seq, max_seq;	/* lru_gen of the memcg */
	int rr;			/* throughput workload: 1 rr, 0 not, -1 ? */
};

struct ab_params {
	double baseline_s;
	double recover_pct;
	double settle_majflt;
	unsigned int settle_intervals;
};

struct watch_counts {
	bool enabled;
	bool dry_run;
	unsigned long thrash, age, would_age, age_failed, other;
};

struct arm_result {
	char name[AB_NAME];
	char label[128];
	double event_start, event_end;	/* s; NaN: no event seen */
	size_t nfiles;
	char files[AB_MAX_FILES][AB_NAME];
	struct ab_params params;
	struct watch_counts watch;
	char io_source[32];
	char note[256];			/* what went wrong, if anything */
	struct sample *s;
	size_t n, cap;
};

struct summary {
	double pre_median;	/* reads/s, baseline window before the event */
	double worst_after;	/* min reads/s from the event start on */
	double recovery_s;	/* from event end; NaN: never */
	double settle_s;	/* majflt/s settled, from event end; NaN: never */
	double majflt_after;	/* major faults from the event start on */
	double gib_after;	/* GiB read from storage from the event start on */
	double p99_before, p99_after;	/* median of per-interval p99, us */
	int rr_seen;		/* 1 yes, 0 no, -1 never known */
	long gens_added;	/* max_seq advance from the event start; -1 ? */
};

/*
 * arm_init - an empty result (no samples, no event); arm_free releases
 * its samples and leaves it empty.  Neither can fail.
 */
void arm_init(struct arm_result *r);
void arm_free(struct arm_result *r);

/* arm_add - append a copy of @s; 0, or -1 (ENOMEM: @r unchanged). */
int arm_add(struct arm_result *r, const struct sample *s);

/* sample_blank - every field "not available", at time @t.  Cannot fail. */
void sample_blank(struct sample *s, double t);

/*
 * summarize - the summary of @r (see struct summary).  Without an event
 * every after-event field is NaN and pre_median covers the whole run.
 */
void summarize(const struct arm_result *r, struct summary *out);

/* median_of - median of the non-NaN values (sorts a copy); NaN if none. */
double median_of(const double *v, size_t n);

/*
 * tsv_write_arm - the arm's TSV (comments, header, rows) to @f; 0, or -1
 * when a write failed (errno from stdio).
 */
int tsv_write_arm(FILE *f, const struct arm_result *r);

/*
 * tsv_read_arm - parse what tsv_write_arm wrote.  Returns 0, or -1 with a
 * message ("line N: ...") in @err.
 */
int tsv_read_arm(const char *buf, struct arm_result *r, char *err,
		 size_t size);

/* tsv_write_summary - summary.tsv for @n arms to @f; 0, or -1 (write failed). */
int tsv_write_summary(FILE *f, const struct arm_result *r, size_t n);

/*
 * Tables in the seed's layout: an arm's header, one sample row, and the
 * summary of @n arms.  Write errors stay in @f's error flag.
 */
void print_arm_head(FILE *f, const struct arm_result *r);
void print_arm_row(FILE *f, const struct arm_result *r, const struct sample *s);
void print_summary(FILE *f, const struct arm_result *r, size_t n);

#endif /* ADVSHIM_AB_TIMELINE_H */
