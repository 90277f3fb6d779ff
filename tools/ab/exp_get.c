// SPDX-License-Identifier: MIT
/*
 * exp_get.c - the experiment parser's typed readers of libconfig members
 * (exp_get.h): strings, numbers, booleans, string arrays, lists of groups,
 * names and substitutions, each reporting FILE:LINE: message.
 */
#include <libconfig.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/confcheck.h"
#include "tools/ab/exp.h"
#include "tools/ab/exp_get.h"

const char *kname(char *buf, size_t size, const char *what, const char *key)
{
	snprintf(buf, size, "%s%s", what, key);
	return buf;
}

static int dupstr(struct exp_parser *ps, const config_setting_t *s,
		  const char *v, char **out)
{
	free(*out);
	*out = strdup(v);
	return *out ? 0 : perr(ps, s, "out of memory");
}

int need_member(struct exp_parser *ps, const config_setting_t *g,
		const char *what, const char *key)
{
	if (config_setting_get_member(g, key))
		return 0;
	return perr(ps, g, "%s\"%s\" is required", what, key);
}

int get_str(struct exp_parser *ps, const config_setting_t *g, const char *what,
	    const char *key, bool required, char **out)
{
	config_setting_t *s = config_setting_get_member(g, key);
	const char *v;
	char name[128];

	if (!s)
		return required ? need_member(ps, g, what, key) : 0;
	v = conf_get_string(&ps->cc, s, kname(name, sizeof(name), what, key));
	if (!v)
		return -1;
	if (!*v)
		return perr(ps, s, "%s\"%s\" must not be empty", what, key);
	return dupstr(ps, s, v, out);
}

int get_num(struct exp_parser *ps, const config_setting_t *g, const char *what,
	    const char *key, double min, double max, double *out)
{
	config_setting_t *s = config_setting_get_member(g, key);
	char name[128];

	return s ? conf_get_num(&ps->cc, s, kname(name, sizeof(name), what, key),
				min, max, out) : 0;
}

int get_uint(struct exp_parser *ps, const config_setting_t *g, const char *what,
	     const char *key, unsigned int min, unsigned int max,
	     unsigned int *out)
{
	config_setting_t *s = config_setting_get_member(g, key);
	char name[128];
	long long v;

	if (!s)
		return 0;
	if (conf_get_int(&ps->cc, s, kname(name, sizeof(name), what, key),
			 min, max, &v))
		return -1;
	*out = (unsigned int)v;
	return 0;
}

int get_bool(struct exp_parser *ps, const config_setting_t *g, const char *what,
	     const char *key, int *out)
{
	config_setting_t *s = config_setting_get_member(g, key);
	char name[128];
	bool v;

	if (!s)
		return 0;
	if (conf_get_bool(&ps->cc, s, kname(name, sizeof(name), what, key), &v))
		return -1;
	*out = v;
	return 0;
}

int get_strv(struct exp_parser *ps, const config_setting_t *g, const char *what,
	     const char *key, bool nonempty, char ***out, size_t *n)
{
	config_setting_t *s = config_setting_get_member(g, key);
	char name[160];
	int len;

	if (!s)
		return 0;
	kname(name, sizeof(name), what, key);
	if (config_setting_type(s) != CONFIG_TYPE_ARRAY &&
	    config_setting_type(s) != CONFIG_TYPE_LIST)
		return conf_type_err(&ps->cc, s, name,
				     "an array of strings [ \"...\" ]");
	len = config_setting_length(s);
	if (nonempty && len == 0)
		return perr(ps, s, "%s\"%s\" must not be empty", what, key);
	free_strv(*out, *n);
	*n = 0;
	*out = calloc((size_t)len + 1, sizeof(char *));
	if (!*out)
		return perr(ps, s, "out of memory");
	for (int i = 0; i < len; i++) {
		config_setting_t *m = config_setting_get_elem(s, (unsigned int)i);
		const char *v;

		snprintf(name, sizeof(name), "%s%s: element %d", what, key, i + 1);
		v = conf_get_string(&ps->cc, m, name);
		if (!v)
			return -1;
		(*out)[i] = strdup(v);
		if (!(*out)[i])
			return perr(ps, m, "out of memory");
		*n = (size_t)i + 1;
	}
	return 0;
}

void *get_groups(struct exp_parser *ps, const config_setting_t *g,
		 const char *key, bool required, size_t size,
		 config_setting_t **list, int *n)
{
	config_setting_t *s = config_setting_get_member(g, key);
	char name[64];
	void *arr;

	*list = s;
	*n = -1;
	if (!s) {
		*n = required ? perr(ps, g, "\"%s\" is required", key) : 0;
		return NULL;
	}
	if (config_setting_type(s) != CONFIG_TYPE_LIST) {
		conf_type_err(&ps->cc, s, key, "a list of groups ( { ... }, ... )");
		return NULL;
	}
	if (config_setting_length(s) == 0) {
		*n = required ? perr(ps, s, "\"%s\" must not be empty", key) : 0;
		return NULL;
	}
	for (int i = 0; i < config_setting_length(s); i++) {
		config_setting_t *m = config_setting_get_elem(s, (unsigned int)i);

		snprintf(name, sizeof(name), "%s: element %d", key, i + 1);
		if (config_setting_type(m) != CONFIG_TYPE_GROUP) {
			conf_type_err(&ps->cc, m, name, "a group { ... }");
			return NULL;
		}
	}
	arr = calloc((size_t)config_setting_length(s), size);
	if (!arr) {
		perr(ps, s, "out of memory");
		return NULL;
	}
	*n = config_setting_length(s);
	return arr;
}

int each_group(struct exp_parser *ps, const config_setting_t *list,
	       size_t *count, group_fn fn, void *ctx)
{
	for (int i = 0; i < config_setting_length(list); i++) {
		*count = (size_t)i + 1;
		if (fn(ps, config_setting_get_elem(list, (unsigned int)i), i, ctx))
			return -1;
	}
	return 0;
}

int group_head(struct exp_parser *ps, const config_setting_t *g,
	       const char *list, int i, const char *keys, char *what,
	       size_t size, int *line, char **name)
{
	const config_setting_t *parent = config_setting_parent(g);
	const char *prev;

	*line = conf_line(g);
	snprintf(what, size, "%s[%d]: ", list, i + 1);
	if (conf_check_keys(&ps->cc, g, what, keys) ||
	    get_str(ps, g, what, "name", true, name) ||
	    check_name(ps, g, what, *name))
		return -1;
	for (int j = 0; parent && j < i; j++) {
		const config_setting_t *e = config_setting_get_elem(parent,
								    (unsigned int)j);

		if (e && config_setting_lookup_string(e, "name", &prev) &&
		    !strcmp(prev, *name))
			return perr(ps, g, "%sname \"%s\" is used twice (first at line %d)",
				    what, *name, conf_line(e));
	}
	return 0;
}

int check_name(struct exp_parser *ps, const config_setting_t *g,
	       const char *what, const char *name)
{
	size_t len = strlen(name);

	if (len > 32)
		return perr(ps, g, "%sname \"%s\" is longer than 32 characters",
			    what, name);
	for (const char *p = name; *p; p++) {
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || *p == '-' || *p == '_' ||
		      (*p == '.' && p != name)))
			return perr(ps, g, "%sname \"%s\": use letters, digits, '-', '_' and '.' only",
				    what, name);
	}
	return 0;
}

int check_subst_v(struct exp_parser *ps, const config_setting_t *s,
		  const char *what, char *const *v, size_t n)
{
	char bad[64];
	const char *why;

	for (size_t i = 0; i < n; i++)
		if (v[i] && exp_check_subst(ps->e, v[i], &why, bad, sizeof(bad)))
			return perr(ps, s, "%s\"%s\": %s \"%s\"", what, v[i],
				    why, bad);
	return 0;
}
