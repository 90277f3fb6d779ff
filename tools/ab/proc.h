/* SPDX-License-Identifier: MIT */
/*
 * proc.h - workload processes: environment building, spawning into a
 * memcg in their own process group, reading their output as it grows.
 * Single-threaded use (advshim-ab); no locks.
 */
#ifndef ADVSHIM_AB_PROC_H
#define ADVSHIM_AB_PROC_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "tools/ab/memcg.h"

/* A growable NULL-terminated "NAME=VALUE" vector. */
struct envv {
	char **v;
	size_t n, cap;
};

/*
 * envv_from_environ - a copy of the current environment plus ADVSHIM_AB=1
 * into @e (overwritten).  Returns 0, or -1 (ENOMEM; what was copied stays
 * in @e for envv_free).
 */
int envv_from_environ(struct envv *e);

/* envv_set - add or replace "NAME=VALUE" (@kv copied); 0, or -1 (ENOMEM). */
int envv_set(struct envv *e, const char *kv);

/* envv_unset - remove NAME if present.  Cannot fail. */
void envv_unset(struct envv *e, const char *name);

/* envv_free - release @e's strings and vector; @e is empty afterwards. */
void envv_free(struct envv *e);

/*
 * spawn - fork and exec @argv with @envp in a new process group, stdout
 * to @out_path and stderr to @err_path (both truncated; the same path is
 * fine), inside @mc when it is not NULL (the child joins before exec, so
 * no page is charged elsewhere).  Returns the pid, or -1 with a sentence
 * in @why (exec failures are reported from the child through a pipe).
 */
pid_t spawn(char *const argv[], char *const envp[], const char *out_path,
	    const char *err_path, const struct memcg *mc, char *why,
	    size_t size);

/* Reads a file that another process appends to, one line at a time. */
struct tail {
	int fd;
	char buf[65536];
	size_t len;
};

/* tail_open - start reading @path from its beginning; 0, or -1 with errno. */
int tail_open(struct tail *t, const char *path);

/*
 * tail_line - the next complete line (with its '\n', NUL-terminated) in
 * @line, or 0 when none is complete yet.  A line longer than the buffer
 * is cut.  Returns 1 with a line, 0 without.
 */
int tail_line(struct tail *t, char *line, size_t size);

/* tail_close - close @t; one never opened (fd -1) is fine. */
void tail_close(struct tail *t);

#endif /* ADVSHIM_AB_PROC_H */
