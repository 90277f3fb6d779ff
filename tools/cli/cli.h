/* SPDX-License-Identifier: MIT */
/*
 * cli.h - the `advshim` command's subcommands.
 *
 * Each cmd_* gets argv with argv[0] = the subcommand name and returns the
 * process exit status: 0 ok, 1 failure, 2 bad usage or invalid policy.
 */
#ifndef ADVSHIM_CLI_H
#define ADVSHIM_CLI_H

#define EXIT_USAGE 2

int cmd_run(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_explain(int argc, char **argv);
int cmd_inspect(int argc, char **argv);

/* Path of libadvshim.so next to this executable or in LIBDIR; NULL if none. */
const char *cli_shim_path(void);

#endif /* ADVSHIM_CLI_H */
