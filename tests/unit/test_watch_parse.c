// SPDX-License-Identifier: MIT
/*
 * test_watch_parse.c - the watcher's kernel-version rules: which aging
 * command each kernel series takes and whether activations mean anything.
 */
#include <criterion/criterion.h>
#include <errno.h>

#include "tools/watch/kver.h"

Test(kver, parse_and_rules)
{
	struct kver v;
	struct kver_rules r;
	char cmd[64];

	cr_assert_eq(kver_parse("6.12.48+deb12-cloud-amd64", &v), 0);
	cr_assert_eq(v.major, 6);
	cr_assert_eq(v.minor, 12);
	kver_rules_for(&v, &r);
	cr_assert(r.seq_exact);
	cr_assert_not(r.eexist);
	cr_assert_not(r.id_u64);
	cr_assert_eq(age_cmd_format(cmd, sizeof(cmd), &r, 42, 0, 8, false), 8);
	cr_assert_str_eq(cmd, "+ 42 0 8");
	age_cmd_format(cmd, sizeof(cmd), &r, 42, 1, 8, true);
	cr_assert_str_eq(cmd, "+ 42 1 8 1 1");
	cr_assert_eq(age_cmd_format(cmd, sizeof(cmd), &r, 70000, 0, 8, false),
		     -1);
	cr_assert_eq(errno, ERANGE);

	cr_assert_eq(kver_parse("6.1", &v), 0);
	kver_rules_for(&v, &r);
	cr_assert(r.seq_exact);

	cr_assert_eq(kver_parse("6.14.0-rc1", &v), 0);
	kver_rules_for(&v, &r);
	cr_assert_not(r.seq_exact);
	cr_assert(r.eexist);
	age_cmd_format(cmd, sizeof(cmd), &r, 42, 0, 8, true);
	cr_assert_str_eq(cmd, "+ 42 0 8", "no explicit fields on 6.14+");

	cr_assert_eq(kver_parse("7.0.1", &v), 0);
	kver_rules_for(&v, &r);
	cr_assert(r.id_u64);
	cr_assert(r.v1_root_only);
	age_cmd_format(cmd, sizeof(cmd), &r, 9876543210ull, 0, 12, false);
	cr_assert_str_eq(cmd, "+ 9876543210 0 12");

	cr_assert_eq(kver_parse("x.y", &v), -1);
	cr_assert_eq(kver_parse("6", &v), -1);
}
