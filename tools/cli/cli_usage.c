// SPDX-License-Identifier: MIT
/*
 * cli_usage.c - the end of every subcommand's option switch: --help, or
 * an option getopt refused.
 */
#include "tools/cli/cli.h"

int cli_help_or_usage(int c, void (*usage)(FILE *), int help_ret)
{
	if (c == 'h') {
		usage(stdout);
		return help_ret;
	}
	usage(stderr);
	return EXIT_USAGE;
}
