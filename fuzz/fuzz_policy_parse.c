// SPDX-License-Identifier: MIT
/*
 * fuzz_policy_parse.c - any byte string as a policy file.
 *
 * policy_parse_buffer() must either succeed or fail with a NUL-terminated
 * message and a sane line; nothing may crash, leak or trip a sanitizer.
 * A policy that parses is then used the way the shim and the CLI use it
 * (print, match, decide, format), and must pass the same validation
 * again when printed rules are matched against their own globs.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy/policy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const paths[] = {
	"/", "/data/idx/_0.vec", "/var/lib/opensearch/nodes/0/_1.cfs",
	"/backups/x", "/a b/c\\d/[e]", "/usr/lib/x86_64-linux-gnu/libc.so.6",
};

/* Fails loudly: libFuzzer reports the abort with the input that caused it. */
static void expect(int cond, const char *what)
{
	if (!cond) {
		fprintf(stderr, "fuzz_policy_parse: broken: %s\n", what);
		abort();
	}
}

static void use_policy(const struct policy *p, FILE *devnull)
{
	char buf[64];
	size_t i, g;
	int f, k;

	policy_print(p, devnull);
	for (i = 0; i < p->nr_rules; i++) {
		const struct policy_rule *r = &p->rules[i];

		expect(r->name != NULL, "rule without a name");
		for (g = 0; g < r->nr_globs; g++) {
			const char *why = NULL;

			expect(glob_validate(r->globs[g], &why) == 0,
			       "accepted glob fails glob_validate");
			(void)glob_matches_everything(r->globs[g]);
		}
		for (f = 0; f < ADV_NR_FAMILIES; f++)
			for (k = 0; k < ADV_NR_KINDS; k++) {
				struct adv_action a = policy_decide(r, f, k);

				adv_action_format(a, buf, sizeof(buf));
				expect(memchr(buf, 0, sizeof(buf)) != NULL,
				       "adv_action_format not terminated");
			}
	}
	for (i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		size_t glob = (size_t)-1;
		const struct policy_rule *r = policy_match_glob(p, paths[i], &glob);

		expect(r == policy_match(p, paths[i]),
		       "policy_match and policy_match_glob disagree");
		if (r)
			expect(glob < r->nr_globs &&
			       glob_match(r->globs[glob], paths[i]),
			       "policy_match_glob names a glob that does not match");
	}
	(void)policy_selects_process(p, "java");
	(void)policy_selects_process(p, "");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *devnull;
	struct policy_error err;
	struct policy *p = NULL;
	char msg[POLICY_ERR_MSG + 300];
	char *buf;

	if (!devnull)
		devnull = fopen("/dev/null", "w");
	buf = malloc(size + 1);
	if (!buf || !devnull)
		return 0;
	memcpy(buf, data, size);
	buf[size] = '\0';
	memset(&err, 0x5a, sizeof(err));	/* unterminated unless filled */
	if (policy_parse_buffer(buf, "fuzz.conf", &p, &err) == 0) {
		expect(p != NULL, "success without a policy");
		use_policy(p, devnull);
		policy_free(p);
	} else {
		expect(memchr(err.msg, 0, sizeof(err.msg)) != NULL,
		       "error message not terminated");
		expect(memchr(err.file, 0, sizeof(err.file)) != NULL,
		       "error file not terminated");
		expect(err.line >= 0, "negative error line");
		expect(err.msg[0] != '\0', "empty error message");
		policy_error_format(&err, msg, sizeof(msg));
	}
	free(buf);
	return 0;
}
