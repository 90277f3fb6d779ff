// SPDX-License-Identifier: MIT
/*
 * exp_subst.c - ${...} substitutions in experiment strings.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/ab/exp.h"

static const char *const simple_vars[] = {
	"BUILD", "DIR", "OUT", "ARM", "MEMCG", "LIMIT_MIB", "DURATION_S",
	"INTERVAL_MS", NULL,
};

static int find_file(const struct experiment *e, const char *name, size_t len)
{
	for (size_t i = 0; i < e->nfiles; i++)
		if (strlen(e->files[i].name) == len &&
		    !strncmp(e->files[i].name, name, len))
			return (int)i;
	return -1;
}

static bool is_simple(const char *name, size_t len)
{
	for (int i = 0; simple_vars[i]; i++)
		if (strlen(simple_vars[i]) == len &&
		    !strncmp(simple_vars[i], name, len))
			return true;
	return false;
}

int exp_check_subst(const struct experiment *e, const char *s,
		    const char **why, char *bad, size_t size)
{
	for (const char *p = strstr(s, "${"); p; p = strstr(p, "${")) {
		const char *name = p + 2, *end = strchr(name, '}');
		size_t len;

		if (!end) {
			*why = "unterminated substitution";
			snprintf(bad, size, "%s", p);
			return -1;
		}
		len = (size_t)(end - name);
		if (len > 5 && !strncmp(name, "file:", 5)) {
			if (find_file(e, name + 5, len - 5) < 0) {
				*why = "no file in \"files\" is named";
				snprintf(bad, size, "%.*s", (int)(len - 5), name + 5);
				return -1;
			}
		} else if (!is_simple(name, len)) {
			*why = "unknown substitution (known: ${BUILD} ${DIR} ${OUT} ${ARM} ${MEMCG} ${LIMIT_MIB} ${DURATION_S} ${INTERVAL_MS} ${file:NAME})";
			snprintf(bad, size, "${%.*s}", (int)len, name);
			return -1;
		}
		p = end + 1;
	}
	return 0;
}

/* The value of ${name} (len bytes); *tmp is a scratch buffer. */
static const char *value_of(const struct experiment *e,
			    const struct exp_vars *v, const char *name,
			    size_t len, char *tmp, size_t size, int depth)
{
	int f;

#define IS(s) (len == sizeof(s) - 1 && !strncmp(name, s, len))
	if (IS("BUILD"))
		return v->build;
	if (IS("DIR"))
		return v->dir ? v->dir : e->dir;
	if (IS("OUT"))
		return v->out;
	if (IS("ARM"))
		return v->arm;
	if (IS("MEMCG"))
		return v->memcg;
	if (IS("LIMIT_MIB")) {
		snprintf(tmp, size, "%llu", (unsigned long long)e->limit_mib);
		return tmp;
	}
	if (IS("DURATION_S")) {
		snprintf(tmp, size, "%g", e->duration_s);
		return tmp;
	}
	if (IS("INTERVAL_MS")) {
		snprintf(tmp, size, "%u", e->interval_ms);
		return tmp;
	}
#undef IS
	if (len > 5 && !strncmp(name, "file:", 5) && depth == 0) {
		f = find_file(e, name + 5, len - 5);
		return f < 0 ? NULL : e->files[f].path;
	}
	return NULL;
}

static int expand(const struct experiment *e, const struct exp_vars *v,
		  const char *in, char **out, int depth)
{
	size_t cap = strlen(in) + 1, len = 0;
	char *buf = malloc(cap), tmp[32];

	if (!buf)
		return -1;
	while (*in) {
		const char *val, *end;
		char *sub = NULL;
		size_t n;

		if (in[0] != '$' || in[1] != '{' || !(end = strchr(in + 2, '}'))) {
			val = in;
			n = 1;
		} else {
			val = value_of(e, v, in + 2, (size_t)(end - in - 2), tmp,
				       sizeof(tmp), depth);
			if (!val) {
				free(buf);
				errno = EINVAL;
				return -1;
			}
			/* File paths hold ${DIR}/${BUILD}: expand once more. */
			if (depth == 0 && strstr(val, "${")) {
				if (expand(e, v, val, &sub, depth + 1)) {
					free(buf);
					return -1;
				}
				val = sub;
			}
			n = strlen(val);
			in = end;
		}
		if (len + n + 1 > cap) {
			char *nb;

			cap = (len + n + 1) * 2;
			nb = realloc(buf, cap);
			if (!nb) {
				free(sub);
				free(buf);
				return -1;
			}
			buf = nb;
		}
		memcpy(buf + len, val, n);
		len += n;
		in++;
		free(sub);
	}
	buf[len] = '\0';
	*out = buf;
	return 0;
}

int exp_expand(const struct experiment *e, const struct exp_vars *v,
	       const char *in, char **out)
{
	return expand(e, v, in, out, 0);
}
