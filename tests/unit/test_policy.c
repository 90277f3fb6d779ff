// SPDX-License-Identifier: MIT
/*
 * test_policy.c - parsing a valid policy into the expected structure,
 * matching and decisions, advice conversions, the embedded default,
 * process selection, loading from a file, and the printed table.
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "policy/policy.h"

static const char full[] =
	"version = 1;\n"						/* 1 */
	"log = { level = \"info\"; target = \"/var/log/advshim.log\"; };\n"
	"processes = [ \"java\", \"fio\" ];\n"
	"rules = (\n"
	"  { name = \"vectors\";\n"					/* 5 */
	"    match = [ \"**/*.vec\", \"**/*.vex\", \"**/*.veq\" ];\n"
	"    random = \"normal\";\n"
	"    sequential = \"keep\";\n"
	"    willneed = \"skip\";\n"
	"    normal = \"random\";\n"					/* 10 */
	"    fadvise = { random = \"normal\"; noreuse = \"skip\";\n"
	"                dontneed = \"skip\"; sequential = \"noreuse\"; };\n"
	"    on_map = [ \"noreuse\" ];\n"
	"  },\n"
	"  { match = \"/backups/**\"; on_map = \"normal\"; },\n"	/* 15 */
	"  { match = \"**\"; }\n"
	");\n"
	"watch = { interval_ms = 1000; anything = \"goes\"; };\n";

static struct policy *parse_ok(const char *text)
{
	struct policy_error err;
	struct policy *p = NULL;

	cr_assert_eq(policy_parse_buffer(text, "t.conf", &p, &err), 0,
		     "%s:%d: %s", err.file, err.line, err.msg);
	cr_assert_not_null(p);
	return p;
}

static void expect_act(const struct policy_rule *r, enum adv_family fam,
		       enum adv_kind kind, enum adv_act act, enum adv_kind to)
{
	struct adv_action a = policy_decide(r, fam, kind);

	cr_expect_eq(a.act, act, "%s %s: act %d, expected %d",
		     adv_family_name(fam), adv_kind_name(kind), a.act, act);
	if (act == ADV_ACT_REWRITE)
		cr_expect_eq(a.to, to, "%s %s: to %s, expected %s",
			     adv_family_name(fam), adv_kind_name(kind),
			     adv_kind_name(a.to), adv_kind_name(to));
}

Test(policy, parse_full)
{
	struct policy *p = parse_ok(full);
	const struct policy_rule *r;

	cr_expect_str_eq(p->source, "t.conf");
	cr_expect_eq(p->version, 1);
	cr_expect_eq(p->log.level, POLICY_LOG_INFO);
	cr_expect_str_eq(p->log.target, "/var/log/advshim.log");
	cr_assert_eq(p->nr_processes, 2);
	cr_expect_str_eq(p->processes[0], "java");
	cr_expect_str_eq(p->processes[1], "fio");
	cr_expect(p->has_watch);
	cr_assert_eq(p->nr_rules, 3);

	r = &p->rules[0];
	cr_expect_str_eq(r->name, "vectors");
	cr_expect_eq(r->line, 5);
	cr_assert_eq(r->nr_globs, 3);
	cr_expect_str_eq(r->globs[2], "**/*.veq");
	cr_expect_eq(r->on_map, MAP_ACT_NOREUSE);
	expect_act(r, ADV_FAMILY_MADVISE, ADV_RANDOM, ADV_ACT_REWRITE, ADV_NORMAL);
	expect_act(r, ADV_FAMILY_MADVISE, ADV_SEQUENTIAL, ADV_ACT_KEEP, 0);
	expect_act(r, ADV_FAMILY_MADVISE, ADV_WILLNEED, ADV_ACT_SKIP, 0);
	expect_act(r, ADV_FAMILY_MADVISE, ADV_OTHER, ADV_ACT_KEEP, 0);
	expect_act(r, ADV_FAMILY_MADVISE, ADV_NORMAL, ADV_ACT_REWRITE,
		   ADV_RANDOM);
	expect_act(r, ADV_FAMILY_MADVISE, ADV_DONTNEED, ADV_ACT_KEEP, 0);
	expect_act(r, ADV_FAMILY_FADVISE, ADV_RANDOM, ADV_ACT_REWRITE, ADV_NORMAL);
	expect_act(r, ADV_FAMILY_FADVISE, ADV_NOREUSE, ADV_ACT_SKIP, 0);
	expect_act(r, ADV_FAMILY_FADVISE, ADV_DONTNEED, ADV_ACT_SKIP, 0);
	expect_act(r, ADV_FAMILY_FADVISE, ADV_SEQUENTIAL, ADV_ACT_REWRITE,
		   ADV_NOREUSE);
	expect_act(r, ADV_FAMILY_FADVISE, ADV_OTHER, ADV_ACT_KEEP, 0);

	r = &p->rules[1];
	cr_expect_str_eq(r->name, "rule 2");
	cr_expect_eq(r->line, 15);
	cr_assert_eq(r->nr_globs, 1);
	cr_expect_str_eq(r->globs[0], "/backups/**");
	cr_expect_eq(r->on_map, MAP_ACT_NORMAL);
	expect_act(r, ADV_FAMILY_MADVISE, ADV_RANDOM, ADV_ACT_KEEP, 0);

	r = &p->rules[2];
	cr_expect_str_eq(r->name, "rule 3");
	cr_expect_eq(r->on_map, 0);
	policy_free(p);
}

Test(policy, defaults)
{
	struct policy *p = parse_ok("version = 1;\n");

	cr_expect_eq(p->log.level, POLICY_LOG_WARN);
	cr_expect_str_eq(p->log.target, "stderr");
	cr_expect_eq(p->nr_processes, 0);
	cr_expect_eq(p->nr_rules, 0);
	cr_expect(!p->has_watch);
	cr_expect_null(policy_match(p, "/a"));
	policy_free(p);

	p = parse_ok("version = 1; rules = ();\n");
	cr_expect_eq(p->nr_rules, 0);
	policy_free(p);
	p = parse_ok("version = 1; rules = [];\n");
	cr_expect_eq(p->nr_rules, 0);
	policy_free(p);
}

Test(policy, adaptive)
{
	struct adapt_params def;
	struct policy *p;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	adapt_params_default(&def);
	p = parse_ok("version = 1;\n"
		     "rules = ( { name = \"v\"; match = \"**/*.vec\";\n"
		     "            random = \"adaptive\"; },\n"
		     "          { match = \"**\"; } );\n");
	cr_expect(p->has_adaptive);
	cr_expect_eq(p->adaptive.line, 0);
	cr_expect_eq(p->adaptive.interval_ms, ADAPT_INTERVAL_MS);
	cr_expect(!memcmp(&p->adaptive.params, &def, sizeof(def)));
	expect_act(&p->rules[0], ADV_FAMILY_MADVISE, ADV_RANDOM, ADV_ACT_ADAPT, 0);
	cr_expect(policy_rule_adaptive(&p->rules[0]));
	cr_expect(!policy_rule_adaptive(&p->rules[1]));
	cr_expect(!policy_rule_adaptive(NULL));
	policy_free(p);

	p = parse_ok("version = 1;\n"
		     "adaptive = { fit_pct = 90; nofit_pct = 150; persist = 2;\n"
		     "  guard_fit_pct = 85;\n"
		     "  thrash_persist = 10; thrash_usage_pct = 90;\n"
		     "  thrash_majflt_s = 0; thrash_refaults = 8; dwell_ms = 0;\n"
		     "  max_per_min = 8; fail_after = 1; interval_ms = 250; };\n"
		     "rules = ( { match = \"**\"; random = \"adaptive\"; } );\n");
	cr_expect_eq(p->adaptive.line, 2);
	cr_expect_eq(p->adaptive.params.fit_pct, 90);
	cr_expect_eq(p->adaptive.params.nofit_pct, 150);
	cr_expect_eq(p->adaptive.params.guard_fit_pct, 85);
	cr_expect_eq(p->adaptive.params.persist, 2);
	cr_expect_eq(p->adaptive.params.thrash_persist, 10);
	cr_expect_eq(p->adaptive.params.thrash_usage_pct, 90);
	cr_expect_eq(p->adaptive.params.thrash_majflt_s, 0);
	cr_expect_eq(p->adaptive.params.thrash_refaults, 8);
	cr_expect_eq(p->adaptive.params.dwell_ms, 0);
	cr_expect_eq(p->adaptive.params.max_per_min, 8);
	cr_expect_eq(p->adaptive.params.fail_after, 1);
	cr_expect_eq(p->adaptive.interval_ms, 250);
	f = open_memstream(&buf, &len);
	cr_assert_not_null(f);
	policy_print(p, f);
	fclose(f);
	cr_expect(strstr(buf, "adaptive (the group at line 2)"), "%s", buf);
	cr_expect(strstr(buf, "normal advice while need <= 90% of capacity, "
			 "MADV_RANDOM from 150%"), "%s", buf);
	cr_expect(strstr(buf, "  random        adaptive            keep\n"),
		  "%s", buf);
	cr_expect(!strstr(buf, " \n"), "trailing blanks in:\n%s", buf);
	free(buf);
	policy_free(p);

	/* A group no rule uses is allowed, and said so. */
	p = parse_ok("version = 1;\nadaptive = { dwell_ms = 1000; };\n");
	cr_expect(!p->has_adaptive);
	buf = NULL;
	f = open_memstream(&buf, &len);
	policy_print(p, f);
	fclose(f);
	cr_expect(strstr(buf, "adaptive: settings unused"), "%s", buf);
	free(buf);
	policy_free(p);
}

Test(policy, on_map_forms)
{
	struct policy *p = parse_ok("version = 1; rules = (\n"
		"{ match = \"/a/**\"; on_map = [ ]; },\n"
		"{ match = \"/b/**\"; on_map = ( \"noreuse\" ); },\n"
		"{ match = \"/c/**\"; on_map = \"normal\"; });\n");

	cr_expect_eq(p->rules[0].on_map, 0);
	cr_expect_eq(p->rules[1].on_map, MAP_ACT_NOREUSE);
	cr_expect_eq(p->rules[2].on_map, MAP_ACT_NORMAL);
	policy_free(p);
}

Test(policy, allowed_edge_actions)
{
	/* fadvise dontneed may be skipped; keep is always fine. */
	struct policy *p = parse_ok("version = 1; rules = ({ match = \"**\";\n"
		"dontneed = \"keep\"; others = \"keep\"; normal = \"random\";\n"
		"fadvise = { dontneed = \"skip\"; others = \"skip\";\n"
		"  willneed = \"skip\"; normal = \"sequential\"; }; });\n");
	const struct policy_rule *r = &p->rules[0];

	expect_act(r, ADV_FAMILY_MADVISE, ADV_DONTNEED, ADV_ACT_KEEP, 0);
	expect_act(r, ADV_FAMILY_MADVISE, ADV_NORMAL, ADV_ACT_REWRITE, ADV_RANDOM);
	expect_act(r, ADV_FAMILY_FADVISE, ADV_DONTNEED, ADV_ACT_SKIP, 0);
	expect_act(r, ADV_FAMILY_FADVISE, ADV_OTHER, ADV_ACT_SKIP, 0);
	expect_act(r, ADV_FAMILY_FADVISE, ADV_NORMAL, ADV_ACT_REWRITE,
		   ADV_SEQUENTIAL);
	policy_free(p);
}

Test(policy, first_match_wins)
{
	struct policy *p = parse_ok(full);
	size_t g = 99;

	cr_expect_eq(policy_match(p, "/idx/_0.vec"), &p->rules[0]);
	cr_expect_eq(policy_match_glob(p, "/idx/_0.veq", &g), &p->rules[0]);
	cr_expect_eq(g, 2);
	cr_expect_eq(policy_match(p, "/backups/x.vec"), &p->rules[0]);
	cr_expect_eq(policy_match(p, "/backups/x.tar"), &p->rules[1]);
	cr_expect_eq(policy_match_glob(p, "/etc/passwd", &g), &p->rules[2]);
	cr_expect_eq(g, 0);
	cr_expect_null(policy_match(NULL, "/a"));
	cr_expect_null(policy_match(p, NULL));
	policy_free(p);
}

Test(policy, no_match_passes_through)
{
	struct policy *p = parse_ok("version = 1;\n"
		"rules = ( { match = \"/data/**\"; random = \"normal\"; } );\n");

	cr_expect_null(policy_match_glob(p, "/other/x", NULL));
	expect_act(policy_match(p, "/other/x"), ADV_FAMILY_MADVISE,
		   ADV_RANDOM, ADV_ACT_KEEP, 0);
	expect_act(policy_match(p, "/data/x"), ADV_FAMILY_MADVISE,
		   ADV_RANDOM, ADV_ACT_REWRITE, ADV_NORMAL);
	policy_free(p);
}

Test(policy, decide_out_of_range_keeps)
{
	struct policy *p = parse_ok(full);
	struct adv_action a;

	a = policy_decide(&p->rules[0], ADV_NR_FAMILIES, ADV_RANDOM);
	cr_expect_eq(a.act, ADV_ACT_KEEP);
	a = policy_decide(&p->rules[0], ADV_FAMILY_MADVISE, ADV_NR_KINDS);
	cr_expect_eq(a.act, ADV_ACT_KEEP);
	a = policy_decide(NULL, ADV_FAMILY_FADVISE, ADV_NOREUSE);
	cr_expect_eq(a.act, ADV_ACT_KEEP);
	/* madvise has no noreuse: never anything but keep. */
	a = policy_decide(&p->rules[0], ADV_FAMILY_MADVISE, ADV_NOREUSE);
	cr_expect_eq(a.act, ADV_ACT_KEEP);
	policy_free(p);
}

Test(policy, default_policy)
{
	struct policy_error err;
	struct policy *p = NULL;
	const struct policy_rule *r;

	cr_assert_eq(policy_load_default(&p, &err), 0, "%s", err.msg);
	cr_expect_str_eq(p->source, "<default>");
	cr_assert_eq(p->nr_rules, 1);
	cr_expect_str_eq(p->rules[0].name, "default");
	cr_expect_eq(p->nr_processes, 0);
	cr_expect_eq(p->log.level, POLICY_LOG_WARN);
	r = policy_match(p, "/var/lib/opensearch/nodes/0/indices/x/_0.vec");
	cr_assert_eq(r, &p->rules[0]);
	cr_expect_eq(policy_match(p, "/"), r);
	expect_act(r, ADV_FAMILY_MADVISE, ADV_RANDOM, ADV_ACT_ADAPT, 0);
	cr_expect(policy_rule_adaptive(r));
	cr_expect_eq(p->adaptive.params.fit_pct, 100);
	cr_expect_eq(p->adaptive.params.nofit_pct, 120);
	for (int k = 0; k < ADV_NR_KINDS; k++) {
		if (k != ADV_RANDOM)
			expect_act(r, ADV_FAMILY_MADVISE, k, ADV_ACT_KEEP, 0);
		expect_act(r, ADV_FAMILY_FADVISE, k, ADV_ACT_KEEP, 0);
	}
	cr_expect_eq(r->on_map, 0);
	policy_free(p);
}

Test(policy, selects_process)
{
	struct policy *p = parse_ok(full);
	struct policy *all = parse_ok("version = 1;\n");
	struct policy *one = parse_ok("version = 1; processes = \"java\";\n");

	cr_expect(policy_selects_process(p, "java"));
	cr_expect(policy_selects_process(p, "fio"));
	cr_expect(!policy_selects_process(p, "javac"));
	cr_expect(!policy_selects_process(p, "jav"));
	cr_expect(!policy_selects_process(p, NULL));
	cr_expect(policy_selects_process(all, "anything"));
	cr_expect(policy_selects_process(all, NULL));
	cr_expect(policy_selects_process(one, "java"));
	cr_expect(!policy_selects_process(NULL, "java"));
	policy_free(p);
	policy_free(all);
	policy_free(one);
}

Test(policy, conversions)
{
	/* Linux: MADV_* == POSIX_MADV_* for 0..4. */
	cr_expect_eq(MADV_RANDOM, POSIX_MADV_RANDOM);
	cr_expect_eq(adv_from_madvise(0), ADV_NORMAL);
	cr_expect_eq(adv_from_madvise(1), ADV_RANDOM);
	cr_expect_eq(adv_from_madvise(2), ADV_SEQUENTIAL);
	cr_expect_eq(adv_from_madvise(3), ADV_WILLNEED);
	cr_expect_eq(adv_from_madvise(4), ADV_DONTNEED);
	cr_expect_eq(adv_from_madvise(5), ADV_OTHER);
	cr_expect_eq(adv_from_madvise(MADV_FREE), ADV_OTHER);
	cr_expect_eq(adv_from_madvise(23), ADV_OTHER);	/* HotSpot's probe */
	cr_expect_eq(adv_from_madvise(-1), ADV_OTHER);
	cr_expect_eq(adv_from_fadvise(POSIX_FADV_NORMAL), ADV_NORMAL);
	cr_expect_eq(adv_from_fadvise(POSIX_FADV_RANDOM), ADV_RANDOM);
	cr_expect_eq(adv_from_fadvise(POSIX_FADV_SEQUENTIAL), ADV_SEQUENTIAL);
	cr_expect_eq(adv_from_fadvise(POSIX_FADV_WILLNEED), ADV_WILLNEED);
	cr_expect_eq(adv_from_fadvise(POSIX_FADV_DONTNEED), ADV_DONTNEED);
	cr_expect_eq(adv_from_fadvise(POSIX_FADV_NOREUSE), ADV_NOREUSE);
#if defined(__x86_64__) || defined(__aarch64__)
	cr_expect_eq(POSIX_FADV_NOREUSE, 5);
	cr_expect_eq(adv_from_fadvise(5), ADV_NOREUSE);
#endif
	cr_expect_eq(adv_from_fadvise(42), ADV_OTHER);
	cr_expect_eq(adv_from_fadvise(-3), ADV_OTHER);

	for (int k = ADV_NORMAL; k <= ADV_DONTNEED; k++) {
		cr_expect_eq((int)adv_from_madvise(adv_to_madvise(k)), k);
		cr_expect_eq((int)adv_from_fadvise(adv_to_fadvise(k)), k);
	}
	cr_expect_eq(adv_to_madvise(ADV_NOREUSE), -1);
	cr_expect_eq(adv_to_madvise(ADV_OTHER), -1);
	cr_expect_eq(adv_to_madvise(ADV_NR_KINDS), -1);
	cr_expect_eq(adv_to_fadvise(ADV_NOREUSE), POSIX_FADV_NOREUSE);
	cr_expect_eq(adv_to_fadvise(ADV_OTHER), -1);
}

Test(policy, names)
{
	enum adv_kind k;

	for (int i = 0; i < ADV_NR_KINDS; i++) {
		cr_expect_eq(adv_kind_parse(adv_kind_name(i), &k), 0);
		cr_expect_eq((int)k, i);
	}
	cr_expect_str_eq(adv_kind_name(ADV_RANDOM), "random");
	cr_expect_str_eq(adv_kind_name(ADV_OTHER), "others");
	cr_expect_eq(adv_kind_parse("Random", &k), -1);
	cr_expect_eq(adv_kind_parse("", &k), -1);
	cr_expect_eq(adv_kind_parse(NULL, &k), -1);
	cr_expect_str_eq(adv_family_name(ADV_FAMILY_MADVISE), "madvise");
	cr_expect_str_eq(adv_family_name(ADV_FAMILY_FADVISE), "fadvise");
	cr_expect(!adv_family_has(ADV_FAMILY_MADVISE, ADV_NOREUSE));
	cr_expect(adv_family_has(ADV_FAMILY_FADVISE, ADV_NOREUSE));
	cr_expect(adv_family_has(ADV_FAMILY_MADVISE, ADV_OTHER));
}

Test(policy, action_format)
{
	char buf[32];
	struct adv_action a = { .act = ADV_ACT_REWRITE, .to = ADV_NORMAL };

	cr_expect_str_eq(adv_action_format(a, buf, sizeof(buf)),
			 "rewrite to normal");
	a.act = ADV_ACT_SKIP;
	cr_expect_str_eq(adv_action_format(a, buf, sizeof(buf)), "skip");
	a.act = ADV_ACT_KEEP;
	cr_expect_str_eq(adv_action_format(a, buf, sizeof(buf)), "keep");
	a.act = ADV_ACT_ADAPT;
	cr_expect_str_eq(adv_action_format(a, buf, sizeof(buf)), "adaptive");
}

Test(policy, load_file)
{
	char path[] = "/tmp/advshim-test-XXXXXX";
	struct policy_error err;
	struct policy *p = NULL;
	int fd = mkstemp(path);

	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, full, strlen(full)), (ssize_t)strlen(full));
	close(fd);
	cr_assert_eq(policy_load_file(path, &p, &err), 0, "%s", err.msg);
	cr_expect_str_eq(p->source, path);
	cr_expect_eq(p->nr_rules, 3);
	policy_free(p);

	/* Errors name the file. */
	fd = open(path, O_WRONLY | O_TRUNC);
	cr_assert_eq(write(fd, "version = 1;\nbogus = 1;\n", 24), 24);
	close(fd);
	cr_assert_eq(policy_load_file(path, &p, &err), -1);
	cr_expect_str_eq(err.file, path);
	cr_expect_eq(err.line, 2);

	/* NUL bytes mean a wrong file. */
	fd = open(path, O_WRONLY | O_TRUNC);
	cr_assert_eq(write(fd, "version = 1;\0", 13), 13);
	close(fd);
	cr_assert_eq(policy_load_file(path, &p, &err), -1);
	cr_expect(strstr(err.msg, "NUL"), "%s", err.msg);
	unlink(path);
}

Test(policy, print_table)
{
	struct policy *p = parse_ok(full);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cr_assert_not_null(f);
	policy_print(p, f);
	fclose(f);
	cr_expect(strstr(buf, "processes: java, fio\n"), "%s", buf);
	cr_expect(strstr(buf, "log: level info, target /var/log/advshim.log"));
	cr_expect(strstr(buf, "1. rule \"vectors\" (t.conf:5)\n"), "%s", buf);
	cr_expect(strstr(buf, "match: \"**/*.vec\", \"**/*.vex\", \"**/*.veq\"\n"));
	cr_expect(strstr(buf, "  random        rewrite to normal   rewrite to normal\n"),
		  "%s", buf);
	cr_expect(strstr(buf, "  noreuse       -                   skip\n"), "%s", buf);
	cr_expect(strstr(buf, "on_map: posix_fadvise(fd, 0, 0, POSIX_FADV_NOREUSE)"));
	cr_expect(strstr(buf, "on_map: posix_fadvise(fd, 0, 0, POSIX_FADV_NORMAL)"));
	cr_expect(strstr(buf, "3. rule \"rule 3\" (t.conf:16)"), "%s", buf);
	cr_expect(!strstr(buf, " \n"), "trailing blanks in:\n%s", buf);
	/* A catch-all last rule: no "any other path" line. */
	cr_expect(!strstr(buf, "any other path"));
	free(buf);
	policy_free(p);
}

Test(policy, fuzzish_no_crash)
{
	/* Truncations of a valid policy: every prefix parses or fails cleanly. */
	struct policy_error err;
	struct policy *p;
	char buf[sizeof(full)];
	size_t n;

	for (n = 0; n < sizeof(full); n++) {
		memcpy(buf, full, n);
		buf[n] = '\0';
		p = NULL;
		if (policy_parse_buffer(buf, "t.conf", &p, &err) == 0)
			policy_free(p);
		else
			cr_expect(err.msg[0] != '\0', "prefix %zu: no message", n);
	}
}

struct reader_arg {
	const struct policy *p;
	int mismatches;
};

static void *reader(void *arg)
{
	struct reader_arg *ra = arg;
	const struct policy_rule *r;
	char path[64];
	int i;

	for (i = 0; i < 20000; i++) {
		snprintf(path, sizeof(path), "/d%d/seg_%d.%s", i % 7, i,
			 i % 3 ? "vec" : "tim");
		r = policy_match(ra->p, path);
		if (r != &ra->p->rules[i % 3 ? 0 : 2])
			ra->mismatches++;
		if (policy_decide(r, ADV_FAMILY_MADVISE, ADV_RANDOM).act !=
		    (i % 3 ? ADV_ACT_REWRITE : ADV_ACT_KEEP))
			ra->mismatches++;
	}
	return NULL;
}

/* A loaded policy is read-only: concurrent readers need no locking. */
Test(policy, concurrent_readers)
{
	struct policy *p = parse_ok(full);
	struct reader_arg args[8];
	pthread_t th[8];
	int i;

	for (i = 0; i < 8; i++) {
		args[i] = (struct reader_arg){ .p = p };
		cr_assert_eq(pthread_create(&th[i], NULL, reader, &args[i]), 0);
	}
	for (i = 0; i < 8; i++) {
		pthread_join(th[i], NULL);
		cr_expect_eq(args[i].mismatches, 0, "thread %d", i);
	}
	policy_free(p);
}
