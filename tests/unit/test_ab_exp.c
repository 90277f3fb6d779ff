// SPDX-License-Identifier: MIT
/*
 * test_ab_exp.c - advshim-ab experiment parser: every error has a line.
 */
#include <criterion/criterion.h>
#include <glob.h>
#include <stdlib.h>
#include <string.h>

#include "tools/ab/exp.h"

/* A valid experiment; tests splice one bad line into a copy. */
#define L1 "version = 1;\n"
#define L2 "limit_mib = 64;\n"
#define L3 "duration_s = 10;\n"
#define L4 "files = ( { name = \"vec\"; path = \"${DIR}/v.bin\"; size_mib = 8; } );\n"
#define L5 "workloads = (\n"
#define L6 "  { name = \"r\"; throughput = true; command = [ \"${BUILD}/advshim-load\", \"random\", \"${file:vec}\" ]; },\n"
#define L7 "  { name = \"c\"; start_ms = 2000; command = [ \"/bin/true\" ]; }\n"
#define L8 ");\n"
#define L9 "event = { workload = \"c\"; };\n"
#define L10 "arms = ( { name = \"a\"; } );\n"
#define GOOD L1 L2 L3 L4 L5 L6 L7 L8 L9 L10

static void expect_err(const char *text, int line, const char *msg)
{
	struct experiment *e = NULL;
	struct exp_error err;

	cr_assert_eq(exp_parse_buffer(text, "t.conf", &e, &err), -1,
		     "parsed, expected \"%s\" at line %d:\n%s", msg, line, text);
	cr_expect_null(e);
	cr_expect_str_eq(err.file, "t.conf");
	cr_expect_eq(err.line, line, "line %d, expected %d (%s)", err.line, line,
		     err.msg);
	cr_expect(strstr(err.msg, msg) != NULL, "message \"%s\" lacks \"%s\"",
		  err.msg, msg);
}

/* libconfig's scanner exit()s on an include it cannot read: refused first. */
Test(ab_exp, include_is_refused)
{
	expect_err(L1 "  @include \"/nonexistent/dir/\"\n", 2,
		   "@include is not supported");
}

Test(ab_exp, good_and_defaults)
{
	struct experiment *e;
	struct exp_error err;

	cr_assert_eq(exp_parse_buffer(GOOD, "t.conf", &e, &err), 0, "%d: %s",
		     err.line, err.msg);
	cr_expect_eq(e->limit_mib, 64);
	cr_expect_eq(e->duration_s, 10);
	cr_expect_eq(e->interval_ms, 1000);
	cr_expect_str_eq(e->dir, "/var/tmp/advshim-ab");
	cr_expect_eq(e->nfiles, 1);
	cr_expect_eq(e->files[0].size_mib, 8);
	cr_expect_eq(e->nwl, 2);
	cr_expect_eq(e->throughput_wl, 0);
	cr_expect_eq(e->event_wl, 1);
	cr_expect_eq(e->wl[1].start_ms, 2000);
	cr_expect_eq(e->narms, 1);
	cr_expect_str_eq(e->arms[0].label, "a");
	cr_expect_eq(e->arms[0].shim.enabled, -1);
	cr_expect_eq(e->arms[0].lru_gen, -1);
	cr_expect_not(e->arms[0].watch.enabled);
	cr_expect_eq(e->baseline_s, 10);
	cr_expect_eq(e->recover_pct, 80);
	cr_expect_eq(e->settle_intervals, 3);
	exp_free(e);
}

Test(ab_exp, substitutions_expand)
{
	struct exp_vars v = { .build = "/b", .dir = "/d", .out = "/o",
			      .arm = "a", .memcg = "/cg" };
	struct experiment *e;
	struct exp_error err;
	char *s;

	cr_assert_eq(exp_parse_buffer(GOOD, "t.conf", &e, &err), 0);
	cr_assert_eq(exp_expand(e, &v, "${BUILD}/x ${file:vec} ${OUT}/${ARM} ${MEMCG} ${LIMIT_MIB} ${DURATION_S} ${INTERVAL_MS} $HOME ${", &s), 0);
	cr_expect_str_eq(s, "/b/x /d/v.bin /o/a /cg 64 10 1000 $HOME ${");
	free(s);
	v.dir = NULL;	/* the experiment's own dir */
	cr_assert_eq(exp_expand(e, &v, "${file:vec}", &s), 0);
	cr_expect_str_eq(s, "/var/tmp/advshim-ab/v.bin");
	free(s);
	cr_expect_eq(exp_expand(e, &v, "${NOPE}", &s), -1);
	exp_free(e);
}

Test(ab_exp, arms_full)
{
	static const char text[] = L1 L2 L3 L4 L5 L6 L7 L8 L9
		"arms = (\n"
		"  { name = \"w\"; label = \"watch\"; lru_gen = \"y\"; watcher = { interval_ms = 500; dry_run = true; args = [ \"--verbose\" ]; }; env = [ \"A=${ARM}\" ]; },\n"
		"  { name = \"e\"; shim = false; lru_gen = false; workloads = ( { workload = \"c\"; policy_text = \"version = 1; rules = ( { match = [ \\\"**\\\" ]; on_map = [ \\\"noreuse\\\" ]; } );\"; env = [ \"B=1\" ]; } ); },\n"
		"  { name = \"p\"; policy = \"${DIR}/p.conf\"; watcher = true; }\n"
		");\n";
	struct experiment *e;
	struct exp_error err;

	cr_assert_eq(exp_parse_buffer(text, "t.conf", &e, &err), 0, "%d: %s",
		     err.line, err.msg);
	cr_assert_eq(e->narms, 3);
	cr_expect_eq(e->arms[0].lru_gen, 1);
	cr_expect(e->arms[0].watch.enabled);
	cr_expect(e->arms[0].watch.dry_run);
	cr_expect_eq(e->arms[0].watch.interval_ms, 500);
	cr_expect_str_eq(e->arms[0].watch.args[0], "--verbose");
	cr_expect_str_eq(e->arms[0].env[0], "A=${ARM}");
	cr_expect_eq(e->arms[1].lru_gen, 0);
	cr_expect_eq(e->arms[1].shim.enabled, 0);
	cr_assert_eq(e->arms[1].nov, 1);
	cr_expect_eq(e->arms[1].ov[0].wl, 1);
	cr_expect_eq(e->arms[1].ov[0].shim.enabled, 1, "a policy turns the shim on");
	cr_expect_str_eq(e->arms[1].ov[0].env[0], "B=1");
	cr_expect_eq(e->arms[2].shim.enabled, 1);
	cr_expect_str_eq(e->arms[2].shim.policy, "${DIR}/p.conf");
	cr_expect(e->arms[2].watch.enabled);
	cr_expect_eq(e->arms[2].watch.interval_ms, 1000);
	exp_free(e);
}

Test(ab_exp, default_and_examples_parse)
{
	struct experiment *e;
	struct exp_error err;
	glob_t g;

	cr_assert_eq(exp_parse_buffer(exp_default_text, "<default>", &e, &err), 0,
		     "%d: %s", err.line, err.msg);
	cr_expect_geq(e->narms, 2);
	cr_expect_geq(e->event_wl, 0);
	exp_free(e);
	/* The unit tests run in tests/fixtures/ab. */
	cr_assert_eq(glob("../../../examples/experiments/*.conf", 0, NULL, &g), 0,
		     "no examples/experiments/*.conf (run from tests/fixtures/ab)");
	for (size_t i = 0; i < g.gl_pathc; i++) {
		if (exp_load_file(g.gl_pathv[i], &e, &err))
			cr_expect_fail("%s:%d: %s", err.file, err.line, err.msg);
		else
			exp_free(e);
	}
	globfree(&g);
}

Test(ab_exp, io_errors_have_no_line)
{
	struct experiment *e;
	struct exp_error err;

	cr_expect_eq(exp_load_file("/nonexistent/x.conf", &e, &err), -1);
	cr_expect_eq(err.line, 0);
	cr_expect(strstr(err.msg, "cannot read") != NULL);
}

Test(ab_exp, syntax_and_top_level)
{
	expect_err(L1 "limit_mib = ;\n", 2, "syntax error");
	expect_err(L1 L2 "limt_mib = 5;\n" L3, 3, "unknown key \"limt_mib\"");
	expect_err(L2 L3 L4 L5 L6 L7 L8 L9 L10, 1, "\"version = 1;\" is required");
	expect_err("version = 2;\n" L2, 1, "unsupported version 2");
	expect_err(L1 L3 L4 L5 L6 L7 L8 L9 L10, 1, "\"limit_mib\"");
	expect_err(L1 "limit_mib = 1;\n", 2, "out of range");
	expect_err(L1 "limit_mib = 64.5;\n", 2, "whole number");
	expect_err(L1 L2 "duration_s = 0;\n", 3, "out of range");
	expect_err(L1 L2 "duration_s = \"10\";\n", 3, "duration_s: expected a number");
	expect_err(L1 L2 L3 "interval_ms = 5;\n", 4, "out of range");
	expect_err(L1 L2 L3 "dir = \"tmp\";\n" L4 L5 L6 L7 L8 L9 L10, 4, "absolute");
	expect_err(L1 L2 L3 "recover_pct = 120;\n", 4, "out of range");
}

Test(ab_exp, files)
{
	expect_err(L1 L2 L3 "files = ( { name = \"vec\"; path = \"/v\"; sise_mib = 8; } );\n",
		   4, "unknown key \"sise_mib\"");
	expect_err(L1 L2 L3 "files = ( { name = \"v b\"; path = \"/v\"; size_mib = 8; } );\n",
		   4, "letters, digits");
	expect_err(L1 L2 L3 "files = ( { name = \"v\"; path = \"/v\"; } );\n", 4, "\"size_mib\" is required");
	expect_err(L1 L2 L3 "files = ( { name = \"v\"; path = \"/v\"; size_mib = 1.5; } );\n", 4, "whole number");
	expect_err(L1 L2 L3 "files = ( { name = \"v\"; path = \"v.bin\"; size_mib = 1; } );\n", 4, "absolute");
	expect_err(L1 L2 L3 "files = ( { name = \"v\"; path = \"${OUT}/v\"; size_mib = 1; } );\n", 4,
		   "only ${DIR} and ${BUILD}");
	expect_err(L1 L2 L3 "files = ( { name = \"v\"; path = \"${DIRR}/v\"; size_mib = 1; } );\n", 4,
		   "unknown substitution");
	expect_err(L1 L2 L3 "files = (\n { name = \"v\"; path = \"/a\"; size_mib = 1; },\n"
		   " { name = \"v\"; path = \"/b\"; size_mib = 1; } );\n", 6, "used twice (first at line 5)");
	expect_err(L1 L2 L3 "files = { };\n", 4, "files: expected a list");
	expect_err(L1 L2 L3 "files = ( 1 );\n", 4, "element 1: expected a group");
}

Test(ab_exp, workloads)
{
	expect_err(L1 L2 L3 L4 L9 L10, 1, "\"workloads\" is required");
	expect_err(L1 L2 L3 L4 "workloads = ();\n", 5, "must not be empty");
	expect_err(L1 L2 L3 L4 L5 "  { name = \"r\"; throughput = true; }\n" L8, 6,
		   "\"command\" is required");
	expect_err(L1 L2 L3 L4 L5 "  { name = \"r\"; throughput = true; command = \"x\"; }\n" L8, 6,
		   "command: expected an array of strings");
	expect_err(L1 L2 L3 L4 L5 "  { name = \"r\"; throughput = true; command = [ ]; }\n" L8, 6,
		   "must not be empty");
	expect_err(L1 L2 L3 L4 L5 "  { name = \"r\"; throughput = true; command = [ \"${FOO}\" ]; }\n" L8, 6,
		   "unknown substitution");
	expect_err(L1 L2 L3 L4 L5 "  { name = \"r\"; throughput = true; command = [ \"${file:nope}\" ]; }\n" L8, 6,
		   "no file in \"files\" is named \"nope\"");
	expect_err(L1 L2 L3 L4 L5 "  { name = \"r\"; throughput = true; command = [ \"${BUILD\" ]; }\n" L8, 6,
		   "unterminated");
	expect_err(L1 L2 L3 L4 L5 "  { name = \"r\"; throughput = 1; command = [ \"x\" ]; }\n" L8, 6,
		   "true or false");
	expect_err(L1 L2 L3 L4 L5 "  { name = \"r\"; througput = true; command = [ \"x\" ]; }\n" L8, 6,
		   "unknown key \"througput\"");
	expect_err(L1 L2 L3 L4 L5 L6 "  { name = \"s\"; throughput = true; command = [ \"x\" ]; }\n" L8,
		   7, "only one workload can be the throughput source");
	expect_err(L1 L2 L3 L4 L5 L7 L8 L9 L10, 5, "one workload needs \"throughput = true\"");
	expect_err(L1 L2 L3 L4 L5 L6 "  { name = \"r\"; command = [ \"x\" ]; }\n" L8, 7,
		   "name \"r\" is used twice (first at line 6)");
	expect_err(L1 L2 L3 L4 L5 L6 "  { name = \"c\"; start_ms = 10000; command = [ \"x\" ]; }\n" L8 L9 L10,
		   7, "not before the end of the run");
	expect_err(L1 L2 L3 L4 L5 L6 "  { name = \"c\"; start_ms = -1; command = [ \"x\" ]; }\n" L8, 7,
		   "out of range");
}

Test(ab_exp, event)
{
	expect_err(L1 L2 L3 L4 L5 L6 L7 L8 "event = { workload = \"x\"; };\n" L10, 9,
		   "no workload is named \"x\"");
	expect_err(L1 L2 L3 L4 L5 L6 L7 L8 "event = { workload = \"r\"; };\n" L10, 9,
		   "is the throughput workload");
	expect_err(L1 L2 L3 L4 L5 L6 L7 L8 "event = { workload = \"c\"; at = 1; };\n" L10, 9,
		   "unknown key \"at\"");
	expect_err(L1 L2 L3 L4 L5 L6 L7 L8 "event = \"c\";\n" L10, 9, "event: expected a group");
	expect_err(L1 L2 L3 L4 L5 L6 L7 L8 "event = { };\n" L10, 9, "\"workload\" is required");
}

Test(ab_exp, arms)
{
#define PRE L1 L2 L3 L4 L5 L6 L7 L8 L9
	expect_err(PRE, 1, "\"arms\" is required");
	expect_err(PRE "arms = ( );\n", 10, "must not be empty");
	expect_err(PRE "arms = ( { label = \"x\"; } );\n", 10, "\"name\" is required");
	expect_err(PRE "arms = ( { name = \"a\"; shimm = true; } );\n", 10, "unknown key \"shimm\"");
	expect_err(PRE "arms = ( { name = \"a/b\"; } );\n", 10, "letters, digits");
	expect_err(PRE "arms = ( { name = \"abcdefghijklmnopqrstuvwxyz0123456789\"; } );\n", 10,
		   "longer than 32");
	expect_err(PRE "arms = (\n { name = \"a\"; },\n { name = \"a\"; } );\n", 12,
		   "arms[2]: name \"a\" is used twice (first at line 11)");
	expect_err(PRE "arms = ( { name = \"a\";\n policy = \"/p\";\n policy_text = \"version = 1;\"; } );\n",
		   12, "exclude each other");
	expect_err(PRE "arms = ( { name = \"a\";\n shim = false;\n policy = \"/p\"; } );\n", 11,
		   "a policy is given but \"shim = false\"");
	expect_err(PRE "arms = ( { name = \"a\";\n policy_text = \"version = 1;\\nrules = ( { bogus = 1; } );\"; } );\n",
		   11, "policy_text line 2");
	expect_err(PRE "arms = ( { name = \"a\";\n policy = \"${NOPE}/p\"; } );\n", 11,
		   "unknown substitution");
	expect_err(PRE "arms = ( { name = \"a\";\n lru_gen = \"maybe\"; } );\n", 11,
		   "lru_gen: expected true, false, \"y\" or \"n\"");
	expect_err(PRE "arms = ( { name = \"a\";\n watcher = \"yes\"; } );\n", 11,
		   "watcher: expected true, false or a group");
	expect_err(PRE "arms = ( { name = \"a\";\n watcher = { intervall_ms = 5; }; } );\n", 11,
		   "watcher: unknown key \"intervall_ms\"");
	expect_err(PRE "arms = ( { name = \"a\";\n watcher = { interval_ms = 5; }; } );\n", 11,
		   "out of range");
	expect_err(PRE "arms = ( { name = \"a\";\n watcher = { persist = 3; }; } );\n", 11,
		   "watcher: unknown key \"persist\"");
	expect_err(PRE "arms = ( { name = \"a\";\n watcher = { command = [ ]; }; } );\n", 11,
		   "must not be empty");
	expect_err(PRE "arms = ( { name = \"a\";\n env = [ \"FOO\" ]; } );\n", 11, "NAME=VALUE");
	expect_err(PRE "arms = ( { name = \"a\";\n env = [ \"LD_PRELOAD=/x.so\" ]; } );\n", 11,
		   "not LD_PRELOAD");
	expect_err(PRE "arms = ( { name = \"a\";\n env = [ \"X=${Y}\" ]; } );\n", 11,
		   "unknown substitution");
	expect_err(PRE "arms = ( { name = \"a\"; workloads = (\n { workload = \"zz\"; shim = true; } ); } );\n",
		   11, "no workload is named \"zz\"");
	expect_err(PRE "arms = ( { name = \"a\"; workloads = (\n { shim = true; } ); } );\n",
		   11, "\"workload\" is required");
	expect_err(PRE "arms = ( { name = \"a\"; workloads = (\n { workload = \"c\"; },\n { workload = \"c\"; } ); } );\n",
		   12, "overridden twice");
	expect_err(PRE "arms = ( { name = \"a\"; workloads = (\n { workload = \"c\"; start_ms = 1; } ); } );\n",
		   11, "unknown key \"start_ms\"");
	expect_err(PRE "arms = ( { name = \"a\"; workloads = (\n { workload = \"c\";\n env = [ \"=x\" ]; } ); } );\n",
		   12, "NAME=VALUE");
#undef PRE
}

Test(ab_exp, override_command)
{
	static const char text[] = L1 L2 L3 L4 L5 L6 L7 L8 L9
		"arms = ( { name = \"normal\"; workloads = ( { workload = \"r\";\n"
		" command = [ \"${BUILD}/advshim-load\", \"random\", \"--advice\", \"normal\", \"${file:vec}\" ]; } ); } );\n";
	struct experiment *e;
	struct exp_error err;

	cr_assert_eq(exp_parse_buffer(text, "t.conf", &e, &err), 0, "%d: %s",
		     err.line, err.msg);
	cr_assert_eq(e->arms[0].nov, 1);
	cr_expect_eq(e->arms[0].ov[0].argc, 5);
	cr_expect_str_eq(e->arms[0].ov[0].argv[3], "normal");
	cr_expect_eq(e->arms[0].ov[0].shim.enabled, -1);
	exp_free(e);
	expect_err(L1 L2 L3 L4 L5 L6 L7 L8 L9
		   "arms = ( { name = \"a\"; workloads = ( { workload = \"r\";\n command = [ ]; } ); } );\n",
		   11, "must not be empty");
	expect_err(L1 L2 L3 L4 L5 L6 L7 L8 L9
		   "arms = ( { name = \"a\"; workloads = ( { workload = \"r\";\n command = [ \"${file:x}\" ]; } ); } );\n",
		   11, "no file in \"files\" is named \"x\"");
}
