// SPDX-License-Identifier: MIT
/*
 * test_common_json.c - JSON string literals.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/json.h"

static char *json_of(const char *s)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	cr_assert_not_null(f);
	json_put_string(f, s);
	cr_assert_eq(fclose(f), 0);
	return out;
}

Test(json, escapes)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ "", "\"\"" },
		{ "/data/a b.vec", "\"/data/a b.vec\"" },
		{ "q\"b\\", "\"q\\\"b\\\\\"" },
		{ "a\nb", "\"a\\nb\"" },
		{ "\t\x01\x7f", "\"\\u0009\\u0001\\u007f\"" },
		{ "\xc3\xa9", "\"\xc3\xa9\"" },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *s = json_of(cases[i].in);

		cr_expect_str_eq(s, cases[i].out);
		free(s);
	}
}
