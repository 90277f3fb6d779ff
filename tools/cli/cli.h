/* SPDX-License-Identifier: MIT */
/*
 * cli.h - the `advshim` command's subcommands.
 *
 * Each cmd_* gets argv with argv[0] = the subcommand name and returns the
 * process exit status: 0 ok, 1 failure, 2 bad usage or invalid policy,
 * after saying what went wrong on stderr (cmd_run execs the command and
 * returns only when that fails: 126, or 127 when it is not found;
 * cmd_doctor: 0 not affected, 1 affected and not covered, 2 error).
 * The CLI is single-threaded; nothing here takes a lock.
 */
#ifndef ADVSHIM_CLI_H
#define ADVSHIM_CLI_H

#include <stdio.h>

#define EXIT_USAGE 2

int cmd_run(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_explain(int argc, char **argv);
int cmd_inspect(int argc, char **argv);
int cmd_doctor(int argc, char **argv);

struct policy;
struct policy_error;

/*
 * cli_report_error - print @err as FILE:LINE: message on stderr; returns
 * the exit status: 2 for an invalid policy (a line is known), 1 for a file
 * that cannot be read.
 */
int cli_report_error(const struct policy_error *err);

/*
 * cli_load_policy - load @file ("-": the embedded default) into *out.
 * Returns 0, or the exit status after cli_report_error().
 */
int cli_load_policy(const char *file, struct policy **out);

/*
 * cli_shim_path - libadvshim.so: $ADVSHIM_LIB, else next to this
 * executable, in ../lib, or in LIBDIR.  A static buffer (not reentrant);
 * NULL when none is readable.
 */
const char *cli_shim_path(void);

/*
 * cli_help_or_usage - option @c was 'h' (--help): print @usage on stdout
 * and return @help_ret; else getopt refused an option (and said so):
 * print @usage on stderr and return EXIT_USAGE.
 */
int cli_help_or_usage(int c, void (*usage)(FILE *), int help_ret);

/*
 * cli_smaps_error - say on stderr why /proc/@pid/smaps could not be read
 * (errno @err) for subcommand @cmd ("inspect", "doctor"): no such process,
 * permission denied (and whose it must be), or the error's text.
 */
void cli_smaps_error(const char *cmd, long pid, int err);

#endif /* ADVSHIM_CLI_H */
