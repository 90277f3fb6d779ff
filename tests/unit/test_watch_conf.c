// SPDX-License-Identifier: MIT
/*
 * test_watch_conf.c - the `watch` group: defaults, values, file:line errors.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "tools/watch/watch_conf.h"

Test(watch_conf, no_group_gives_defaults)
{
	struct watch_conf c;
	struct policy_error err;

	cr_assert_eq(watch_conf_parse_buffer("version = 1;\nrules = ();\n",
					     "p.conf", &c, &err), 0);
	cr_assert_not(c.from_file);
	cr_assert_eq(c.interval_ms, 1000);
	cr_assert_eq(c.det.persist, 3);
	cr_assert_eq(c.det.cooldown_ms, 10000);
	cr_assert_eq(c.det.min_spacing_ms, 2000);
	cr_assert_float_eq(c.det.max_youngest_growth_pct, 0.25, 1e-9);
	cr_assert_eq(c.nr_cgroups, 0);
	cr_assert_not(c.dry_run);
	watch_conf_free(&c);
}

Test(watch_conf, full_group)
{
	static const char text[] =
		"version = 1;\n"
		"rules = ( { match = [ \"**\" ]; } );\n"
		"watch = {\n"
		"  interval_ms = 500;\n"
		"  persist = 2;\n"
		"  cooldown_ms = 0;\n"
		"  dry_run = true;\n"
		"  cgroups = [ \"/system.slice/opensearch.service\", \"/a b\" ];\n"
		"  min_refaults_per_s = 1000;\n"
		"  max_activations_pct = 2.5;\n"
		"  max_agings_per_min = 10;\n"
		"  max_steps = 3;\n"
		"  min_age_spacing_ms = 5000;\n"
		"  max_youngest_growth_pct = 1;\n"
		"};\n";
	struct watch_conf c;
	struct policy_error err;
	char *out = NULL;
	size_t len;
	FILE *f;

	cr_assert_eq(watch_conf_parse_buffer(text, "p.conf", &c, &err), 0,
		     "%s:%d: %s", err.file, err.line, err.msg);
	cr_assert(c.from_file);
	cr_assert_eq(c.interval_ms, 500);
	cr_assert_eq(c.det.persist, 2);
	cr_assert_eq(c.det.cooldown_ms, 0);
	cr_assert(c.dry_run);
	cr_assert_eq(c.nr_cgroups, 2);
	cr_assert_str_eq(c.cgroups[1], "/a b");
	cr_assert_float_eq(c.det.min_refaults_per_s, 1000.0, 1e-9);
	cr_assert_float_eq(c.det.max_activations_pct, 2.5, 1e-9);
	cr_assert_eq(c.det.max_agings_per_min, 10);
	cr_assert_eq(c.det.max_steps, 3);
	cr_assert_eq(c.det.min_spacing_ms, 5000);
	cr_assert_float_eq(c.det.max_youngest_growth_pct, 1.0, 1e-9);
	f = open_memstream(&out, &len);
	watch_conf_print(&c, f);
	fclose(f);
	cr_assert(strstr(out, "interval_ms = 500;"));
	cr_assert(strstr(out, "\"/a b\""));
	cr_assert(strstr(out, "min_age_spacing_ms = 5000;"));
	cr_assert(strstr(out, "max_youngest_growth_pct = 1;"));
	free(out);
	watch_conf_free(&c);
}

static void expect_error(const char *text, int line, const char *needle)
{
	struct watch_conf c;
	struct policy_error err;

	cr_assert_eq(watch_conf_parse_buffer(text, "bad.conf", &c, &err), -1,
		     "accepted: %s", text);
	cr_assert_str_eq(err.file, "bad.conf");
	cr_assert_eq(err.line, line, "line %d for %s (%s)", err.line, text,
		     err.msg);
	cr_assert(strstr(err.msg, needle), "'%s' lacks '%s'", err.msg,
		  needle);
	cr_assert_null(c.cgroups);
}

Test(watch_conf, errors_say_file_and_line)
{
	expect_error("watch = {\n  interval_ms = 0;\n};\n", 2, "interval_ms");
	expect_error("watch = {\n\n  persist = 0;\n};\n", 3, "persist");
	expect_error("watch = { max_steps = 0; };\n", 1, "max_steps");
	expect_error("watch = {\n  intervl_ms = 10;\n};\n", 2, "unknown key");
	expect_error("watch = {\n  dry_run = 1;\n};\n", 2, "true or false");
	expect_error("watch = {\n  persist = \"3\";\n};\n", 2, "integer");
	expect_error("watch = {\n  min_refaults_per_s = -1;\n};\n", 2,
		     "out of range");
	expect_error("watch = {\n  max_activations_pct = 101;\n};\n", 2,
		     "out of range");
	expect_error("watch = {\n  cgroups = [ \"system.slice\" ];\n};\n", 2,
		     "must start with '/'");
	expect_error("watch = {\n  cgroups = \"/a\";\n};\n", 2, "list");
	expect_error("watch = {\n  min_age_spacing_ms = -1;\n};\n", 2,
		     "out of range");
	expect_error("watch = {\n  max_youngest_growth_pct = 101;\n};\n", 2,
		     "out of range");
	expect_error("watch = 3;\n", 1, "group");
	expect_error("watch = {\n  persist = ;\n};\n", 2, "syntax");
}

Test(watch_conf, file_loading)
{
	struct watch_conf c;
	struct policy_error err;

	cr_assert_eq(watch_conf_load_file("/nonexistent/x.conf", &c, &err), -1);
	cr_assert(strstr(err.msg, "cannot read"));
	cr_assert_eq(err.line, 0);
	watch_conf_free(&c);
}
