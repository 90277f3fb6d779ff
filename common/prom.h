/* SPDX-License-Identifier: MIT */
/*
 * prom.h - Prometheus text-format helpers shared by the metrics writers
 * (advshim-watch's /metrics and textfile, advshim inspect --prometheus).
 */
#ifndef ADVSHIM_COMMON_PROM_H
#define ADVSHIM_COMMON_PROM_H

#include <stdio.h>

/*
 * prom_put_label - write @s to @f as the inside of a label value (no
 * quotes): '\' and '"' escaped, '\n' as \n, as the exposition format
 * wants.  Write errors are left in @f's error flag.
 */
void prom_put_label(FILE *f, const char *s);

#endif /* ADVSHIM_COMMON_PROM_H */
