/* SPDX-License-Identifier: MIT */
/*
 * optdoc.h - a program's options from one table: getopt_long's table,
 * its short option string and the lines of --help.  An option and its
 * documentation cannot drift apart, and every tool wraps --help alike.
 * No allocation and no state of its own; optdoc_getopt() is getopt_long(3),
 * with its globals (optind, optarg, ...) and its messages on stderr;
 * otherwise only optdoc_put() and optdoc_help() print, and optdoc_add()
 * on a faulty table.
 */
#ifndef ADVSHIM_COMMON_OPTDOC_H
#define ADVSHIM_COMMON_OPTDOC_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* --help's text starts in this column and wraps before this width. */
#define OPTDOC_HELP_COL		27
#define OPTDOC_WIDTH		79

/* The number of options in a table (an array, not a pointer). */
#define OPTDOC_NR(table)	(sizeof(table) / sizeof((table)[0]))

/*
 * The most options one optdoc_set holds (getopt's terminator apart); the
 * largest table is advshim-watch's: 12 fixed options and up to 64
 * settings (watch_opts.c asserts that they fit).  struct optdoc_set's
 * arrays are sized from it.
 */
#define OPTDOC_MAX		80

/*
 * One option.  @val is what getopt_long returns for it: an ASCII letter
 * or digit, which is also the short option -@val, or a value from
 * OPTDOC_LONG_ONLY up for a long-only option (below it getopt returns 1,
 * '?' and ':' of its own).
 */
#define OPTDOC_LONG_ONLY	256

struct optdoc {
	const char *name;	/* the long name, without "--" */
	int val;
	const char *metavar;	/* the argument in --help; NULL: none taken */
	const char *help;	/* words single-spaced, no newline: optdoc_put
				   wraps them */
};

/* What getopt_long needs for the options added to it so far. */
struct optdoc_set {
	struct option lo[OPTDOC_MAX + 1];	/* zero-terminated */
	char shortopts[2 + 2 * OPTDOC_MAX + 1];
	size_t nr;
	bool bad;		/* an optdoc_add() failed */
};

/* optdoc_short - @o's short option character, or 0 when long-only. */
int optdoc_short(const struct optdoc *o);

/*
 * optdoc_init - a set whose short option string starts with @prefix (""
 * or getopt's "+" / "-" / ":"; at most two characters) holding the @n
 * options of @d (optdoc_add's return).
 */
int optdoc_init(struct optdoc_set *s, const char *prefix,
		const struct optdoc *d, size_t n);

/*
 * optdoc_add - append the @n options of @d to @s (getopt's table and
 * short options).  Returns 0, or -1 when @s would hold more than
 * OPTDOC_MAX or a val is neither a letter, a digit nor >=
 * OPTDOC_LONG_ONLY; then @s keeps what it had, is marked bad and a line
 * on stderr names the fault (the program table's): optdoc_getopt()
 * answers '?' from then on, so the program stops on its usage error.
 */
int optdoc_add(struct optdoc_set *s, const struct optdoc *d, size_t n);

/*
 * optdoc_getopt - getopt_long(3) over @s, no index: its return; '?' at
 * once when @s is bad (optdoc_add).
 */
int optdoc_getopt(const struct optdoc_set *s, int argc, char **argv);

/*
 * optdoc_find - the entry of @d (@n of them) whose val is @val, or NULL.
 */
const struct optdoc *optdoc_find(const struct optdoc *d, size_t n, int val);

/*
 * optdoc_put - one option's --help line(s) on @f: "  -c, --name META"
 * (or "      --name META" when @align_long and the option has no short
 * form, "  --name META" otherwise), then @o->help from column
 * OPTDOC_HELP_COL (two spaces after a longer name), wrapped at spaces
 * before OPTDOC_WIDTH; a word longer than the line stays whole, runs of
 * spaces count as one, an empty help prints the name alone.  @o->val 0
 * counts as long-only (a line of --help that getopt never sees).
 */
void optdoc_put(FILE *f, const struct optdoc *o, bool align_long);

/*
 * optdoc_put_n - optdoc_put() of each of the @n options of @d, in order,
 * with @align_long as optdoc_put() takes it.
 */
void optdoc_put_n(FILE *f, const struct optdoc *d, size_t n, bool align_long);

/*
 * optdoc_help - --help, or a part of it: @head as it is (NULL: nothing),
 * optdoc_put() of each of the @n options of @d (long-only ones aligned
 * under the long names), then @tail as it is (NULL: nothing).
 */
void optdoc_help(FILE *f, const char *head, const struct optdoc *d, size_t n,
		 const char *tail);

#endif /* ADVSHIM_COMMON_OPTDOC_H */
