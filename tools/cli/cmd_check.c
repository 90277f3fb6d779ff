// SPDX-License-Identifier: MIT
/*
 * cmd_check.c - `advshim check FILE`: validate a policy, show its rules.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "policy/policy.h"
#include "tools/cli/cli.h"
#include "tools/watch/watch_conf.h"

/*
 * load_watch - validate the `watch` group (advshim-watch's settings) that
 * the policy parser only notes; its errors read like the policy's (both
 * go through common/confcheck).  Returns an exit status as
 * cli_load_policy() does.
 */
static int load_watch(const char *file, struct watch_conf *wc)
{
	struct policy_error err;

	if (!watch_conf_load_file(file, wc, &err))
		return 0;
	return cli_report_error(&err);
}

static void check_usage(FILE *f)
{
	fprintf(f,
		"usage: advshim check [-q] FILE\n"
		"\n"
		"Validate the policy FILE and print its effective rules: for every\n"
		"rule, its globs and what happens to each advice of the madvise\n"
		"family (madvise, posix_madvise) and of the fadvise family\n"
		"(posix_fadvise), and the advshim-watch settings of its `watch`\n"
		"group.  FILE \"-\" is the embedded default policy.\n"
		"\n"
		"  -q, --quiet  print only \"FILE: OK\" or the error\n"
		"  -h, --help   show this help\n"
		"\n"
		"Exit status: 0 valid, 1 FILE cannot be read, 2 invalid policy or\n"
		"bad usage.  Errors are printed as FILE:LINE: message.\n");
}

/*
 * check_args - the options of `check`; -1 to go on with FILE at
 * argv[optind], else the exit status (help printed, or bad usage said).
 */
static int check_args(int argc, char **argv, bool *quiet)
{
	static const struct option opts[] = {
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "+qh", opts, NULL)) != -1) {
		switch (c) {
		case 'q':
			*quiet = true;
			break;
		default:
			return cli_help_or_usage(c, check_usage, 0);
		}
	}
	if (argc - optind != 1) {
		fprintf(stderr, "advshim check: %s\n", argc - optind ?
			"expected exactly one FILE" : "missing FILE");
		check_usage(stderr);
		return EXIT_USAGE;
	}
	return -1;
}

int cmd_check(int argc, char **argv)
{
	struct watch_conf wc;
	struct policy *p;
	bool quiet = false;
	int ret;

	ret = check_args(argc, argv, &quiet);
	if (ret >= 0)
		return ret;
	ret = cli_load_policy(argv[optind], &p);
	if (ret)
		return ret;
	if (p->has_watch) {
		ret = load_watch(argv[optind], &wc);
		if (ret) {
			policy_free(p);
			return ret;
		}
	}
	if (!quiet) {
		policy_print(p, stdout);
		if (p->has_watch) {
			printf("\nadvshim-watch settings:\n");
			watch_conf_print(&wc, stdout);
		}
		printf("\n");
	}
	printf("%s: OK\n", p->source);
	if (p->has_watch)
		watch_conf_free(&wc);
	policy_free(p);
	return 0;
}
