// SPDX-License-Identifier: MIT
/*
 * main.c - `advshim` command dispatcher.
 */
#include <stdio.h>
#include <string.h>

#include "tools/cli/cli.h"

struct subcommand {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *usage;
};

static const struct subcommand subcommands[] = {
	{ "run", cmd_run, "run [-c FILE] [-l LEVEL] -- CMD [ARGS...]" },
	{ "check", cmd_check, "check FILE" },
	{ "explain", cmd_explain, "explain FILE|- PATH [ADVICE]" },
	{ "inspect", cmd_inspect, "inspect [--json] PID" },
	{ "doctor", cmd_doctor, "doctor [--json] [--pid PID]... [--cgroup PATH]... [--sample-ms MS]" },
};

static void usage(FILE *f)
{
	size_t i;

	fprintf(f, "usage:\n");
	for (i = 0; i < sizeof(subcommands) / sizeof(subcommands[0]); i++)
		fprintf(f, "  advshim %s\n", subcommands[i].usage);
	fprintf(f, "  advshim --version\n"
		"\nA FILE of \"-\" (explain) means the embedded default policy.\n"
		"See advshim(1).\n");
}

int main(int argc, char **argv)
{
	size_t i;

	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "-V") || !strcmp(argv[1], "--version")) {
		printf("advshim %s\n", ADVSHIM_VERSION);
		return 0;
	}
	for (i = 0; i < sizeof(subcommands) / sizeof(subcommands[0]); i++)
		if (!strcmp(argv[1], subcommands[i].name))
			return subcommands[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "advshim: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return EXIT_USAGE;
}
