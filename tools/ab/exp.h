/* SPDX-License-Identifier: MIT */
/*
 * exp.h - advshim-ab experiment files (libconfig), parsed and validated.
 *
 * Parsing takes a buffer and does no other I/O; every problem comes back
 * as file:line and a message.  Strings may hold substitutions (${BUILD},
 * ${DIR}, ${OUT}, ${ARM}, ${MEMCG}, ${file:NAME}, ${LIMIT_MIB},
 * ${DURATION_S}, ${INTERVAL_MS}); they are checked at parse time and
 * expanded per arm by exp_expand().  No locks: an experiment is read-only
 * once parsed and may be shared.
 */
#ifndef ADVSHIM_AB_EXP_H
#define ADVSHIM_AB_EXP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct exp_error {
	char file[256];
	int line;		/* 0: no line applies */
	char msg[512];
};

struct exp_file {
	char *name;
	char *path;		/* may hold ${DIR}, ${BUILD} */
	uint64_t size_mib;
	int line;
};

struct exp_workload {
	char *name;
	char **argv;		/* NULL-terminated */
	size_t argc;
	unsigned int start_ms;
	bool throughput;	/* its advshim-load random rows are the rate */
	int line;
};

/* Shim settings; an override leaves unset fields to the arm's. */
struct exp_shim {
	int enabled;		/* -1 unset, 0 off, 1 on */
	char *policy;		/* a policy file path, or NULL */
	char *policy_text;	/* inline policy, or NULL */
};

struct exp_override {
	char *workload;
	int wl;			/* index into workloads */
	struct exp_shim shim;
	char **env;
	size_t nenv;
	char **argv;		/* replaces the workload's command, or NULL */
	size_t argc;
	int line;
};

struct exp_watcher {
	bool enabled;
	unsigned int interval_ms;
	bool dry_run;
	char **args;		/* extra arguments */
	size_t nargs;
	char **command;		/* replaces the default command when set */
	size_t ncommand;
};

struct exp_arm {
	char *name;
	char *label;
	int line;
	struct exp_shim shim;
	int lru_gen;		/* -1 leave alone, 0 n, 1 y */
	struct exp_watcher watch;
	char **env;
	size_t nenv;
	struct exp_override *ov;
	size_t nov;
};

struct experiment {
	char *source;
	char *name;
	char *description;
	uint64_t limit_mib;
	double duration_s;
	unsigned int interval_ms;
	char *dir;
	unsigned int print_every;	/* print every Nth sample */
	double baseline_s;		/* pre-event window for the median */
	double recover_pct;		/* recovered: >= this % of the median */
	double settle_majflt;		/* settled: majflt/s <= this ... */
	unsigned int settle_intervals;	/* ... for this many samples */
	struct exp_file *files;
	size_t nfiles;
	struct exp_workload *wl;
	size_t nwl;
	int throughput_wl;		/* index */
	int event_wl;			/* index, -1: no event */
	struct exp_arm *arms;
	size_t narms;
};

/* Values for the substitutions of one arm. */
struct exp_vars {
	const char *build;
	const char *dir;
	const char *out;
	const char *arm;
	const char *memcg;
};

/* The embedded default experiment (advshim-ab --print-default). */
extern const char exp_default_text[];

/*
 * exp_parse_buffer - parse experiment text; @name is used in errors.
 * Returns 0 and sets *out, or -1 and fills *err (ENOMEM included).
 */
int exp_parse_buffer(const char *buf, const char *name,
		     struct experiment **out, struct exp_error *err);

/* exp_load_file - read @path and parse it; -1 + *err on any failure. */
int exp_load_file(const char *path, struct experiment **out,
		  struct exp_error *err);

/* exp_free - release @e (NULL is fine).  Cannot fail. */
void exp_free(struct experiment *e);

/*
 * exp_expand - @in with every ${...} replaced from @e and @v, as a new
 * string in *out.  Returns 0, or -1 with errno = EINVAL (unknown name;
 * parse-time checks make that a bug) or ENOMEM.
 */
int exp_expand(const struct experiment *e, const struct exp_vars *v,
	       const char *in, char **out);

/*
 * exp_check_subst - 0 if every ${...} in @s is known (and file names
 * exist in @e), else -1 with a static message in *why and the bad name
 * in @bad (size @size).
 */
int exp_check_subst(const struct experiment *e, const char *s,
		    const char **why, char *bad, size_t size);

/* exp_find_workload - index of workload @name, or -1. */
int exp_find_workload(const struct experiment *e, const char *name);

#endif /* ADVSHIM_AB_EXP_H */
