// SPDX-License-Identifier: MIT
/*
 * test_common_optdoc.c - one table of options as getopt_long's table and
 * short option string (parsed by the C library's getopt_long), and as
 * --help's lines: columns, alignment of long-only options, wrapping,
 * runs of spaces, an empty help; a full set and a value getopt keeps for
 * itself refused whole; the short option string filled to its last byte
 * (make BUILD=build-asan SANITIZER=address check-common finds an overrun).
 */
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/optdoc.h"

enum { O_LONG_ONLY = 256, O_FLAG };

/* What the test wrote to its redirected stderr so far contains @want. */
static void stderr_has(const char *want)
{
	static char buf[4096];
	static size_t len;

	fflush(stderr);
	len += fread(buf + len, 1, sizeof(buf) - 1 - len,
		     cr_get_redirected_stderr());
	buf[len] = '\0';
	cr_assert_not_null(strstr(buf, want), "stderr: \"%s\"", buf);
}

static const struct optdoc opts[] = {
	{ "threads", 't', "N", "reader threads (default 4)" },
	{ "long-only", O_LONG_ONLY, "X", "no short form" },
	{ "flag", O_FLAG, NULL, "a flag" },
	{ "json", 'j', NULL, "JSON lines" },
};

Test(optdoc, getopt_table_and_short_options)
{
	struct optdoc_set s;

	cr_assert_eq(optdoc_init(&s, "+", opts, OPTDOC_NR(opts)), 0);
	cr_assert_str_eq(s.shortopts, "+t:j");
	cr_assert_eq(s.nr, 4);
	cr_assert_str_eq(s.lo[1].name, "long-only");
	cr_assert_eq(s.lo[1].has_arg, required_argument);
	cr_assert_eq(s.lo[1].val, O_LONG_ONLY);
	cr_assert_eq(s.lo[2].has_arg, no_argument);
	cr_assert_null(s.lo[2].flag);
	cr_assert_null(s.lo[4].name, "terminated");
	cr_assert_eq(s.lo[4].val, 0);
	cr_assert_eq(optdoc_add(&s, opts, 1), 0);
	cr_assert_str_eq(s.shortopts, "+t:jt:");
	cr_assert_null(s.lo[5].name);
}

/* The C library's getopt_long over the set: every form of each option. */
Test(optdoc, parsed_by_getopt_long)
{
	char *argv[] = { "prog", "-t", "3", "--long-only=v", "--flag", "-j",
			 "--threads", "5", "rest", NULL };
	int want[] = { 't', O_LONG_ONLY, O_FLAG, 'j', 't' };
	const char *arg[] = { "3", "v", NULL, NULL, "5" };
	struct optdoc_set s;
	size_t i = 0;
	int c;

	optdoc_init(&s, "", opts, OPTDOC_NR(opts));
	optind = 0;	/* glibc: start afresh */
	while ((c = optdoc_getopt(&s, 9, argv)) != -1) {
		cr_assert_lt(i, OPTDOC_NR(want));
		cr_assert_eq(c, want[i], "option %zu: %d", i, c);
		if (arg[i])
			cr_assert_str_eq(optarg, arg[i]);
		i++;
	}
	cr_assert_eq(i, OPTDOC_NR(want));
	cr_assert_str_eq(argv[optind], "rest");
}

/* Every option short with an argument, a two-character prefix: full. */
Test(optdoc, full_set_refused_whole, .init = cr_redirect_stderr)
{
	static struct optdoc many[OPTDOC_MAX];
	struct optdoc_set s;
	char want[64];
	size_t i;

	for (i = 0; i < OPTDOC_MAX; i++)
		many[i] = (struct optdoc){ "x", 'x', "X", "" };
	cr_assert_eq(optdoc_init(&s, "+:", many, OPTDOC_MAX - 1), 0);
	cr_assert_eq(optdoc_add(&s, many, 1), 0);
	cr_assert_not(s.bad);
	cr_assert_eq(strlen(s.shortopts), 2 + 2 * OPTDOC_MAX);
	cr_assert_eq(s.shortopts[sizeof(s.shortopts) - 1], '\0');
	cr_assert_null(s.lo[OPTDOC_MAX].name);
	cr_assert_eq(optdoc_add(&s, opts, 1), -1);
	cr_assert_eq(s.nr, OPTDOC_MAX, "unchanged");
	cr_assert(s.bad);
	snprintf(want, sizeof(want), ": internal error: more than %d options\n",
		 OPTDOC_MAX);
	stderr_has(want);
}

/* Values getopt_long returns of its own (1, '?', ':') are refused. */
Test(optdoc, value_getopt_keeps_refused, .init = cr_redirect_stderr)
{
	static const struct optdoc bad[] = {
		{ "fine", 'f', NULL, "" },
		{ "one", 1, NULL, "" },
	};
	char *argv[] = { "prog", "--fine", NULL };
	struct optdoc_set s;

	cr_assert_eq(optdoc_init(&s, "", bad, OPTDOC_NR(bad)), -1);
	cr_assert_eq(s.nr, 0, "unchanged");
	cr_assert_str_eq(s.shortopts, "");
	optind = 0;
	cr_assert_eq(optdoc_getopt(&s, 2, argv), '?', "a bad set stops the parse");
	cr_assert_eq(optdoc_add(&s, &(struct optdoc){ "q", '?', NULL, "" }, 1), -1);
	stderr_has(": internal error: option --one: value 1\n");
	stderr_has(": internal error: option --q: value 63\n");
}

Test(optdoc, find)
{
	cr_assert_eq(optdoc_find(opts, OPTDOC_NR(opts), O_FLAG), &opts[2]);
	cr_assert_eq(optdoc_find(opts, OPTDOC_NR(opts), 'j'), &opts[3]);
	cr_assert_null(optdoc_find(opts, OPTDOC_NR(opts), 'q'));
	cr_assert_eq(optdoc_short(&opts[0]), 't');
	cr_assert_eq(optdoc_short(&opts[1]), 0);
}

/* What @fn wrote to a memory stream, as a string to free(). */
static char *captured(void (*fn)(FILE *))
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cr_assert_not_null(f);
	fn(f);
	cr_assert_eq(fclose(f), 0);
	return buf;
}

static void help_all(FILE *f)
{
	optdoc_help(f, "usage: prog\n", opts, OPTDOC_NR(opts), "end\n");
}

Test(optdoc, help_columns_and_alignment)
{
	char *out = captured(help_all);

	cr_assert_str_eq(out,
		"usage: prog\n"
		"  -t, --threads N          reader threads (default 4)\n"
		"      --long-only X        no short form\n"
		"      --flag               a flag\n"
		"  -j, --json               JSON lines\n"
		"end\n");
	free(out);
}

static void put_unaligned_long_name(FILE *f)
{
	const struct optdoc o = { "a-very-long-option-name", 0, "VALUE",
				  "help" };

	optdoc_put(f, &o, false);
}

Test(optdoc, long_name_pushes_help_two_spaces_on)
{
	char *out = captured(put_unaligned_long_name);

	cr_assert_str_eq(out, "  --a-very-long-option-name VALUE  help\n");
	free(out);
}

static void put_spaced(FILE *f)
{
	const struct optdoc o = { "gap", 'g', NULL,
		"  two  spaces   between words, and a long line so that the "
		"wrap  comes after a run of  spaces  " };
	const struct optdoc empty = { "empty", 0, NULL, "" };

	optdoc_put(f, &o, true);
	optdoc_put(f, &empty, false);
}

Test(optdoc, runs_of_spaces_count_as_one)
{
	char *out = captured(put_spaced);

	cr_assert_str_eq(out,
		"  -g, --gap                two spaces between words, and a long line so that\n"
		"                           the wrap comes after a run of spaces\n"
		"  --empty\n");
	free(out);
}

static void put_wrapped(FILE *f)
{
	const struct optdoc o = { "size", 's', "SIZE",
		"create FILE with SIZE random bytes if missing; an existing "
		"FILE must have this size, and a-word-much-longer-than-the-"
		"rest-of-the-line-that-cannot-be-broken stays whole" };

	optdoc_put(f, &o, true);
}

Test(optdoc, help_wraps_at_spaces_before_the_width)
{
	char *out = captured(put_wrapped), *line, *save = NULL;
	int n = 0;

	cr_assert_str_eq(out,
		"  -s, --size SIZE          create FILE with SIZE random bytes if missing; an\n"
		"                           existing FILE must have this size, and\n"
		"                           a-word-much-longer-than-the-rest-of-the-line-that-cannot-be-broken\n"
		"                           stays whole\n");
	for (line = strtok_r(out, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save), n++)
		if (!strstr(line, "cannot"))
			cr_assert_leq(strlen(line), OPTDOC_WIDTH, "line %d", n);
	free(out);
}
