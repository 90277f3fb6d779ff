// SPDX-License-Identifier: MIT
/*
 * watch_conf.c - the `watch` group reader (libconfig), driven by the
 * settings table; errors through common/confcheck.
 */
#include "tools/watch/watch_conf.h"

#include <errno.h>
#include <libconfig.h>
#include <stdlib.h>
#include <string.h>

#include "common/confcheck.h"
#include "common/readfile.h"
#include "tools/watch/watch_settings.h"

void watch_conf_defaults(struct watch_conf *out)
{
	char why[8];
	size_t i;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < watch_nr_settings; i++)
		if (watch_settings[i].type != WSET_PATHS)
			wset_set(&watch_settings[i], out, watch_settings[i].def,
				 watch_settings[i].key, why, sizeof(why));
}

/* key_list - "interval_ms, dry_run, ..." into @buf, for messages. */
static const char *key_list(char *buf, size_t size)
{
	size_t i, len;

	buf[0] = '\0';
	for (i = 0; i < watch_nr_settings; i++) {
		len = strlen(buf);
		snprintf(buf + len, size - len, "%s%s", i ? ", " : "",
			 watch_settings[i].key);
	}
	return buf;
}

static int get_cgroups(struct conf_ctx *cc, const config_setting_t *s,
		       const char *name, struct watch_conf *out)
{
	const config_setting_t *e;
	char ename[96], why[256];
	const char *v;
	int i, n, t = config_setting_type(s);

	if (t != CONFIG_TYPE_ARRAY && t != CONFIG_TYPE_LIST)
		return conf_type_err(cc, s, name, "a list [ \"/path\", ... ] "
				     "of strings");
	n = config_setting_length(s);
	watch_conf_free(out);
	for (i = 0; i < n; i++) {
		e = config_setting_get_elem(s, (unsigned int)i);
		snprintf(ename, sizeof(ename), "%s[%d]", name, i);
		v = conf_get_string(cc, e, ename);
		if (!v)
			return -1;
		if (wset_check_path(v, name, why, sizeof(why)))
			return conf_err(cc, e, "%s", why);
		if (watch_conf_add_cgroup(out, v))
			return conf_err(cc, e, "out of memory");
	}
	return 0;
}

/* get_value - the value of numeric setting @ws from @s, as a double. */
static int get_value(struct conf_ctx *cc, const config_setting_t *s,
		     const struct watch_setting *ws, const char *name,
		     double *v)
{
	long long iv;
	bool b;

	switch (ws->type) {
	case WSET_UINT:
		if (conf_get_int(cc, s, name, (long long)ws->lo,
				 (long long)ws->hi, &iv))
			return -1;
		*v = (double)iv;
		return 0;
	case WSET_NUM:
		return conf_get_num(cc, s, name, ws->lo, ws->hi, v);
	case WSET_BOOL:
		if (conf_get_bool(cc, s, name, &b))
			return -1;
		*v = b;
		return 0;
	default:
		return conf_type_err(cc, s, name, "a single value");
	}
}

static int get_key(struct conf_ctx *cc, const config_setting_t *s,
		   struct watch_conf *out)
{
	const struct watch_setting *ws = wset_find(config_setting_name(s));
	char name[64], why[512];
	const char *text;
	double v;

	if (!ws)
		return conf_unknown_key(cc, s, "watch: ", key_list(why,
							sizeof(why)));
	snprintf(name, sizeof(name), "watch.%s", ws->key);
	if (ws->type == WSET_PATHS)
		return get_cgroups(cc, s, name, out);
	if (ws->type == WSET_ENUM) {
		text = conf_get_string(cc, s, name);
		if (!text)
			return -1;
		if (wset_parse(ws, out, text, name, why, sizeof(why)))
			return conf_err(cc, s, "%s", why);
		return 0;
	}
	if (get_value(cc, s, ws, name, &v))
		return -1;
	if (wset_set(ws, out, v, name, why, sizeof(why)))
		return conf_err(cc, s, "%s", why);
	return 0;
}

int watch_conf_parse_buffer(const char *buf, const char *name,
			    struct watch_conf *out, struct policy_error *err)
{
	struct conf_ctx cc = CONF_CTX(name, err);
	config_setting_t *w;
	config_t cfg;
	int i, n, ret = 0;

	watch_conf_defaults(out);
	memset(err, 0, sizeof(*err));
	config_init(&cfg);
	if (config_read_string(&cfg, buf) != CONFIG_TRUE) {
		ret = conf_syntax_err(&cc, &cfg);
		goto out;
	}
	w = config_lookup(&cfg, "watch");
	if (!w)
		goto out;
	if (config_setting_type(w) != CONFIG_TYPE_GROUP) {
		ret = conf_type_err(&cc, w, "watch", "a group { ... }");
		goto out;
	}
	out->from_file = true;
	n = config_setting_length(w);
	for (i = 0; i < n && !ret; i++)
		ret = get_key(&cc, config_setting_get_elem(w, (unsigned int)i),
			      out);
out:
	config_destroy(&cfg);
	if (ret)
		watch_conf_free(out);
	return ret;
}

int watch_conf_load_file(const char *path, struct watch_conf *out,
			 struct policy_error *err)
{
	struct conf_ctx cc = CONF_CTX(path, err);
	char *buf = NULL;
	int ret;

	if (read_file(path, &buf, NULL, 1u << 20)) {
		memset(err, 0, sizeof(*err));
		watch_conf_defaults(out);
		return conf_err_line(&cc, 0, "cannot read: %s",
				     strerror(errno));
	}
	ret = watch_conf_parse_buffer(buf, path, out, err);
	free(buf);
	return ret;
}

void watch_conf_print(const struct watch_conf *c, FILE *f)
{
	const struct watch_setting *s;
	char buf[4096];
	size_t i;

	fprintf(f, "watch = {\n");
	for (i = 0; i < watch_nr_settings; i++) {
		s = &watch_settings[i];
		fprintf(f, "  %s = %s;%s\n", s->key,
			wset_format(s, c, buf, sizeof(buf)),
			s->type == WSET_PATHS && !c->nr_cgroups ?
			"  # every memcg" : "");
	}
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

	for (i = 0; i < n; i++) {
		if (watch_conf_add_cgroup(&tmp, paths[i])) {
			watch_conf_free(&tmp);
			return -1;
		}
	}
	watch_conf_free(c);
	c->cgroups = tmp.cgroups;
	c->nr_cgroups = tmp.nr_cgroups;
	return 0;
}

int watch_conf_add_cgroup(struct watch_conf *c, const char *path)
{
	char **n, *dup = strdup(path);

	if (!dup)
		return -1;
	n = realloc(c->cgroups, (c->nr_cgroups + 2) * sizeof(char *));
	if (!n) {
		free(dup);
		return -1;
	}
	n[c->nr_cgroups++] = dup;
	n[c->nr_cgroups] = NULL;
	c->cgroups = n;
	return 0;
}
