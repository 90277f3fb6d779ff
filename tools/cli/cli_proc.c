// SPDX-License-Identifier: MIT
/*
 * cli_proc.c - what the subcommands that read another process's /proc
 * files (inspect, doctor) say when they cannot.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "tools/cli/cli.h"

void cli_smaps_error(const char *cmd, long pid, int err)
{
	if (err == ENOENT || err == ESRCH)
		fprintf(stderr, "advshim %s: no process %ld (or it has no memory map)\n",
			cmd, pid);
	else if (err == EACCES || err == EPERM)
		fprintf(stderr, "advshim %s: /proc/%ld/smaps: permission denied "
			"(run as the process's user or root)\n", cmd, pid);
	else
		fprintf(stderr, "advshim %s: /proc/%ld/smaps: %s\n", cmd, pid,
			strerror(err));
}
