// SPDX-License-Identifier: MIT
/*
 * fuzz_policy_match.c - any path against parsed policies, any glob.
 *
 * Input: one mode byte, then "PATTERN\nPATH" (mode 1) or PATH (mode 0).
 * Mode 0 matches PATH against fixed policies covering every glob form
 * (the embedded default, `*`, `?`, `**`, classes, escapes) and checks
 * policy_match/policy_match_glob agree.  Mode 1 validates PATTERN and,
 * when valid, matches it (the shim only ever matches validated globs),
 * checking two contracts: a pattern without metacharacters matches
 * exactly itself, and glob_matches_everything() patterns match every
 * absolute path.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy/policy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char fixed_text[] =
	"version = 1;\n"
	"rules = (\n"
	" { name = \"vec\"; match = [ \"**/*.vec\", \"**/*.ve[cqx]\" ]; random = \"normal\"; },\n"
	" { name = \"cfs\"; match = \"/var/lib/opensearch/**/_?.cfs\"; random = \"keep\"; },\n"
	" { name = \"cls\"; match = [ \"/d[!a-c]t[a-]/**/x\", \"/e\\\\*sc/\\\\?q\" ]; sequential = \"skip\"; },\n"
	" { name = \"deep\"; match = \"/**/a/**/b/**/c*d*e*f\"; random = \"normal\"; },\n"
	" { name = \"bk\"; match = \"/backups/**\"; on_map = [ \"noreuse\" ]; },\n"
	" { match = \"**\"; }\n"
	");\n";

static struct policy *pols[2];

static void expect(int cond, const char *what)
{
	if (!cond) {
		fprintf(stderr, "fuzz_policy_match: broken: %s\n", what);
		abort();
	}
}

static void setup(void)
{
	struct policy_error err;

	if (policy_load_default(&pols[0], &err) ||
	    policy_parse_buffer(fixed_text, "fixed", &pols[1], &err)) {
		fprintf(stderr, "fuzz_policy_match: setup: %s:%d: %s\n",
			err.file, err.line, err.msg);
		abort();
	}
}

static void match_policies(const char *path)
{
	for (size_t i = 0; i < sizeof(pols) / sizeof(pols[0]); i++) {
		size_t g = (size_t)-1;
		const struct policy_rule *r = policy_match_glob(pols[i], path, &g);

		expect(r == policy_match(pols[i], path),
		       "policy_match and policy_match_glob disagree");
		if (r) {
			expect(g < r->nr_globs, "glob index out of range");
			expect(glob_match(r->globs[g], path),
			       "winning glob does not match");
			for (int k = 0; k < ADV_NR_KINDS; k++)
				(void)policy_decide(r, ADV_FAMILY_MADVISE, k);
		}
	}
}

static void match_glob(const char *pat, const char *path)
{
	const char *why = NULL;
	bool m;

	if (glob_validate(pat, &why)) {
		expect(why != NULL && why[0], "invalid glob without a reason");
		return;
	}
	m = glob_match(pat, path);
	if (!strpbrk(pat, "*?[\\"))
		expect(m == !strcmp(pat, path),
		       "literal pattern does not match exactly itself");
	if (glob_matches_everything(pat) && path[0] == '/')
		expect(m, "match-everything pattern misses an absolute path");
	/* Matching is pure: the same answer twice. */
	expect(m == glob_match(pat, path), "glob_match not deterministic");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf, *nl;

	if (!pols[0])
		setup();
	if (size < 1)
		return 0;
	buf = malloc(size);
	if (!buf)
		return 0;
	memcpy(buf, data + 1, size - 1);
	buf[size - 1] = '\0';
	if (data[0] & 1) {
		nl = strchr(buf, '\n');
		if (nl) {
			*nl = '\0';
			match_glob(buf, nl + 1);
		}
	} else {
		match_policies(buf);
	}
	free(buf);
	return 0;
}
