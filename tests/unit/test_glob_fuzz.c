// SPDX-License-Identifier: MIT
/*
 * test_glob_fuzz.c - glob_match() against a plain reference: recursive
 * over components, fnmatch(3) inside a component.  Random small patterns
 * and paths over an alphabet that hits every construct; a fixed seed, so
 * a failure is reproducible (the message names pattern and path).
 */
#include <criterion/criterion.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "policy/policy.h"

#define MAX_COMPS 16

static size_t split(char *s, char **comps)
{
	size_t n = 0;

	for (;;) {
		comps[n++] = s;
		s = strchr(s, '/');
		if (!s || n == MAX_COMPS)
			return n;
		*s++ = '\0';
	}
}

static bool ref_comps(char **p, size_t np, char **s, size_t ns)
{
	if (!np)
		return !ns;
	if (!strcmp(p[0], "**"))
		return ref_comps(p + 1, np - 1, s, ns) ||
		       (ns && ref_comps(p, np, s + 1, ns - 1));
	return ns && !fnmatch(p[0], s[0], 0) &&
	       ref_comps(p + 1, np - 1, s + 1, ns - 1);
}

static bool ref_match(const char *pattern, const char *path)
{
	char pb[256], sb[256], *pc[MAX_COMPS], *sc[MAX_COMPS];
	size_t np, ns;

	snprintf(pb, sizeof(pb), "%s", pattern);
	snprintf(sb, sizeof(sb), "%s", path);
	np = split(pb, pc);
	ns = split(sb, sc);
	return ref_comps(pc, np, sc, ns);
}

static const char *const pat_atoms[] = {
	"a", "b", "/", "*", "?", "[ab]", "[!a]", "/**/", "/**", "**/", "\\*",
	"ab", "[a-b]",
};
static const char *const path_atoms[] = { "a", "b", "/", "ab", "*", "ba" };

static void gen(char *buf, size_t size, const char *const *atoms,
		size_t nr_atoms, size_t max_len)
{
	size_t n = 1 + (size_t)rand() % max_len, i;

	snprintf(buf, size, "/");
	for (i = 0; i < n; i++)
		strncat(buf, atoms[(size_t)rand() % nr_atoms],
			size - strlen(buf) - 1);
}

Test(glob_fuzz, agrees_with_reference)
{
	char pat[128], path[128];
	const char *p;
	size_t tried = 0, valid = 0, matched = 0;

	srand(20261130);
	while (valid < 40000 && tried < 400000) {
		tried++;
		gen(pat, sizeof(pat), pat_atoms,
		    sizeof(pat_atoms) / sizeof(pat_atoms[0]), 6);
		/* Patterns starting with "**" are valid as well. */
		p = (rand() & 3) == 0 && !strncmp(pat, "/**/", 4) ? pat + 1 : pat;
		if (glob_validate(p, NULL))
			continue;
		valid++;
		gen(path, sizeof(path), path_atoms,
		    sizeof(path_atoms) / sizeof(path_atoms[0]), 8);
		if (ref_match(p, path))
			matched++;
		cr_assert_eq(glob_match(p, path), ref_match(p, path),
			     "pattern \"%s\" path \"%s\": glob_match %d, "
			     "reference %d", p, path, glob_match(p, path),
			     ref_match(p, path));
	}
	/* The generator must exercise both outcomes, or the test is empty. */
	cr_expect_geq(valid, 40000);
	cr_expect_gt(matched, 1000, "only %zu matches", matched);
	cr_expect_lt(matched, valid - 1000);
}
