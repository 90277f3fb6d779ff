// SPDX-License-Identifier: MIT
/*
 * test_policy_errors.c - every validation error: exact line and the key
 * part of the message.  Each policy text is built so that the offending
 * setting sits on a known line.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "policy/policy.h"

/* expect_error - parsing @text fails at @line with @frag in the message. */
static void expect_error(const char *text, int line, const char *frag)
{
	struct policy_error err;
	struct policy *p = NULL;
	int ret;

	ret = policy_parse_buffer(text, "t.conf", &p, &err);
	cr_assert_eq(ret, -1, "expected an error containing \"%s\"", frag);
	cr_assert_null(p);
	cr_expect_str_eq(err.file, "t.conf");
	cr_expect_eq(err.line, line, "line %d, expected %d (%s)", err.line,
		     line, err.msg);
	cr_expect(strstr(err.msg, frag), "message \"%s\" lacks \"%s\"",
		  err.msg, frag);
}

#define V "version = 1;\n"	/* line 1 */

#define ERR(name, text, line, frag)			\
	Test(policy_errors, name)			\
	{						\
		expect_error(text, line, frag);		\
	}

/* syntax and version */
ERR(syntax_double_equals, V "\nlog = { level = = \"warn\"; };\n", 3,
    "syntax error")
ERR(syntax_missing_comma, V "rules = (\n  { match = \"/a/**\"; }\n"
    "  { match = \"**\"; }\n);\n", 4, "syntax error")
ERR(syntax_unclosed, V "rules = (\n  { match = \"**\";\n", 4, "syntax error")
ERR(syntax_duplicate_key, V "processes = [ \"a\" ];\nprocesses = [ \"b\" ];\n",
    3, "duplicate setting")
ERR(include_refused, V "\n  @include \"rules.conf\"\n", 3,
    "@include is not supported")
ERR(version_missing, "rules = ();\n", 1, "missing `version = 1;`")
ERR(version_wrong, "\nversion = 2;\n", 2, "unsupported version 2 (expected 1)")
ERR(version_string, "version = \"1\";\n", 1, "expected the integer 1, got a string")
ERR(version_float, "version = 1.0;\n", 1, "got a floating-point number")

/* top level */
ERR(unknown_top_key, V "rulez = ();\n", 2,
    "unknown key \"rulez\" (expected version, log, processes, rules, watch)")
ERR(rules_group, V "rules = { match = \"**\"; };\n", 2,
    "rules: expected a list")
ERR(rules_array, V "rules = [ \"**\" ];\n", 2, "rules: expected a list")
ERR(rules_element_not_group, V "rules = ( \"**\" );\n", 2,
    "element 1: expected a group")
ERR(watch_not_group, V "watch = 5;\n", 2, "watch: expected a group")

/* log */
ERR(log_not_group, V "log = \"warn\";\n", 2, "log: expected a group")
ERR(log_unknown_key, V "log = {\n  level = \"warn\";\n  file = \"/x\";\n};\n", 4,
    "log: unknown key \"file\" (expected level, target)")
ERR(log_level_unknown, V "log = { level = \"verbose\"; };\n", 2,
    "unknown level \"verbose\" (expected off, warn, info, debug)")
ERR(log_level_type, V "log = { level = 2; };\n", 2,
    "log.level: expected a string, got an integer")
ERR(log_target_relative, V "log = { target = \"advshim.log\"; };\n", 2,
    "neither \"stderr\" nor an absolute path")
ERR(log_target_stdout, V "log = { target = \"stdout\"; };\n", 2,
    "neither \"stderr\" nor an absolute path")
ERR(log_target_dir, V "log = { target = \"/var/log/\"; };\n", 2,
    "is a directory")

/* processes */
ERR(processes_empty_name, V "processes = [ \"java\", \"\" ];\n", 2,
    "processes: empty executable name")
ERR(processes_slash, V "processes = [ \"/usr/bin/java\" ];\n", 2,
    "contains '/'")
ERR(processes_dup, V "processes = [ \"java\",\n \"java\" ];\n", 3,
    "\"java\" is listed twice")
ERR(processes_empty_list, V "processes = [ ];\n", 2,
    "processes: empty list")
ERR(processes_type, V "processes = 3;\n", 2,
    "expected a string or a list")
ERR(processes_elem_type, V "processes = ( \"java\", 3 );\n", 2,
    "processes: expected a string, got an integer")

/* rules: structure */
#define R "rules = (\n"		/* line 2; rules start on line 3 */
ERR(rule_unknown_key, V R "  { match = \"**\";\n    randm = \"normal\"; }\n);\n", 4,
    "rule \"rule 1\": unknown key \"randm\" (expected name, match, normal")
ERR(rule_noreuse_key, V R "  { match = \"**\"; noreuse = \"skip\"; }\n);\n", 3,
    "noreuse is not a madvise advice (put it in fadvise")
ERR(rule_missing_match, V R "  { name = \"x\";\n random = \"normal\"; }\n);\n", 3,
    "rule \"x\": missing match")
ERR(rule_empty_match, V R "  { match = [ ]; }\n);\n", 3, "match is empty")
ERR(rule_match_type, V R "  { match = 5; }\n);\n", 3,
    "rule \"rule 1\": match: expected a string or a list")
ERR(rule_match_elem_type, V R "  { match = ( \"**\", 5 ); }\n);\n", 3,
    "match: expected a string, got an integer")
ERR(rule_name_type, V R "  { name = 1; match = \"**\"; }\n);\n", 3,
    "rule 1: name: expected a string")
ERR(rule_name_empty, V R "  { name = \"\"; match = \"**\"; }\n);\n", 3,
    "empty name")
ERR(rule_name_dup, V R "  { name = \"a\"; match = \"/x/**\"; },\n"
    "  { name = \"a\"; match = \"/y/**\"; }\n);\n", 4,
    "rule \"a\": duplicate rule name (rule 1 at line 3")
ERR(rule_name_dup_default, V R "  { name = \"rule 2\"; match = \"/x/**\"; },\n"
    "  { match = \"/y/**\"; }\n);\n", 4, "duplicate rule name")
ERR(rule_action_type, V R "  { match = \"**\"; random = 1; }\n);\n", 3,
    "rule \"rule 1\": random: expected a string, got an integer")
ERR(rule_glob_dup, V R "  { match = [ \"/a/**\",\n \"/a/**\" ]; }\n);\n", 4,
    "glob \"/a/**\" is listed twice")

/* globs */
ERR(glob_unbalanced, V R "  { match = [ \"/a/**\",\n \"/x/[ab\" ]; }\n);\n", 4,
    "bad glob \"/x/[ab\": unbalanced '['")
ERR(glob_double_star_in_comp, V R "  { match = \"/a**b\"; }\n);\n", 3,
    "'**' must be a whole path component")
ERR(glob_triple_star, V R "  { match = \"/a/***/b\"; }\n);\n", 3,
    "'**' must be a whole path component")
ERR(glob_empty, V R "  { match = \"\"; }\n);\n", 3, "empty pattern")
ERR(glob_relative, V R "  { match = \"*.vec\"; }\n);\n", 3, "not absolute")
ERR(glob_trailing_slash, V R "  { match = \"/data/\"; }\n);\n", 3,
    "trailing '/'")
ERR(glob_double_slash, V R "  { match = \"/data//x\"; }\n);\n", 3,
    "empty path component")
ERR(glob_dotdot, V R "  { match = \"/data/../x\"; }\n);\n", 3,
    "'.' or '..' component")
ERR(glob_slash_in_class, V R "  { match = \"/a[/]b\"; }\n);\n", 3,
    "'/' inside [...]")
ERR(glob_reversed_range, V R "  { match = \"/a/[z-a]\"; }\n);\n", 3,
    "reversed range")
ERR(glob_trailing_backslash, V R "  { match = \"/a/b\\\\\"; }\n);\n", 3,
    "'\\' at the end")

/* advice values */
ERR(advice_unknown, V R "  { name = \"vectors\"; match = \"**\";\n"
    "    random = \"rnadom\"; }\n);\n", 4,
    "rule \"vectors\": unknown advice \"rnadom\" for key random "
    "(expected keep, skip, normal, random, sequential, willneed)")
ERR(advice_unknown_fadvise, V R "  { match = \"**\";\n"
    "    fadvise = { random = \"fast\"; }; }\n);\n", 4,
    "unknown advice \"fast\" for key fadvise.random (expected keep, skip, "
    "normal, random, sequential, willneed, noreuse)")
ERR(advice_others_value, V R "  { match = \"**\"; random = \"others\"; }\n);\n", 3,
    "unknown advice \"others\"")
ERR(madvise_to_noreuse, V R "  { match = \"**\"; random = \"noreuse\"; }\n);\n", 3,
    "noreuse is not a madvise advice, random cannot be rewritten to it")
ERR(madvise_to_dontneed, V R "  { match = \"**\"; willneed = \"dontneed\"; }\n);\n", 3,
    "rewriting willneed to dontneed would drop cached data")
ERR(fadvise_to_dontneed, V R "  { match = \"**\";\n"
    "    fadvise = { noreuse = \"dontneed\"; }; }\n);\n", 4,
    "rewriting fadvise.noreuse to dontneed would drop cached data")
ERR(madvise_dontneed_skip, V R "  { match = \"**\"; dontneed = \"skip\"; }\n);\n", 3,
    "madvise dontneed can only be keep")
ERR(madvise_dontneed_rewrite, V R "  { match = \"**\"; dontneed = \"normal\"; }\n);\n", 3,
    "madvise dontneed can only be keep")
ERR(madvise_others_rewrite, V R "  { match = \"**\"; others = \"normal\"; }\n);\n", 3,
    "madvise others can only be keep: it covers advice like MADV_REMOVE")
ERR(madvise_others_skip, V R "  { match = \"**\"; others = \"skip\"; }\n);\n", 3,
    "madvise others can only be keep")
ERR(madvise_others_unknown, V R "  { match = \"**\"; others = \"nope\"; }\n);\n", 3,
    "unknown advice \"nope\" for key others (expected keep)")
ERR(madvise_dontneed_unknown, V R "  { match = \"**\"; dontneed = \"nope\"; }\n);\n", 3,
    "unknown advice \"nope\" for key dontneed (expected keep)")
ERR(fadvise_others_unknown, V R "  { match = \"**\";\n"
    "    fadvise = { others = \"nope\"; }; }\n);\n", 4,
    "unknown advice \"nope\" for key fadvise.others (expected keep, skip)")
ERR(fadvise_others_rewrite, V R "  { match = \"**\";\n"
    "    fadvise = { others = \"random\"; }; }\n);\n", 4,
    "fadvise.others can only be keep or skip")
ERR(rewrite_to_self, V R "  { match = \"**\"; random = \"random\"; }\n);\n", 3,
    "rewriting random to random changes nothing: use keep")
ERR(rewrite_to_self_fadvise, V R "  { match = \"**\";\n"
    "    fadvise = { noreuse = \"noreuse\"; }; }\n);\n", 4,
    "rewriting fadvise.noreuse to noreuse changes nothing: use keep")
ERR(advice_uppercase, V R "  { match = \"**\"; random = \"NORMAL\"; }\n);\n", 3,
    "unknown advice \"NORMAL\"")

/* fadvise group */
ERR(fadvise_not_group, V R "  { match = \"**\"; fadvise = \"normal\"; }\n);\n", 3,
    "fadvise: expected a group")
ERR(fadvise_unknown_key, V R "  { match = \"**\";\n"
    "    fadvise = { normal = \"keep\";\n      reuse = \"skip\"; }; }\n);\n", 5,
    "rule \"rule 1\": fadvise: unknown key \"reuse\" (expected normal, random, sequential, "
    "willneed, dontneed, noreuse, others)")

/* on_map */
ERR(on_map_unknown, V R "  { match = \"**\"; on_map = [ \"dontneed\" ]; }\n);\n", 3,
    "unknown on_map action \"dontneed\" (expected noreuse, normal)")
ERR(on_map_both, V R "  { match = \"**\";\n    on_map = [ \"noreuse\", \"normal\" ]; }\n);\n",
    4, "on_map has both noreuse and normal")
ERR(on_map_dup, V R "  { match = \"**\";\n    on_map = [ \"noreuse\",\n"
    "  \"noreuse\" ]; }\n);\n", 5, "on_map lists \"noreuse\" twice")
ERR(on_map_type, V R "  { match = \"**\"; on_map = { a = 1; }; }\n);\n", 3,
    "on_map: expected a string or a list")

/* reachability */
ERR(unreachable_after_catch_all, V R "  { name = \"all\"; match = \"**\"; },\n"
    "  { name = \"vec\"; match = \"**/*.vec\"; random = \"normal\"; }\n);\n", 4,
    "rule \"vec\" can never match: rule \"all\" (line 3)")
ERR(unreachable_after_slash_catch_all, V R "  { match = [ \"/x/**\", \"/**\" ]; },\n"
    "  { match = \"/y/**\"; }\n);\n", 4, "matches every path with \"/**\"")
ERR(dead_glob, V R "  { name = \"a\"; match = \"/data/**\"; },\n"
    "  { name = \"b\"; match = [ \"/other/**\", \"/data/**\" ]; }\n);\n", 4,
    "rule \"b\": glob \"/data/**\" can never match here: rule \"a\" (line 3)")

Test(policy_errors, no_text)
{
	struct policy_error err;
	struct policy *p = NULL;

	cr_assert_eq(policy_parse_buffer(NULL, "x", &p, &err), -1);
	cr_assert_eq(err.line, 0);
	cr_assert_null(p);
}

Test(policy_errors, load_file_missing)
{
	struct policy_error err;
	struct policy *p = NULL;

	cr_assert_eq(policy_load_file("/nonexistent/advshim.conf", &p, &err),
		     -1);
	cr_assert_eq(err.line, 0);
	cr_assert_str_eq(err.file, "/nonexistent/advshim.conf");
	cr_assert(strstr(err.msg, "cannot open"), "%s", err.msg);
}

Test(policy_errors, load_file_directory)
{
	struct policy_error err;
	struct policy *p = NULL;

	cr_assert_eq(policy_load_file("/", &p, &err), -1);
	cr_assert_eq(err.line, 0);
	cr_assert(strstr(err.msg, "Is a directory"), "%s", err.msg);
}

/* load_error - policy_load_file(@path) fails with @frag, no line. */
static void load_error(const char *path, const char *frag)
{
	struct policy_error err;
	struct policy *p = NULL;

	cr_assert_eq(policy_load_file(path, &p, &err), -1, "%s loaded", path);
	cr_assert_null(p);
	cr_expect_eq(err.line, 0);
	cr_expect_str_eq(err.file, path);
	cr_expect(strstr(err.msg, frag), "message \"%s\" lacks \"%s\"",
		  err.msg, frag);
}

Test(policy_errors, load_file_not_text)
{
	char dir[] = "/tmp/advshim-policy-XXXXXX", path[64];
	static char big[(1u << 20) + 2];
	struct policy *p = NULL;
	struct policy_error err;
	FILE *f;

	cr_assert_not_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/fifo", dir);
	cr_assert_eq(mkfifo(path, 0600), 0);
	load_error(path, "not a regular file");
	unlink(path);
	snprintf(path, sizeof(path), "%s/nul", dir);
	f = fopen(path, "w");
	fwrite("version = 1;\0\n", 1, 15, f);
	fclose(f);
	load_error(path, "contains NUL bytes");
	memset(big, '\n', sizeof(big));
	memcpy(big, "version = 1;", 12);
	f = fopen(path, "w");
	fwrite(big, 1, sizeof(big), f);
	fclose(f);
	load_error(path, "larger than 1 MiB");
	/* exactly 1 MiB is still read (and parses: newlines only) */
	f = fopen(path, "w");
	fwrite(big, 1, 1u << 20, f);
	fclose(f);
	cr_expect_eq(policy_load_file(path, &p, &err), 0, "%s", err.msg);
	policy_free(p);
	unlink(path);
	rmdir(dir);
}

Test(policy_errors, format)
{
	struct policy_error err = { .file = "a.conf", .line = 7, .msg = "bad" };
	char buf[64];

	cr_assert_str_eq(policy_error_format(&err, buf, sizeof(buf)),
			 "a.conf:7: bad");
	err.line = 0;
	cr_assert_str_eq(policy_error_format(&err, buf, sizeof(buf)),
			 "a.conf: bad");
}
