// SPDX-License-Identifier: MIT
/*
 * test_watch_settings.c - the settings table and what is derived from it:
 * defaults, the `watch` group, the command line, --help, the error
 * wording.  Every row is driven through both readers, so a row added
 * later is tested without a new test.
 */
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tools/watch/watch_opts.h"
#include "tools/watch/watch_settings.h"

Test(watch_settings, table_is_consistent)
{
	const struct watch_setting *s, *t;
	char a[40], b[40], why[256];
	struct watch_conf c;
	size_t i, j;

	cr_assert_leq(watch_nr_settings, WATCH_MAX_SETTINGS);
	watch_conf_defaults(&c);
	for (i = 0; i < watch_nr_settings; i++) {
		s = &watch_settings[i];
		cr_expect(s->help && *s->help && s->doc && *s->doc, "%s",
			  s->key);
		cr_expect_eq(wset_find(s->key), s, "%s", s->key);
		for (j = 0; j < i; j++) {
			t = &watch_settings[j];
			cr_expect_str_neq(s->key, t->key);
			cr_expect_str_neq(wset_opt_name(s, a, sizeof(a)),
					  wset_opt_name(t, b, sizeof(b)));
		}
		if (s->type == WSET_PATHS)
			continue;
		cr_expect(s->type != WSET_UINT || s->size == sizeof(unsigned) ||
			  s->size == sizeof(uint64_t), "%s: field size %zu",
			  s->key, s->size);
		cr_expect(s->type != WSET_ENUM || (s->names && s->names[0]),
			  "%s: no values", s->key);
		cr_expect_eq(wset_set(s, &c, s->def, s->key, why, sizeof(why)),
			     0, "%s: default %g: %s", s->key, s->def, why);
		cr_expect_eq(wset_get(s, &c), s->def, "%s", s->key);
	}
	cr_expect_null(wset_find("nope"));
}

/* A valid value of @s other than its default, as config text. */
static const char *other_value(const struct watch_setting *s, char *buf,
			       size_t size)
{
	switch (s->type) {
	case WSET_UINT:
		snprintf(buf, size, "%.0f", s->def == s->hi ? s->lo : s->hi);
		break;
	case WSET_NUM:
		/* a float literal: libconfig 1.5 wraps integers to 32 bits */
		snprintf(buf, size, "%.2f", s->def == s->hi ? s->lo :
			 (s->def + s->hi) / 2);
		break;
	case WSET_BOOL:
		snprintf(buf, size, "%s", s->def ? "false" : "true");
		break;
	case WSET_ENUM:
		snprintf(buf, size, "%s", s->names[s->def ? 0 : 1] ?
			 s->names[s->def ? 0 : 1] : s->names[0]);
		break;
	case WSET_PATHS:
		snprintf(buf, size, "/a b");
		break;
	}
	return buf;
}

/* from_config - @s = @v in a watch group, parsed into @c. */
static void from_config(const struct watch_setting *s, const char *v,
			struct watch_conf *c)
{
	struct policy_error err;
	char text[512];

	snprintf(text, sizeof(text), "watch = {\n  %s = %s%s%s;\n};\n",
		 s->key, s->type == WSET_PATHS ? "[ \"" :
		 s->type == WSET_ENUM ? "\"" : "", v,
		 s->type == WSET_PATHS ? "\" ]" :
		 s->type == WSET_ENUM ? "\"" : "");
	cr_assert_eq(watch_conf_parse_buffer(text, "t.conf", c, &err), 0,
		     "%s: %s:%d: %s", text, err.file, err.line, err.msg);
}

/* from_cli - --opt @v (a flag for a BOOL), options applied to defaults. */
static void from_cli(const struct watch_setting *s, const char *v,
		     struct watch_conf *c)
{
	char opt[48], name[40], *argv[4] = { "advshim-watch", opt };
	struct policy_error err;
	struct watch_opts o;
	int argc = 2;

	snprintf(opt, sizeof(opt), "--%s", wset_opt_name(s, name,
							 sizeof(name)));
	if (s->type != WSET_BOOL)
		argv[argc++] = (char *)v;
	cr_assert_eq(watch_opts_parse(argc, argv, &o), 0, "%s %s", opt, v);
	cr_assert_eq(watch_opts_conf(&o, c, &err), 0, "%s", err.msg);
	watch_opts_free(&o);
}

Test(watch_settings, every_setting_from_config_and_command_line)
{
	char v[64], have[512], want[128], *out = NULL;
	struct watch_conf a, b;
	const struct watch_setting *s;
	size_t i, len;
	FILE *f;

	for (i = 0; i < watch_nr_settings; i++) {
		s = &watch_settings[i];
		if (s->type == WSET_BOOL && s->def)
			continue;	/* a flag can only set true */
		other_value(s, v, sizeof(v));
		from_config(s, v, &a);
		from_cli(s, v, &b);
		cr_expect_str_eq(wset_format(s, &a, have, sizeof(have)),
				 wset_format(s, &b, want, sizeof(want)),
				 "%s = %s", s->key, v);
		if (s->type != WSET_PATHS)
			cr_expect_neq(wset_get(s, &a), s->def, "%s", s->key);
		f = open_memstream(&out, &len);
		watch_conf_print(&a, f);
		fclose(f);
		snprintf(want, sizeof(want), "  %s = %s;", s->key,
			 wset_format(s, &a, have, sizeof(have)));
		cr_expect(strstr(out, want), "no '%s' in\n%s", want, out);
		free(out);
		watch_conf_free(&a);
		watch_conf_free(&b);
	}
}

/* The same range error from the config file and the command line. */
Test(watch_settings, range_errors_read_alike)
{
	char text[256], opt[48], name[40], v[64], cfg_msg[300], cli_msg[300];
	const struct watch_setting *s;
	struct policy_error err;
	struct watch_conf c;
	size_t i;

	for (i = 0; i < watch_nr_settings; i++) {
		s = &watch_settings[i];
		if (s->type != WSET_UINT && s->type != WSET_NUM)
			continue;
		snprintf(v, sizeof(v), s->type == WSET_UINT ? "%.0f" : "%.1f",
			 s->type == WSET_UINT ? s->hi + 1 : s->hi * 2 + 1);
		snprintf(text, sizeof(text), "watch = {\n\n  %s = %s;\n};\n",
			 s->key, v);
		cr_assert_eq(watch_conf_parse_buffer(text, "t.conf", &c, &err),
			     -1, "%s accepted", text);
		cr_expect_eq(err.line, 3);
		snprintf(cfg_msg, sizeof(cfg_msg), "%s", strchr(err.msg, ':'));
		wset_opt_name(s, name, sizeof(name));
		snprintf(opt, sizeof(opt), "--%s", name);
		cr_assert_eq(wset_parse(s, &c, v, opt, cli_msg,
					sizeof(cli_msg)), -1);
		cr_expect(!strncmp(cli_msg, opt, strlen(opt)), "%s", cli_msg);
		cr_expect_str_eq(strchr(cli_msg, ':'), cfg_msg);
		cr_expect(strstr(cfg_msg, "is out of range (expected "), "%s",
			  cfg_msg);
	}
}

Test(watch_settings, command_line_beats_config_file)
{
	char path[] = "/tmp/advshim-watch-conf-XXXXXX";
	char *argv[] = { "advshim-watch", "--config", path, "--max-agings-per-min", "7",
			 "--cgroup", "/x", "--cgroup", "/y", NULL };
	struct policy_error err;
	struct watch_opts o;
	struct watch_conf c;
	int fd = mkstemp(path);
	FILE *f = fdopen(fd, "w");

	fprintf(f, "watch = {\n  max_agings_per_min = 5;\n  interval_ms = 250;\n"
		"  cgroups = [ \"/z\" ];\n};\n");
	fclose(f);
	cr_assert_eq(watch_opts_parse(9, argv, &o), 0);
	cr_assert_eq(watch_opts_conf(&o, &c, &err), 0, "%s", err.msg);
	unlink(path);
	cr_expect_eq(c.det.max_agings_per_min, 7);
	cr_expect_eq(c.interval_ms, 250);
	cr_expect(c.from_file);
	cr_assert_eq(c.nr_cgroups, 2);
	cr_expect_str_eq(c.cgroups[0], "/x");
	cr_expect_str_eq(c.cgroups[1], "/y");
	watch_conf_free(&c);
	watch_opts_free(&o);
}

static void quiet(void)
{
	cr_redirect_stdout();
	cr_redirect_stderr();
}

Test(watch_settings, bad_command_lines, .init = quiet)
{
	char *persist0[] = { "advshim-watch", "--max-agings-per-min", "0",
			     NULL };
	char *frac[] = { "advshim-watch", "--max-agings-per-min", "1.5",
			 NULL };
	char *neg[] = { "advshim-watch", "--max-inflow-pct", "-1", NULL };
	char *rel[] = { "advshim-watch", "--cgroup", "x", NULL };
	char *extra[] = { "advshim-watch", "stray", NULL };
	char *help[] = { "advshim-watch", "--help", NULL };
	struct watch_opts o;

	cr_expect_eq(watch_opts_parse(3, persist0, &o), -1);
	watch_opts_free(&o);
	cr_expect_eq(watch_opts_parse(3, frac, &o), -1);
	watch_opts_free(&o);
	cr_expect_eq(watch_opts_parse(3, neg, &o), -1);
	watch_opts_free(&o);
	cr_expect_eq(watch_opts_parse(3, rel, &o), -1);
	watch_opts_free(&o);
	cr_expect_eq(watch_opts_parse(2, extra, &o), -1);
	watch_opts_free(&o);
	cr_expect_eq(watch_opts_parse(2, help, &o), 1);
	watch_opts_free(&o);
}

Test(watch_settings, help_lists_every_option)
{
	char opt[48], name[40], *out = NULL;
	size_t i, len;
	FILE *f = open_memstream(&out, &len);

	watch_usage(f);
	fclose(f);
	for (i = 0; i < watch_nr_settings; i++) {
		snprintf(opt, sizeof(opt), "  --%s",
			 wset_opt_name(&watch_settings[i], name, sizeof(name)));
		cr_expect(strstr(out, opt), "--help lacks %s", opt);
	}
	cr_expect(strstr(out, "(expected") == NULL);
	free(out);
}

/* An ENUM row (none ships yet): stored as an index, named in text. */
Test(watch_settings, enum_rows)
{
	static const char *const names[] = { "spaced", "drain", NULL };
	const struct watch_setting s = {
		"mode", NULL, WSET_ENUM, WSET_FIELD(interval_ms), .def = 0,
		.names = names, .help = "how", .doc = "How.",
	};
	struct watch_conf c = { 0 };
	char why[128], buf[32];

	cr_assert_eq(wset_parse(&s, &c, "drain", "--mode", why, sizeof(why)),
		     0, "%s", why);
	cr_expect_eq(c.interval_ms, 1);
	cr_expect_eq(wset_get(&s, &c), 1);
	cr_expect_str_eq(wset_format(&s, &c, buf, sizeof(buf)), "\"drain\"");
	cr_expect_eq(wset_parse(&s, &c, "x", "--mode", why, sizeof(why)), -1);
	cr_expect_str_eq(why, "--mode: unknown value \"x\" (expected spaced, "
			 "drain)");
	cr_expect_eq(wset_set(&s, &c, 2, "mode", why, sizeof(why)), -1);
	cr_expect_eq(c.interval_ms, 1);
	cr_expect_str_eq(wset_metavar(&s, buf, sizeof(buf)), "spaced|drain");
	cr_expect_str_eq(wset_format_default(&s, buf, sizeof(buf)), "spaced");
}

/* Errors inside the group point at a line of the file, never 0. */
Test(watch_settings, error_lines_are_never_zero)
{
	static const char *const texts[] = {
		"watch = {\n  cgroups = [ \"/a\",\n 1 ];\n};\n",
		"watch = {\n  cgroups = ( \"/a\", \"b\" );\n};\n",
		"\n\nwatch = 3;\n",
		"watch = {\n  max_agings_per_min = 1.5;\n};\n",
		"watch = {\n  dry_run = \"yes\";\n};\n",
	};
	struct policy_error err;
	struct watch_conf c;
	size_t i;

	for (i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		cr_assert_eq(watch_conf_parse_buffer(texts[i], "t.conf", &c,
						     &err), -1, "%s", texts[i]);
		cr_expect_geq(err.line, 2, "%s: line %d (%s)", texts[i],
			      err.line, err.msg);
	}
}
