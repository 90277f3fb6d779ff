// SPDX-License-Identifier: MIT
/*
 * watch_conf.c - the `watch` group reader (libconfig).
 */
#include "tools/watch/watch_conf.h"

#include <errno.h>
#include <libconfig.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "common/readfile.h"
#include "tools/watch/detector.h"

void watch_conf_defaults(struct watch_conf *out)
{
	memset(out, 0, sizeof(*out));
	out->interval_ms = 1000;
	out->persist = 3;
	out->cooldown_ms = 10000;
	out->min_refaults_per_s = 500.0;
	out->max_activations_pct = 5.0;
	out->max_agings_per_min = 8;
	out->max_steps = 8;
	out->min_age_spacing_ms = 2000;
	out->max_youngest_growth_pct = 0.25;
	out->min_stuck_pct = 10.0;
	out->max_burst = DET_MAX_GENS;
	out->drain_timeout_ms = 60000;
}

static int conf_err(struct policy_error *err, const char *name, int line,
		    const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static int conf_err(struct policy_error *err, const char *name, int line,
		    const char *fmt, ...)
{
	va_list ap;

	snprintf(err->file, sizeof(err->file), "%s", name);
	err->line = line;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return -1;
}

/* An unsigned integer key in [lo, hi]. */
static int get_uint(config_setting_t *s, const char *name,
		    struct policy_error *err, unsigned int lo, unsigned int hi,
		    unsigned int *out)
{
	long long v;
	int t = config_setting_type(s);

	if (t != CONFIG_TYPE_INT && t != CONFIG_TYPE_INT64)
		return conf_err(err, name, config_setting_source_line(s),
				"watch.%s must be an integer",
				config_setting_name(s));
	v = config_setting_get_int64(s);
	if (v < lo || v > hi)
		return conf_err(err, name, config_setting_source_line(s),
				"watch.%s = %lld is out of range [%u, %u]",
				config_setting_name(s), v, lo, hi);
	*out = (unsigned int)v;
	return 0;
}

static int get_double(config_setting_t *s, const char *name,
		      struct policy_error *err, double hi, double *out)
{
	int t = config_setting_type(s);
	double v;

	if (t == CONFIG_TYPE_FLOAT)
		v = config_setting_get_float(s);
	else if (t == CONFIG_TYPE_INT || t == CONFIG_TYPE_INT64)
		v = (double)config_setting_get_int64(s);
	else
		return conf_err(err, name, config_setting_source_line(s),
				"watch.%s must be a number",
				config_setting_name(s));
	if (!(v >= 0 && v <= hi))
		return conf_err(err, name, config_setting_source_line(s),
				"watch.%s = %g is out of range [0, %g]",
				config_setting_name(s), v, hi);
	*out = v;
	return 0;
}

static int get_cgroups(config_setting_t *s, const char *name,
		       struct policy_error *err, struct watch_conf *out)
{
	int i, n, t = config_setting_type(s);

	if (t != CONFIG_TYPE_ARRAY && t != CONFIG_TYPE_LIST)
		return conf_err(err, name, config_setting_source_line(s),
				"watch.cgroups must be a list of strings");
	n = config_setting_length(s);
	out->cgroups = calloc((size_t)n + 1, sizeof(char *));
	if (!out->cgroups)
		return conf_err(err, name, 0, "out of memory");
	for (i = 0; i < n; i++) {
		config_setting_t *e = config_setting_get_elem(s, (unsigned)i);
		const char *v = config_setting_get_string(e);

		if (!v)
			return conf_err(err, name,
					config_setting_source_line(s),
					"watch.cgroups[%d] must be a string", i);
		if (v[0] != '/')
			return conf_err(err, name,
					config_setting_source_line(s),
					"watch.cgroups[%d] \"%s\" must start with '/' "
					"(the path as lru_gen prints it)", i, v);
		out->cgroups[i] = strdup(v);
		if (!out->cgroups[i])
			return conf_err(err, name, 0, "out of memory");
		out->nr_cgroups++;
	}
	return 0;
}

static int get_key(config_setting_t *s, const char *name,
		   struct policy_error *err, struct watch_conf *out)
{
	const char *key = config_setting_name(s);

	if (!strcmp(key, "interval_ms"))
		return get_uint(s, name, err, 10, 3600000, &out->interval_ms);
	if (!strcmp(key, "persist"))
		return get_uint(s, name, err, 1, 1000, &out->persist);
	if (!strcmp(key, "cooldown_ms"))
		return get_uint(s, name, err, 0, 86400000, &out->cooldown_ms);
	if (!strcmp(key, "max_agings_per_min"))
		return get_uint(s, name, err, 1, DET_MAX_PER_MIN,
				&out->max_agings_per_min);
	if (!strcmp(key, "max_steps"))
		return get_uint(s, name, err, 1, 1000, &out->max_steps);
	if (!strcmp(key, "min_age_spacing_ms"))
		return get_uint(s, name, err, 0, 3600000,
				&out->min_age_spacing_ms);
	if (!strcmp(key, "max_youngest_growth_pct"))
		return get_double(s, name, err, 100.0,
				  &out->max_youngest_growth_pct);
	if (!strcmp(key, "min_stuck_pct"))
		return get_double(s, name, err, 100.0, &out->min_stuck_pct);
	if (!strcmp(key, "max_burst"))
		return get_uint(s, name, err, 1, DET_MAX_GENS, &out->max_burst);
	if (!strcmp(key, "drain_timeout_ms"))
		return get_uint(s, name, err, 0, 3600000,
				&out->drain_timeout_ms);
	if (!strcmp(key, "min_refaults_per_s"))
		return get_double(s, name, err, 1e12, &out->min_refaults_per_s);
	if (!strcmp(key, "max_activations_pct"))
		return get_double(s, name, err, 100.0,
				  &out->max_activations_pct);
	if (!strcmp(key, "cgroups"))
		return get_cgroups(s, name, err, out);
	if (!strcmp(key, "dry_run")) {
		if (config_setting_type(s) != CONFIG_TYPE_BOOL)
			return conf_err(err, name,
					config_setting_source_line(s),
					"watch.dry_run must be true or false");
		out->dry_run = config_setting_get_bool(s);
		return 0;
	}
	return conf_err(err, name, config_setting_source_line(s),
			"unknown key watch.%s", key);
}

int watch_conf_parse_buffer(const char *buf, const char *name,
			    struct watch_conf *out, struct policy_error *err)
{
	config_t cfg;
	config_setting_t *w;
	int i, n, ret = 0;

	watch_conf_defaults(out);
	memset(err, 0, sizeof(*err));
	config_init(&cfg);
	if (config_read_string(&cfg, buf) != CONFIG_TRUE) {
		ret = conf_err(err, name, config_error_line(&cfg), "%s",
			       config_error_text(&cfg));
		goto out;
	}
	w = config_lookup(&cfg, "watch");
	if (!w)
		goto out;
	if (config_setting_type(w) != CONFIG_TYPE_GROUP) {
		ret = conf_err(err, name, config_setting_source_line(w),
			       "watch must be a group: watch = { ... };");
		goto out;
	}
	out->from_file = true;
	n = config_setting_length(w);
	for (i = 0; i < n && !ret; i++)
		ret = get_key(config_setting_get_elem(w, (unsigned)i), name,
			      err, out);
out:
	config_destroy(&cfg);
	if (ret)
		watch_conf_free(out);
	return ret;
}

int watch_conf_load_file(const char *path, struct watch_conf *out,
			 struct policy_error *err)
{
	char *buf = NULL;
	int ret;

	if (read_file(path, &buf, NULL, 1u << 20)) {
		memset(err, 0, sizeof(*err));
		watch_conf_defaults(out);
		return conf_err(err, path, 0, "cannot read: %s",
				strerror(errno));
	}
	ret = watch_conf_parse_buffer(buf, path, out, err);
	free(buf);
	return ret;
}

void watch_conf_print(const struct watch_conf *c, FILE *f)
{
	size_t i;

	fprintf(f, "watch = {\n");
	fprintf(f, "  interval_ms = %u;\n", c->interval_ms);
	fprintf(f, "  persist = %u;\n", c->persist);
	fprintf(f, "  cooldown_ms = %u;\n", c->cooldown_ms);
	fprintf(f, "  dry_run = %s;\n", c->dry_run ? "true" : "false");
	fprintf(f, "  cgroups = [");
	for (i = 0; i < c->nr_cgroups; i++)
		fprintf(f, "%s \"%s\"", i ? "," : "", c->cgroups[i]);
	fprintf(f, " ];%s\n", c->nr_cgroups ? "" : "  # every memcg");
	fprintf(f, "  min_refaults_per_s = %g;\n", c->min_refaults_per_s);
	fprintf(f, "  max_activations_pct = %g;\n", c->max_activations_pct);
	fprintf(f, "  max_agings_per_min = %u;\n", c->max_agings_per_min);
	fprintf(f, "  max_steps = %u;\n", c->max_steps);
	fprintf(f, "  min_age_spacing_ms = %u;\n", c->min_age_spacing_ms);
	fprintf(f, "  max_youngest_growth_pct = %g;\n",
		c->max_youngest_growth_pct);
	fprintf(f, "  min_stuck_pct = %g;\n", c->min_stuck_pct);
	fprintf(f, "  max_burst = %u;\n", c->max_burst);
	fprintf(f, "  drain_timeout_ms = %u;\n", c->drain_timeout_ms);
	fprintf(f, "};\n");
}

void watch_conf_free(struct watch_conf *c)
{
	size_t i;

	if (c->cgroups) {
		for (i = 0; i < c->nr_cgroups; i++)
			free(c->cgroups[i]);
		free(c->cgroups);
	}
	c->cgroups = NULL;
	c->nr_cgroups = 0;
}

int watch_conf_set_cgroups(struct watch_conf *c, char *const *paths,
			   size_t n)
{
	struct watch_conf tmp = { 0 };
	size_t i;

	if (!n) {
		watch_conf_free(c);
		return 0;
	}
	tmp.cgroups = calloc(n + 1, sizeof(char *));
	if (!tmp.cgroups)
		return -1;
	for (i = 0; i < n; i++) {
		tmp.cgroups[i] = strdup(paths[i]);
		if (!tmp.cgroups[i]) {
			watch_conf_free(&tmp);
			return -1;
		}
		tmp.nr_cgroups++;
	}
	watch_conf_free(c);
	c->cgroups = tmp.cgroups;
	c->nr_cgroups = tmp.nr_cgroups;
	return 0;
}
