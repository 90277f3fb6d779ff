// SPDX-License-Identifier: MIT
/*
 * cli_policy.c - loading a policy for the subcommands, one error format.
 */
#include <stdio.h>
#include <string.h>

#include "policy/policy.h"
#include "tools/cli/cli.h"

int cli_report_error(const struct policy_error *err)
{
	char msg[sizeof(err->file) + sizeof(err->msg) + 16];

	fprintf(stderr, "%s\n", policy_error_format(err, msg, sizeof(msg)));
	return err->line ? EXIT_USAGE : 1;
}

int cli_load_policy(const char *file, struct policy **out)
{
	struct policy_error err;
	int ret;

	if (!strcmp(file, "-"))
		ret = policy_load_default(out, &err);
	else
		ret = policy_load_file(file, out, &err);
	return ret ? cli_report_error(&err) : 0;
}
