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
	cr_assert_float_eq(c.det.min_turnover_pct, 50, 1e-9);
	cr_assert_float_eq(c.det.min_refault_pct, 50, 1e-9);
	cr_assert_float_eq(c.det.min_exposed_pct, 2, 1e-9);
	cr_assert_float_eq(c.det.max_inflow_pct, 10, 1e-9);
	cr_assert_eq(c.det.max_agings_per_min, 16);
	cr_assert_not(c.log_decisions);
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
		"  dry_run = true;\n"
		"  log_decisions = true;\n"
		"  cgroups = [ \"/system.slice/opensearch.service\", \"/a b\" ];\n"
		"  min_turnover_pct = 100;\n"
		"  min_refault_pct = 75.5;\n"
		"  max_agings_per_min = 10;\n"
		"  min_exposed_pct = 5;\n"
		"  max_inflow_pct = 1;\n"
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
	cr_assert(c.dry_run);
	cr_assert(c.log_decisions);
	cr_assert_eq(c.nr_cgroups, 2);
	cr_assert_str_eq(c.cgroups[1], "/a b");
	cr_assert_float_eq(c.det.min_turnover_pct, 100.0, 1e-9);
	cr_assert_float_eq(c.det.min_refault_pct, 75.5, 1e-9);
	cr_assert_eq(c.det.max_agings_per_min, 10);
	cr_assert_float_eq(c.det.min_exposed_pct, 5.0, 1e-9);
	cr_assert_float_eq(c.det.max_inflow_pct, 1.0, 1e-9);
	f = open_memstream(&out, &len);
	watch_conf_print(&c, f);
	fclose(f);
	cr_assert(strstr(out, "interval_ms = 500;"));
	cr_assert(strstr(out, "\"/a b\""));
	cr_assert(strstr(out, "min_refault_pct = 75.5;"));
	cr_assert(strstr(out, "log_decisions = true;"));
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
	expect_error("watch = {\n\n  min_turnover_pct = 0;\n};\n", 3,
		     "min_turnover_pct");
	expect_error("watch = { max_agings_per_min = 0; };\n", 1,
		     "max_agings_per_min");
	expect_error("watch = {\n  intervl_ms = 10;\n};\n", 2, "unknown key");
	expect_error("watch = {\n  dry_run = 1;\n};\n", 2, "true or false");
	expect_error("watch = {\n  max_agings_per_min = \"3\";\n};\n", 2,
		     "integer");
	expect_error("watch = {\n  min_refault_pct = -1;\n};\n", 2,
		     "out of range");
	expect_error("watch = {\n  min_refault_pct = 101;\n};\n", 2,
		     "out of range");
	expect_error("watch = {\n  persist = 3;\n};\n", 2, "unknown key");
	expect_error("watch = {\n  cgroups = [ \"system.slice\" ];\n};\n", 2,
		     "must start with '/'");
	expect_error("watch = {\n  cgroups = \"/a\";\n};\n", 2, "list");
	expect_error("watch = {\n  max_inflow_pct = -1;\n};\n", 2,
		     "out of range");
	expect_error("watch = {\n  min_exposed_pct = 101;\n};\n", 2,
		     "out of range");
	expect_error("watch = 3;\n", 1, "group");
	expect_error("watch = {\n  max_inflow_pct = ;\n};\n", 2, "syntax");
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
