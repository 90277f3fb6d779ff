// SPDX-License-Identifier: MIT
/*
 * glob.c - path globs for policy rules.
 *
 * A pattern and a path are both sequences of components separated by '/'
 * ("/a/b" is "", "a", "b").  `**` as a whole component matches zero or more
 * path components; inside a component `*` matches any run of characters,
 * `?` one character, `[...]`/`[!...]` one character of a class, `\c` the
 * character c.  None of them ever matches '/'.
 *
 * The shim calls glob_match() on every new file mapping, from any thread,
 * possibly inside an allocator's mmap: it allocates nothing, does not
 * recurse, and runs in O(pattern * path) time.  Both levels (components,
 * and characters inside a component) use the classic wildcard walk that
 * remembers only the last star: because a star absorbs any run, retrying
 * from the most recent star is enough, and no pattern (a chain of `**`
 * components before a literal, or `*a*a*a*b`) can make it backtrack
 * exponentially.
 */
#include <string.h>

#include "policy/policy.h"

/* End of the component starting at @s: the next '/' or the NUL. */
static const char *comp_end(const char *s)
{
	return strchrnul(s, '/');
}

/* Start of the component after the one starting at @s, or NULL. */
static const char *comp_next(const char *s)
{
	const char *e = comp_end(s);

	return *e == '/' ? e + 1 : NULL;
}

static bool comp_is_globstar(const char *p)
{
	return p[0] == '*' && p[1] == '*' && (p[2] == '/' || p[2] == '\0');
}

/*
 * class_match - does @c belong to the class whose '[' is at @p?  Sets
 * *next just past the closing ']'.  The pattern was validated, but stay
 * safe on unvalidated input: an unterminated class matches a literal '['.
 */
static bool class_match(const char *p, const char *pe, char c,
			const char **next)
{
	const char *q = p + 1;
	bool negate = false, found = false;
	unsigned char lo, hi;

	if (q < pe && (*q == '!' || *q == '^')) {
		negate = true;
		q++;
	}
	/* A ']' right after '[' or '[!' is a member, not the end. */
	if (q < pe && *q == ']') {
		found |= c == ']';
		q++;
	}
	while (q < pe && *q != ']') {
		if (*q == '\\' && q + 1 < pe)
			q++;
		lo = (unsigned char)*q++;
		hi = lo;
		if (q + 1 < pe && *q == '-' && q[1] != ']') {
			q++;
			if (*q == '\\' && q + 1 < pe)
				q++;
			hi = (unsigned char)*q++;
		}
		if ((unsigned char)c >= lo && (unsigned char)c <= hi)
			found = true;
	}
	if (q >= pe) {
		*next = p + 1;
		return c == '[';
	}
	*next = q + 1;
	return found != negate;
}

/*
 * one_match - match the single-character element at *pp against @c and
 * advance *pp past it on success.
 */
static bool one_match(const char **pp, const char *pe, char c)
{
	const char *p = *pp;

	switch (*p) {
	case '?':
		*pp = p + 1;
		return true;
	case '[':
		return class_match(p, pe, c, pp);
	case '\\':
		if (p + 1 < pe)
			p++;
		/* fall through */
	default:
		if (*p != c)
			return false;
		*pp = p + 1;
		return true;
	}
}

/* comp_match - pattern component [p, pe) against path component [s, se). */
static bool comp_match(const char *p, const char *pe,
		       const char *s, const char *se)
{
	const char *star_p = NULL, *star_s = NULL;

	while (s < se) {
		if (p < pe && *p == '*') {
			while (p < pe && *p == '*')
				p++;
			star_p = p;
			star_s = s;
			continue;
		}
		if (p < pe && one_match(&p, pe, *s)) {
			s++;
			continue;
		}
		if (!star_p)
			return false;
		p = star_p;
		s = ++star_s;
	}
	while (p < pe && *p == '*')
		p++;
	return p == pe;
}

/*
 * glob_match - see policy.h.  Components are walked like characters in
 * comp_match(): a `**` is the star, every other pattern component must
 * match exactly one path component.
 */
bool glob_match(const char *pattern, const char *path)
{
	const char *p = pattern, *s = path;
	const char *star_p = NULL, *star_s = NULL;

	if (!pattern || !path)
		return false;
	while (s) {
		if (p && comp_is_globstar(p)) {
			while (p && comp_is_globstar(p))
				p = comp_next(p);
			star_p = p;
			star_s = s;
			if (!p)
				return true;	/* trailing `**` takes the rest */
			continue;
		}
		if (p && comp_match(p, comp_end(p), s, comp_end(s))) {
			p = comp_next(p);
			s = comp_next(s);
			continue;
		}
		if (!star_p)
			return false;
		p = star_p;
		star_s = comp_next(star_s);
		s = star_s;
	}
	while (p && comp_is_globstar(p))
		p = comp_next(p);
	return !p;
}

/*
 * glob_matches_everything - true if @pattern matches every absolute path:
 * only `**` components, after an optional leading '/'.
 */
bool glob_matches_everything(const char *pattern)
{
	const char *p = pattern;

	if (!p || !*p)
		return false;
	if (*p == '/')
		p++;
	while (p) {
		if (!comp_is_globstar(p))
			return false;
		p = comp_next(p);
	}
	return true;
}

/* validate_class - the class at @p (a '['); returns its end or NULL. */
static const char *validate_class(const char *p, const char **why)
{
	const char *q = p + 1;
	unsigned char lo, hi;
	int members = 0;

	if (*q == '!' || *q == '^')
		q++;
	if (*q == ']') {
		q++;
		members++;
	}
	while (*q && *q != ']') {
		if (*q == '/') {
			*why = "'/' inside [...] (a class never matches '/')";
			return NULL;
		}
		if (*q == '\\') {
			if (!q[1] || q[1] == '/') {
				*why = "'\\' at the end of a [...] class";
				return NULL;
			}
			q++;
		}
		lo = (unsigned char)*q++;
		hi = lo;
		if (*q == '-' && q[1] && q[1] != ']' && q[1] != '/') {
			q++;
			if (*q == '\\' && q[1])
				q++;
			hi = (unsigned char)*q++;
			if (hi < lo) {
				*why = "reversed range in [...] (like [z-a])";
				return NULL;
			}
		}
		members++;
	}
	if (*q != ']') {
		*why = "unbalanced '[' (missing ']')";
		return NULL;
	}
	if (!members) {
		*why = "empty [] class";
		return NULL;
	}
	return q;
}

/* validate_comp - one pattern component [p, e); 0 or -1 + *why. */
static int validate_comp(const char *p, const char *e, const char **why)
{
	const char *q;
	size_t len = (size_t)(e - p);

	if (len == 2 && p[0] == '*' && p[1] == '*')
		return 0;
	if ((len == 1 && p[0] == '.') ||
	    (len == 2 && p[0] == '.' && p[1] == '.')) {
		*why = "'.' or '..' component (mapped paths are canonical, "
		       "it can never match)";
		return -1;
	}
	for (q = p; q < e; q++) {
		switch (*q) {
		case '*':
			if (q + 1 < e && q[1] == '*') {
				*why = "'**' must be a whole path component "
				       "(like a/**/b), not part of one";
				return -1;
			}
			break;
		case '[':
			q = validate_class(q, why);
			if (!q)
				return -1;
			break;
		case '\\':
			if (q + 1 >= e) {
				*why = "'\\' at the end of a component "
				       "(nothing to escape)";
				return -1;
			}
			q++;
			break;
		default:
			break;
		}
	}
	return 0;
}

int glob_validate(const char *pattern, const char **why)
{
	const char *p, *e;
	const char *dummy;

	if (!why)
		why = &dummy;
	if (!pattern || !*pattern) {
		*why = "empty pattern";
		return -1;
	}
	if (pattern[0] != '/' && !comp_is_globstar(pattern)) {
		*why = "not absolute (mapped paths are absolute: start the "
		       "pattern with '/' or '**/')";
		return -1;
	}
	if (pattern[strlen(pattern) - 1] == '/') {
		*why = "trailing '/' (mapped files are never directories: "
		       "use dir/** for everything below dir)";
		return -1;
	}
	p = pattern[0] == '/' ? pattern + 1 : pattern;
	for (; p; p = comp_next(p)) {
		e = comp_end(p);
		if (e == p) {
			*why = "empty path component ('//')";
			return -1;
		}
		if (validate_comp(p, e, why))
			return -1;
	}
	return 0;
}
