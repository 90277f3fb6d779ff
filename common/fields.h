/* SPDX-License-Identifier: MIT */
/*
 * fields.h - tab-separated fields of one line (fields.c).
 */
#ifndef ADVSHIM_COMMON_FIELDS_H
#define ADVSHIM_COMMON_FIELDS_H

/*
 * fields_split - cut @line at its tabs in place (each tab becomes a NUL),
 * point f[0..] at the fields and return their number, at most @max (the
 * last field then keeps the rest of the line, tabs and all).  A newline
 * is part of the last field: strip it first.  Never fails.
 */
int fields_split(char *line, char **f, int max);

#endif /* ADVSHIM_COMMON_FIELDS_H */
