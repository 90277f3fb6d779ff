/* SPDX-License-Identifier: MIT */
/*
 * watch_doc.h - the manual pages' lists of watcher settings, generated
 * from the settings table (watch_settings.h).
 *
 * advshim-watch(8) and advshim.conf(5) hold each list between the lines
 *   .\" generated: NAME ...
 *   .\" end: NAME
 * tools/watch/man-regions.sh compares them with what these functions
 * write (check-watch fails when they differ) or rewrites them (`make
 * watch-man`).  Output is roff; nothing here allocates or locks.
 */
#ifndef ADVSHIM_WATCH_DOC_H
#define ADVSHIM_WATCH_DOC_H

#include <stdio.h>

/* watch_doc_options - "watch-options": a .TP entry per command-line option. */
void watch_doc_options(FILE *f);

/* watch_doc_keys - "watch-keys": a .TP entry per key of the watch group. */
void watch_doc_keys(FILE *f);

/* watch_doc_example - "watch-example": the group with every default. */
void watch_doc_example(FILE *f);

/*
 * watch_doc_region - the region called @name (one of the above) on @f.
 * Returns 0, or -1 for an unknown name (nothing written).
 */
int watch_doc_region(const char *name, FILE *f);

#endif /* ADVSHIM_WATCH_DOC_H */
