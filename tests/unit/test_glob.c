// SPDX-License-Identifier: MIT
/*
 * test_glob.c - glob_match and glob_validate, edge cases included, and a
 * pathological pattern that would take exponential time with naive
 * backtracking (the test would then not finish).
 */
#include <criterion/criterion.h>
#include <string.h>

#include "policy/policy.h"

#define YES(pat, path) \
	cr_expect(glob_match(pat, path), "\"%s\" should match \"%s\"", pat, path)
#define NO(pat, path) \
	cr_expect(!glob_match(pat, path), "\"%s\" should not match \"%s\"", \
		  pat, path)

Test(glob, literal)
{
	YES("/a/b", "/a/b");
	NO("/a/b", "/a/bc");
	NO("/a/b", "/a");
	NO("/a/b", "/a/b/c");
	NO("/a", "a");
}

Test(glob, star_stays_in_component)
{
	YES("/data/*.vec", "/data/x.vec");
	YES("/data/*.vec", "/data/.vec");
	NO("/data/*.vec", "/data/sub/x.vec");
	YES("/data/*", "/data/x");
	NO("/data/*", "/data/x/y");
	YES("/*/*", "/a/b");
	YES("/a*b*c", "/abc");
	YES("/a*b*c", "/axxbyyc");
	NO("/a*b*c", "/axxbyy");
	YES("/*x*", "/x");
	YES("/**/a*", "/q/a");
}

Test(glob, question_mark)
{
	YES("/a?c", "/abc");
	NO("/a?c", "/ac");
	NO("/a?c", "/a/c");
	YES("/_?.cfs", "/_0.cfs");
}

Test(glob, globstar)
{
	YES("**", "/");
	YES("**", "/a/b/c");
	YES("/**", "/a");
	YES("**/*.vec", "/x.vec");
	YES("**/*.vec", "/a/b/c/x.vec");
	NO("**/*.vec", "/a/b/c/x.vecx");
	YES("/data/**", "/data/a/b");
	YES("/data/**", "/data");	/* zero components */
	NO("/data/**", "/database/x");
	YES("/data/**/x", "/data/x");
	YES("/data/**/x", "/data/a/b/x");
	NO("/data/**/x", "/data/a/b/y");
	YES("/a/**/b/**/c", "/a/b/c");
	YES("/a/**/b/**/c", "/a/q/b/r/s/c");
	NO("/a/**/b/**/c", "/a/q/r/s/c");
	YES("**/**/x", "/x");
	YES("/var/lib/opensearch/**/*.cfs", "/var/lib/opensearch/n/0/_1.cfs");
}

Test(glob, classes)
{
	YES("/a[bc]d", "/abd");
	YES("/a[bc]d", "/acd");
	NO("/a[bc]d", "/aed");
	YES("/a[!bc]d", "/aed");
	NO("/a[!bc]d", "/abd");
	YES("/a[^b]d", "/acd");
	YES("/[a-c]x", "/bx");
	NO("/[a-c]x", "/dx");
	YES("/[]]", "/]");
	YES("/[!]]", "/a");
	NO("/[!]]", "/]");
	YES("/[a-]", "/-");
	YES("/_[0-9].cfs", "/_7.cfs");
	NO("/a[!x]b", "/a/b");	/* a class never matches '/' */
}

Test(glob, escapes)
{
	YES("/a\\*b", "/a*b");
	NO("/a\\*b", "/axb");
	YES("/a\\?", "/a?");
	YES("/\\[x]", "/[x]");
}

Test(glob, null_and_empty)
{
	cr_expect(!glob_match(NULL, "/a"));
	cr_expect(!glob_match("**", NULL));
	YES("**", "");
}

/*
 * Naive recursive matching of these takes about (path length)^(number of
 * stars) steps; the linear walk answers at once.
 */
Test(glob, pathological, .timeout = 10)
{
	char path[4096], comp[4096], pat[512];
	size_t i;

	strcpy(path, "");
	for (i = 0; i < 400; i++)
		strcat(path, "/a");
	strcpy(pat, "");
	for (i = 0; i < 40; i++)
		strcat(pat, "**/");
	strcat(pat, "b");
	NO(pat, path);
	strcat(path, "/b");
	YES(pat, path);

	memset(comp, 'a', 4000);
	comp[0] = '/';
	comp[4000] = '\0';
	strcpy(pat, "/");
	for (i = 0; i < 60; i++)
		strcat(pat, "*a");
	strcat(pat, "*b");
	NO(pat, comp);
	/* Mixed levels: many `**` each followed by a starred component. */
	strcpy(pat, "");
	for (i = 0; i < 30; i++)
		strcat(pat, "/**/*a*");
	strcat(pat, "/c");
	NO(pat, path);
	pat[strlen(pat) - 1] = 'b';
	YES(pat, path);
}

Test(glob, matches_everything)
{
	cr_expect(glob_matches_everything("**"));
	cr_expect(glob_matches_everything("/**"));
	cr_expect(glob_matches_everything("**/**"));
	cr_expect(!glob_matches_everything("**/*"));
	cr_expect(!glob_matches_everything("/a/**"));
	cr_expect(!glob_matches_everything(""));
	cr_expect(!glob_matches_everything(NULL));
}

static void valid(const char *pat)
{
	const char *why = NULL;

	cr_expect_eq(glob_validate(pat, &why), 0, "\"%s\": %s", pat,
		     why ? why : "");
}

static void invalid(const char *pat, const char *frag)
{
	const char *why = NULL;

	cr_expect_eq(glob_validate(pat, &why), -1, "\"%s\" accepted", pat);
	cr_expect(why && strstr(why, frag), "\"%s\": \"%s\" lacks \"%s\"",
		  pat, why ? why : "(null)", frag);
}

Test(glob, validate_good)
{
	valid("**");
	valid("/**");
	valid("**/*.vec");
	valid("/data/**/x");
	valid("/a[!b]c");
	valid("/[]]");
	valid("/a\\*b");
	valid("/a/[a-z0-9_]*.cfs");
	valid("/.hidden/x");
}

Test(glob, validate_bad)
{
	invalid("", "empty pattern");
	invalid(NULL, "empty pattern");
	invalid("*.vec", "not absolute");
	invalid("data/**", "not absolute");
	invalid("**x/a", "not absolute");
	invalid("/a**b", "'**' must be a whole path component");
	invalid("/a/**b", "'**' must be a whole path component");
	invalid("/a/***", "'**' must be a whole path component");
	invalid("/a/", "trailing '/'");
	invalid("/", "trailing '/'");
	invalid("**/", "trailing '/'");
	invalid("/a//b", "empty path component");
	invalid("/a/./b", "'.' or '..'");
	invalid("/a/..", "'.' or '..'");
	invalid("/a/[bc", "unbalanced '['");
	invalid("/a/[", "unbalanced '['");
	invalid("/a[/]b", "'/' inside");
	invalid("/[z-a]", "reversed range");
	invalid("/a\\", "'\\' at the end");
	invalid("/a\\/b", "'\\' at the end");
	/* A NULL why pointer is allowed. */
	cr_expect_eq(glob_validate("x", NULL), -1);
}
