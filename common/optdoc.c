// SPDX-License-Identifier: MIT
/*
 * optdoc.c - getopt_long's table, the short option string and --help's
 * lines from one table of options (optdoc.h).
 */
#include "common/optdoc.h"

#include <errno.h>
#include <string.h>

int optdoc_short(const struct optdoc *o)
{
	int c = o->val;

	if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9'))
		return c;
	return 0;
}

int optdoc_init(struct optdoc_set *s, const char *prefix,
		const struct optdoc *d, size_t n)
{
	memset(s, 0, sizeof(*s));
	strncpy(s->shortopts, prefix, 2);
	return optdoc_add(s, d, n);
}

int optdoc_add(struct optdoc_set *s, const struct optdoc *d, size_t n)
{
	size_t len = strlen(s->shortopts), i;
	int c;

	if (n > OPTDOC_MAX - s->nr) {
		s->bad = true;
		fprintf(stderr, "%s: internal error: more than %d options\n",
			program_invocation_short_name, OPTDOC_MAX);
		return -1;
	}
	for (i = 0; i < n; i++) {
		if (optdoc_short(&d[i]) || d[i].val >= OPTDOC_LONG_ONLY)
			continue;
		s->bad = true;
		fprintf(stderr, "%s: internal error: option --%s: value %d\n",
			program_invocation_short_name, d[i].name, d[i].val);
		return -1;
	}
	for (i = 0; i < n; i++) {
		s->lo[s->nr + i] = (struct option){
			.name = d[i].name,
			.has_arg = d[i].metavar ? required_argument : no_argument,
			.val = d[i].val,
		};
		c = optdoc_short(&d[i]);
		if (!c)
			continue;
		s->shortopts[len++] = (char)c;
		if (d[i].metavar)
			s->shortopts[len++] = ':';
	}
	s->shortopts[len] = '\0';
	s->nr += n;
	s->lo[s->nr] = (struct option){ 0 };
	return 0;
}

int optdoc_getopt(const struct optdoc_set *s, int argc, char **argv)
{
	if (s->bad)
		return '?';
	return getopt_long(argc, argv, s->shortopts, s->lo, NULL);
}

const struct optdoc *optdoc_find(const struct optdoc *d, size_t n, int val)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (d[i].val == val)
			return &d[i];
	return NULL;
}

/* The option's own column: "  -c, --name META" and its width. */
static int put_name(FILE *f, const struct optdoc *o, bool align_long)
{
	int c = optdoc_short(o);
	const char *meta = o->metavar;

	if (c)
		return fprintf(f, "  -%c, --%s%s%s", c, o->name, meta ? " " : "",
			       meta ? meta : "");
	return fprintf(f, "%s--%s%s%s", align_long ? "      " : "  ", o->name,
		       meta ? " " : "", meta ? meta : "");
}

void optdoc_put(FILE *f, const struct optdoc *o, bool align_long)
{
	const char *w = o->help + strspn(o->help, " ");
	bool first = true;
	int col, len;

	col = put_name(f, o, align_long);
	if (col >= 0 && *w)
		col += fprintf(f, "%*s", col <= OPTDOC_HELP_COL - 2 ?
			       OPTDOC_HELP_COL - col : 2, "");
	for (; col >= 0 && *w; w += len + strspn(w + len, " "), first = false) {
		len = (int)strcspn(w, " ");
		if (!first && col + 1 + len > OPTDOC_WIDTH)
			col = fprintf(f, "\n%*s", OPTDOC_HELP_COL, "") - 1;
		else if (!first)
			col += fprintf(f, " ");
		col += fprintf(f, "%.*s", len, w);
	}
	fputc('\n', f);
}

void optdoc_put_n(FILE *f, const struct optdoc *d, size_t n, bool align_long)
{
	size_t i;

	for (i = 0; i < n; i++)
		optdoc_put(f, &d[i], align_long);
}

void optdoc_help(FILE *f, const char *head, const struct optdoc *d, size_t n,
		 const char *tail)
{
	if (head)
		fputs(head, f);
	optdoc_put_n(f, d, n, true);
	if (tail)
		fputs(tail, f);
}
