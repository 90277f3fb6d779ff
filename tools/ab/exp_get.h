/* SPDX-License-Identifier: MIT */
/*
 * exp_get.h - the experiment parser's readers of libconfig members, shared
 * by its parts: exp_parse.c (top level, files, workloads, event) and
 * exp_arm.c (arms and their workload overrides).  Not for other users:
 * exp.h is the parser's interface.
 *
 * Every reader reports through the parser's struct conf_ctx (FILE:LINE:
 * message, common/confcheck.h) and returns -1 after doing so; @what is the
 * context that prefixes the key in messages ("arms[2]: ", "" at the top).
 * Strings handed out are the caller's to free (exp_free() frees them).
 * No locks: a parser belongs to one exp_parse_buffer() call.
 */
#ifndef ADVSHIM_AB_EXP_GET_H
#define ADVSHIM_AB_EXP_GET_H

#include <libconfig.h>
#include <stdbool.h>
#include <stddef.h>

#include "common/confcheck.h"
#include "tools/ab/exp.h"

struct exp_parser {
	struct conf_ctx cc;		/* errors go to the caller's exp_error */
	struct experiment *e;		/* what is parsed so far */
};

/* kname - "@what@key" into @buf (@size bytes) for messages; returns @buf. */
const char *kname(char *buf, size_t size, const char *what, const char *key);

/*
 * get_str - string member @key of @g, not empty, copied into *@out (the
 * old value freed).  Absent: -1 if @required, else 0 with *@out untouched.
 */
int get_str(struct exp_parser *ps, const config_setting_t *g, const char *what,
	    const char *key, bool required, char **out);

/*
 * need_member - "@what\"@key\" is required" (against @g) unless @g has a
 * member @key: for a member whose getter takes it as optional.  0 or -1.
 */
int need_member(struct exp_parser *ps, const config_setting_t *g,
		const char *what, const char *key);

/* get_num - optional number member @key of @g in [@min, @max]; 0 or -1. */
int get_num(struct exp_parser *ps, const config_setting_t *g, const char *what,
	    const char *key, double min, double max, double *out);

/* get_uint - optional integer member @key of @g in [@min, @max]; 0 or -1. */
int get_uint(struct exp_parser *ps, const config_setting_t *g, const char *what,
	     const char *key, unsigned int min, unsigned int max,
	     unsigned int *out);

/* get_bool - optional boolean member @key of @g as 0 or 1; 0 or -1. */
int get_bool(struct exp_parser *ps, const config_setting_t *g, const char *what,
	     const char *key, int *out);

/*
 * get_strv - optional member @key of @g, an array of strings, copied into
 * a NULL-terminated *@out with *@n strings (the old vector freed); with
 * @nonempty an empty array is an error.  On failure *@out and *@n hold
 * what was copied so far (for exp_free()).  Returns 0 or -1.
 */
int get_strv(struct exp_parser *ps, const config_setting_t *g, const char *what,
	     const char *key, bool nonempty, char ***out, size_t *n);

/*
 * get_groups - member @key of @g, a list of groups, as a zeroed array of
 * its length of @size-byte elements (the caller's to free) with the list
 * in *@list and its length in *@n.  NULL with *@n 0 when it is absent or
 * empty (an error when @required: *@n -1), NULL with *@n -1 on any other
 * error (wrong type, an element not a group, no memory).
 */
void *get_groups(struct exp_parser *ps, const config_setting_t *g,
		 const char *key, bool required, size_t size,
		 config_setting_t **list, int *n);

/* One element @g, number @i, of a list of groups; 0 or -1 (reported). */
typedef int (*group_fn)(struct exp_parser *ps, const config_setting_t *g,
			int i, void *ctx);

/*
 * each_group - @fn(@ps, element, i, @ctx) for every element of @list in
 * order; *@count is set to i + 1 before each call so that exp_free()
 * releases an element that failed half way.  Stops at the first failure:
 * returns 0 or -1.
 */
int each_group(struct exp_parser *ps, const config_setting_t *list,
	       size_t *count, group_fn fn, void *ctx);

/*
 * group_head - what every named element of a list starts with: its line
 * into *@line, "@list[N]: " (N = @i + 1) into @what (@size bytes), its keys
 * checked against @keys (", " separated), and its required "name", a
 * valid name (check_name()) that no earlier element of the list has, into
 * *@name.  Returns 0 or -1 (reported).
 */
int group_head(struct exp_parser *ps, const config_setting_t *g,
	       const char *list, int i, const char *keys, char *what,
	       size_t size, int *line, char **name);

/*
 * check_name - @name (of the group @g) is at most 32 letters, digits, '-',
 * '_' and '.' (not first): it ends up in paths and table heads.  0 or -1.
 */
int check_name(struct exp_parser *ps, const config_setting_t *g,
	       const char *what, const char *name);

/*
 * check_subst_v - every ${...} in the @n strings of @v is known
 * (exp_check_subst() against the experiment so far); else -1, reported
 * at @s.
 */
int check_subst_v(struct exp_parser *ps, const config_setting_t *s,
		  const char *what, char *const *v, size_t n);

/*
 * exp_parse_arms - the "arms" list of @root into ps->e->arms; needs the
 * workloads parsed (overrides name them).  0 or -1 (reported).
 */
int exp_parse_arms(struct exp_parser *ps, const config_setting_t *root);

#endif /* ADVSHIM_AB_EXP_GET_H */
