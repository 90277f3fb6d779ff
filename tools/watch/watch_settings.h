/* SPDX-License-Identifier: MIT */
/*
 * watch_settings.h - every advshim-watch setting, described once.
 *
 * A row of watch_settings[] (watch_settings.c) names a setting's config
 * key, type, range, default, unit and help text, and the field of struct
 * watch_conf that holds it.  Everything else is derived from the table:
 * the defaults (watch_conf_defaults), the `watch` group reader
 * (watch_conf.c), the command-line options (watch_opts.c: --KEY with '-'
 * for '_'), the --help text, `advshim check`'s listing (watch_conf_print)
 * and the lists in advshim-watch(8) and advshim.conf(5) (watch_doc.c;
 * check-man.sh fails when a page disagrees, `make watch-man` rewrites
 * them).
 *
 * Adding a setting:
 *  1. its field: in struct det_params (detector.h) when the detector reads
 *     it, which struct watch_conf embeds as .det; else in struct
 *     watch_conf itself;
 *  2. one row in watch_settings[] naming that field (WSET_FIELD);
 *  3. its use; then `make watch-man` to regenerate the manual pages.
 *
 * The table is constant; these functions only read it and the struct
 * watch_conf they are given, allocate nothing and take no locks.
 */
#ifndef ADVSHIM_WATCH_SETTINGS_H
#define ADVSHIM_WATCH_SETTINGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "tools/watch/watch_conf.h"

enum wset_type {
	WSET_UINT,	/* an unsigned int or uint64_t field */
	WSET_NUM,	/* double */
	WSET_BOOL,	/* bool; the option takes no argument */
	WSET_ENUM,	/* unsigned int or enum: an index into .names */
	WSET_PATHS,	/* the cgroups list; the option repeats */
};

struct watch_setting {
	const char *key;	/* config key; option --key, '-' for '_' */
	const char *opt;	/* option name if not derived from key */
	enum wset_type type;
	size_t off;		/* the field in struct watch_conf ... */
	size_t size;		/* ... and its size */
	double lo, hi;		/* accepted range (UINT, NUM) */
	double def;		/* default; BOOL 0 or 1, ENUM an index */
	const char *unit;	/* "ms", "%", ...; NULL: none */
	const char *const *names;	/* ENUM: the values, NULL-terminated */
	const char *help;	/* one phrase: --help and config comments */
	const char *doc;	/* the manual's sentences; `--x` prints bold */
};

/* WSET_FIELD - .off and .size of field @f of struct watch_conf. */
#define WSET_FIELD(f)							\
	.off = offsetof(struct watch_conf, f),				\
	.size = sizeof(((struct watch_conf *)0)->f)

/* The settings, in the order every listing uses. */
extern const struct watch_setting watch_settings[];
extern const size_t watch_nr_settings;

/* Command lines record given settings in a 64-bit mask. */
#define WATCH_MAX_SETTINGS 64

/*
 * wset_find - the setting with config key @key, or NULL.
 */
const struct watch_setting *wset_find(const char *key);

/*
 * wset_opt_name - the option name of @s without "--" into @buf (@size
 * bytes, truncated).  Returns @buf.
 */
char *wset_opt_name(const struct watch_setting *s, char *buf, size_t size);

/*
 * wset_metavar - the option's argument as --help shows it ("N", "X",
 * "PATH", "a|b"), or NULL for a flag (BOOL).
 */
const char *wset_metavar(const struct watch_setting *s, char *buf,
			 size_t size);

/*
 * wset_get - the value of numeric setting @s (UINT, NUM, BOOL, ENUM) in
 * @c, as a double (exact for the integer ranges used).
 */
double wset_get(const struct watch_setting *s, const struct watch_conf *c);

/*
 * wset_set - store @v into @c's field of numeric setting @s after checking
 * it against the range (UINT, NUM: and integral for UINT; ENUM: an index
 * of .names; BOOL: 0 or 1).  Returns 0, or -1 with "NAME: ..." (NAME as
 * given, e.g. "watch.interval_ms" or "--interval-ms") in @why (@size bytes).
 */
int wset_set(const struct watch_setting *s, struct watch_conf *c, double v,
	     const char *name, char *why, size_t size);

/*
 * wset_parse - @text as a value of @s: a decimal integer (UINT), a number
 * (NUM), true or false (BOOL), one of .names (ENUM); stored through
 * wset_set().  Not for PATHS.  Returns 0, or -1 with "NAME: ..." in @why.
 */
int wset_parse(const struct watch_setting *s, struct watch_conf *c,
	       const char *text, const char *name, char *why, size_t size);

/*
 * wset_check_path - a cgroups entry must start with '/'.  Returns 0, or -1
 * with "NAME: ..." in @why.
 */
int wset_check_path(const char *path, const char *name, char *why,
		    size_t size);

/*
 * wset_format - the value of @s in @c as the config syntax writes it
 * ("1000", "0.25", "true", "\"name\"", "[ \"/a\", \"/b\" ]") into @buf.
 * Returns @buf.
 */
char *wset_format(const struct watch_setting *s, const struct watch_conf *c,
		  char *buf, size_t size);

/*
 * wset_format_default - the default of @s with its unit ("1000 ms",
 * "0.25%", "false", "none") into @buf.  Returns @buf.
 */
char *wset_format_default(const struct watch_setting *s, char *buf,
			  size_t size);

#endif /* ADVSHIM_WATCH_SETTINGS_H */
