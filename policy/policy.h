/* SPDX-License-Identifier: MIT */
/*
 * policy.h - advshim policies: which advice reaches the kernel, per file.
 *
 * A policy is parsed once (from a buffer; callers read files themselves or
 * use policy_load_file()) into an immutable rule set.  After loading, every
 * function here is safe for any number of concurrent readers.  Nothing in
 * policy/ calls exit(), abort() or assert(): errors come back as -1 with a
 * struct policy_error that says file:line and what is wrong.
 *
 * Matching: rules are tried in order, the first rule whose `match` globs
 * accept the path wins.  A path matched by no rule passes through (NULL).
 * A matching rule with no action for an advice keeps that advice.
 *
 * libadvshim.so links this library (and common/confcheck.o) statically:
 * nothing here may block, exit or keep global state.
 */
#ifndef ADVSHIM_POLICY_H
#define ADVSHIM_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "adapt/adapt.h"

/* The two advice families: madvise()/posix_madvise(), and posix_fadvise(). */
enum adv_family {
	ADV_FAMILY_MADVISE,
	ADV_FAMILY_FADVISE,
	ADV_NR_FAMILIES
};

/* Advice normalised across APIs (numeric values differ per call). */
enum adv_kind {
	ADV_NORMAL,
	ADV_RANDOM,
	ADV_SEQUENTIAL,
	ADV_WILLNEED,
	ADV_DONTNEED,
	ADV_NOREUSE,		/* fadvise only */
	ADV_OTHER,		/* anything else, unknown values included */
	ADV_NR_KINDS
};

enum adv_act {
	ADV_ACT_KEEP,		/* pass the caller's advice unchanged */
	ADV_ACT_REWRITE,	/* issue `to` instead */
	ADV_ACT_SKIP,		/* issue nothing, report success */
	ADV_ACT_ADAPT,		/* madvise random only: keep RANDOM or issue
				   normal, chosen at run time (adapt/adapt.c) */
};

struct adv_action {
	enum adv_act act;
	enum adv_kind to;	/* valid when act == ADV_ACT_REWRITE */
};

/* Actions applied once when a matching file is mapped (bit mask). */
enum map_act {
	MAP_ACT_NOREUSE = 1u << 0,	/* posix_fadvise(fd, 0, 0, NOREUSE) */
	MAP_ACT_NORMAL = 1u << 1,	/* posix_fadvise(fd, 0, 0, NORMAL) */
};

enum policy_log_level {
	POLICY_LOG_OFF,
	POLICY_LOG_WARN,	/* default */
	POLICY_LOG_INFO,	/* + first rewrite per file */
	POLICY_LOG_DEBUG,	/* + every advice call */
};

struct policy_log {
	enum policy_log_level level;
	char *target;		/* "stderr" or an absolute file path */
};

struct policy_rule {
	char *name;		/* from `name`, else "rule N" (1-based) */
	int line;		/* line of the rule in its source */
	char **globs;
	size_t nr_globs;
	struct adv_action action[ADV_NR_FAMILIES][ADV_NR_KINDS];
	unsigned int on_map;	/* enum map_act bits */
};

/*
 * The `adaptive` group: the decision's thresholds (struct adapt_params,
 * adapt/adapt.h, checked with adapt_params_check) and the sampler's
 * interval.  Defaults when the group is absent: adapt_params_default(),
 * ADAPT_INTERVAL_MS.
 */
#define ADAPT_INTERVAL_MS	1000
struct policy_adaptive {
	struct adapt_params params;
	unsigned int interval_ms;	/* between samples */
	int line;			/* of the group; 0: not given */
};

struct policy {
	char *source;		/* file name, or "<default>" */
	int version;
	struct policy_log log;
	char **processes;	/* executable names; nr_processes == 0: all */
	size_t nr_processes;
	struct policy_rule *rules;
	size_t nr_rules;
	bool has_watch;		/* a `watch` group is present (see watch_conf) */
	bool has_adaptive;	/* some rule has random = "adaptive" */
	struct policy_adaptive adaptive;
};

#define POLICY_ERR_MSG 256
struct policy_error {
	char file[256];
	int line;		/* 0 when no line applies (I/O errors) */
	char msg[POLICY_ERR_MSG];
};

/* The embedded default policy's text (MADV_RANDOM on files -> adaptive). */
extern const char policy_default_text[];

/* ---- loading (any thread; allocates; the result is then read-only) ---- */

/*
 * policy_parse_buffer - parse policy text @buf; @name is used in errors.
 * Returns 0 and sets *out, or -1 and fills *err (when non-NULL) with
 * FILE:LINE (line >= 1) and the first problem; *out is then untouched.
 */
int policy_parse_buffer(const char *buf, const char *name,
			struct policy **out, struct policy_error *err);

/*
 * policy_load_file - read @path (a regular text file of at most 1 MiB,
 * opened without blocking) and parse it.  Plain open/read: safe in a
 * library constructor.  Returns 0, or -1 with *err filled: line 0 and
 * errno set when the file cannot be read, else as policy_parse_buffer().
 */
int policy_load_file(const char *path, struct policy **out,
		     struct policy_error *err);

/* policy_load_default - parse the embedded default; only fails on ENOMEM. */
int policy_load_default(struct policy **out, struct policy_error *err);

/* policy_free - free @p and everything it holds (NULL is fine). */
void policy_free(struct policy *p);

/* ---- lookups: no allocation, no locks, any number of threads ---- */

/*
 * policy_match - the first rule whose globs accept absolute @path, or NULL
 * (pass through; also for a NULL @p or @path).
 */
const struct policy_rule *policy_match(const struct policy *p,
				       const char *path);

/*
 * policy_match_glob - policy_match() that also says which glob fired:
 * sets *glob (if non-NULL) to the index in rule->globs.  NULL if no rule
 * matches (then *glob is untouched).
 */
const struct policy_rule *policy_match_glob(const struct policy *p,
					    const char *path, size_t *glob);

/*
 * policy_decide - the action of @rule for advice @kind of @family; keep
 * for a NULL @rule or values out of range.
 */
struct adv_action policy_decide(const struct policy_rule *rule,
				enum adv_family family, enum adv_kind kind);

/*
 * policy_rule_adaptive - true if @rule (may be NULL) chooses madvise
 * RANDOM adaptively (random = "adaptive").
 */
static inline bool policy_rule_adaptive(const struct policy_rule *rule)
{
	return rule &&
	       rule->action[ADV_FAMILY_MADVISE][ADV_RANDOM].act == ADV_ACT_ADAPT;
}

/*
 * policy_selects_process - true if the policy acts in executable @exe (its
 * base name); with no `processes` list, in every one (@exe may be NULL).
 */
bool policy_selects_process(const struct policy *p, const char *exe);

/*
 * glob_match - whether @pattern accepts @path.  `*` and `?` stay inside
 * one path component, `**` as a whole component crosses any number of
 * them, [...] classes as in fnmatch.  Allocates nothing, never recurses:
 * safe inside an allocator's mmap.
 */
bool glob_match(const char *pattern, const char *path);

/*
 * glob_validate - 0 if @pattern is a well-formed glob, or -1 with *why set
 * to a static message (unbalanced '[', a trailing '\', ...).
 */
int glob_validate(const char *pattern, const char **why);

/*
 * glob_matches_everything - true if @pattern matches every absolute path
 * (only `**` components, after an optional leading slash): later rules can
 * then never match.
 */
bool glob_matches_everything(const char *pattern);

/* ---- advice names and numbers (Linux values; pure functions) ---- */

/* adv_kind_name - "normal", ..., "others" (also for values out of range). */
const char *adv_kind_name(enum adv_kind kind);

/* adv_kind_parse - the kind named @name: 0, or -1 for an unknown name. */
int adv_kind_parse(const char *name, enum adv_kind *kind);

/*
 * adv_from_madvise - MADV_* (== POSIX_MADV_* for 0..4); ADV_OTHER else.
 * Inline, as it is on every intercepted madvise: Linux numbers
 * MADV_NORMAL .. MADV_DONTNEED 0..4 on every architecture, in enum
 * adv_kind's order (advice.c asserts it).
 */
static inline enum adv_kind adv_from_madvise(int advice)
{
	return (unsigned int)advice <= ADV_DONTNEED ? (enum adv_kind)advice :
						       ADV_OTHER;
}

/* adv_from_fadvise - POSIX_FADV_*; ADV_OTHER for anything else. */
enum adv_kind adv_from_fadvise(int advice);

/* adv_to_madvise - the MADV_* value of @kind, or -1 if it has none. */
int adv_to_madvise(enum adv_kind kind);

/* adv_to_fadvise - the POSIX_FADV_* value of @kind, or -1 if none. */
int adv_to_fadvise(enum adv_kind kind);

/* adv_family_name - "madvise" or "fadvise" (the key names in the config). */
const char *adv_family_name(enum adv_family family);

/* adv_family_has - true if @family has advice @kind (NOREUSE: fadvise only). */
bool adv_family_has(enum adv_family family, enum adv_kind kind);

/* policy_log_level_name - "off", "warn", "info" or "debug" ("?" else). */
const char *policy_log_level_name(enum policy_log_level level);

/* policy_log_level_parse - the inverse: 0, or -1 for an unknown name. */
int policy_log_level_parse(const char *name, enum policy_log_level *level);

/* ---- printing (`advshim check` and `advshim explain`) ---- */

/* policy_print - the effective rules as a table on @f (NULL: nothing). */
void policy_print(const struct policy *p, FILE *f);

/*
 * policy_print_rule - one rule's block of policy_print(): name, source
 * line, globs, then policy_print_actions().
 */
void policy_print_rule(const struct policy *p, const struct policy_rule *rule,
		       FILE *f);

/* policy_print_actions - a rule's action table (both families) and on_map. */
void policy_print_actions(const struct policy_rule *rule, FILE *f);

/*
 * policy_print_adaptive - the `adaptive` settings in force (defaults
 * included) and what they mean, as `advshim check` shows them.
 */
void policy_print_adaptive(const struct policy *p, FILE *f);

/*
 * adv_action_format - "keep", "skip", "rewrite to NAME" or "adaptive" into @buf
 * (size @size, truncated, always NUL-terminated).  Returns @buf.
 */
char *adv_action_format(struct adv_action a, char *buf, size_t size);

/*
 * policy_error_format - "FILE:LINE: message" (or "FILE: message" when no
 * line applies) into @buf of @size bytes, truncated.  Returns @buf.
 */
char *policy_error_format(const struct policy_error *err, char *buf,
			  size_t size);

#endif /* ADVSHIM_POLICY_H */
