// SPDX-License-Identifier: MIT
/*
 * confcheck.c - libconfig setting checks and their one error style.
 */
#include "common/confcheck.h"

#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

char *conf_error_text(char *buf, size_t size, const char *file, int line,
		      const char *msg)
{
	if (line > 0)
		snprintf(buf, size, "%s:%d: %s", file, line, msg);
	else
		snprintf(buf, size, "%s: %s", file, msg);
	return buf;
}

int conf_line(const config_setting_t *s)
{
	for (; s; s = config_setting_parent(s))
		if (config_setting_source_line(s) > 0)
			return (int)config_setting_source_line(s);
	return 1;
}

const char *conf_type_name(const config_setting_t *s)
{
	switch (s ? config_setting_type(s) : CONFIG_TYPE_NONE) {
	case CONFIG_TYPE_GROUP:
		return "a group { ... }";
	case CONFIG_TYPE_INT:
	case CONFIG_TYPE_INT64:
		return "an integer";
	case CONFIG_TYPE_FLOAT:
		return "a floating-point number";
	case CONFIG_TYPE_STRING:
		return "a string";
	case CONFIG_TYPE_BOOL:
		return "a boolean";
	case CONFIG_TYPE_ARRAY:
		return "an array [ ... ]";
	case CONFIG_TYPE_LIST:
		return "a list ( ... )";
	default:
		return "nothing";
	}
}

static void set_file(struct conf_ctx *cc, const char *file)
{
	snprintf(cc->file, cc->file_size, "%s",
		 file ? file : cc->name ? cc->name : "<config>");
}

int conf_verr(struct conf_ctx *cc, const config_setting_t *s,
	      const char *fmt, va_list ap)
{
	set_file(cc, s ? config_setting_source_file(s) : NULL);
	*cc->line = conf_line(s);
	vsnprintf(cc->msg, cc->msg_size, fmt, ap);
	return -1;
}

int conf_err(struct conf_ctx *cc, const config_setting_t *s,
	     const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	conf_verr(cc, s, fmt, ap);
	va_end(ap);
	return -1;
}

int conf_err_line(struct conf_ctx *cc, int line, const char *fmt, ...)
{
	va_list ap;

	set_file(cc, NULL);
	*cc->line = line > 0 ? line : 0;
	va_start(ap, fmt);
	vsnprintf(cc->msg, cc->msg_size, fmt, ap);
	va_end(ap);
	return -1;
}

int conf_syntax_err(struct conf_ctx *cc, const config_t *cfg)
{
	const char *text = config_error_text(cfg);
	int line = config_error_line(cfg);

	set_file(cc, config_error_file(cfg));
	*cc->line = line > 0 ? line : 1;
	snprintf(cc->msg, cc->msg_size, "%s", text ? text : "syntax error");
	return -1;
}

int conf_type_err(struct conf_ctx *cc, const config_setting_t *s,
		  const char *name, const char *expected)
{
	return conf_err(cc, s, "%s: expected %s, got %s", name, expected,
			conf_type_name(s));
}

/* is_whole - @v is an integer that "%.0f" prints exactly (no libm). */
static bool is_whole(double v)
{
	return v > -1e15 && v < 1e15 && (double)(long long)v == v;
}

char *conf_range_text(char *buf, size_t size, const char *name, double v,
		      double lo, double hi)
{
	if (is_whole(v) && is_whole(lo) && is_whole(hi))
		snprintf(buf, size, "%s: %.0f is out of range (expected %.0f "
			 "to %.0f)", name, v, lo, hi);
	else
		snprintf(buf, size, "%s: %g is out of range (expected %g to "
			 "%g)", name, v, lo, hi);
	return buf;
}

int conf_unknown_key(struct conf_ctx *cc, const config_setting_t *s,
		     const char *prefix, const char *keys)
{
	return conf_err(cc, s, "%sunknown key \"%s\" (expected %s)",
			prefix ? prefix : "", config_setting_name(s), keys);
}

/* key_listed - @key is one of the ", " separated @keys. */
static bool key_listed(const char *keys, const char *key)
{
	size_t len = strlen(key);
	const char *p = keys;

	while ((p = strstr(p, key))) {
		if ((p == keys || p[-1] == ' ') &&
		    (p[len] == ',' || p[len] == '\0'))
			return true;
		p += len;
	}
	return false;
}

int conf_check_keys(struct conf_ctx *cc, const config_setting_t *g,
		    const char *prefix, const char *keys)
{
	const config_setting_t *m;
	int i, n = config_setting_length(g);

	for (i = 0; i < n; i++) {
		m = config_setting_get_elem(g, (unsigned int)i);
		if (!key_listed(keys, config_setting_name(m)))
			return conf_unknown_key(cc, m, prefix, keys);
	}
	return 0;
}

static bool is_int(const config_setting_t *s)
{
	return config_setting_type(s) == CONFIG_TYPE_INT ||
	       config_setting_type(s) == CONFIG_TYPE_INT64;
}

int conf_get_int(struct conf_ctx *cc, const config_setting_t *s,
		 const char *name, long long lo, long long hi, long long *out)
{
	long long v;

	if (!is_int(s))
		return conf_type_err(cc, s, name, "an integer");
	v = config_setting_get_int64(s);
	if (v < lo || v > hi)
		return conf_err(cc, s, "%s: %lld is out of range (expected "
				"%lld to %lld)", name, v, lo, hi);
	*out = v;
	return 0;
}

int conf_get_num(struct conf_ctx *cc, const config_setting_t *s,
		 const char *name, double lo, double hi, double *out)
{
	char buf[256];
	double v;

	if (is_int(s))
		v = (double)config_setting_get_int64(s);
	else if (config_setting_type(s) == CONFIG_TYPE_FLOAT)
		v = config_setting_get_float(s);
	else
		return conf_type_err(cc, s, name, "a number");
	if (!isfinite(v) || v < lo || v > hi)
		return conf_err(cc, s, "%s", conf_range_text(buf, sizeof(buf),
							     name, v, lo, hi));
	*out = v;
	return 0;
}

int conf_get_bool(struct conf_ctx *cc, const config_setting_t *s,
		  const char *name, bool *out)
{
	if (config_setting_type(s) != CONFIG_TYPE_BOOL)
		return conf_type_err(cc, s, name, "true or false");
	*out = config_setting_get_bool(s);
	return 0;
}

const char *conf_get_string(struct conf_ctx *cc, const config_setting_t *s,
			    const char *name)
{
	if (config_setting_type(s) != CONFIG_TYPE_STRING) {
		conf_type_err(cc, s, name, "a string");
		return NULL;
	}
	return config_setting_get_string(s);
}

void free_strv(char **v, size_t n)
{
	if (!v)
		return;
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/*
 * conf_find_include - line number of the first `@include` directive, or 0.
 * libconfig would resolve includes against the working directory of
 * whichever process loads the policy (the shim runs in all of them), so
 * they are refused outright.  A directive must start its line, and
 * libconfig strings cannot span lines, so this scan has no false hits.
 */
int conf_find_include(const char *buf)
{
	const char *s = buf;
	int line = 1;

	for (;;) {
		s += strspn(s, " \t\r");
		if (!strncmp(s, "@include", 8))
			return line;
		s = strchr(s, '\n');
		if (!s)
			return 0;
		s++;
		line++;
	}
}
