// SPDX-License-Identifier: MIT
/*
 * prom.c - Prometheus text-format helpers (see prom.h).
 */
#include "common/prom.h"

void prom_put_label(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\' || *s == '"')
			fprintf(f, "\\%c", *s);
		else if (*s == '\n')
			fputs("\\n", f);
		else
			fputc(*s, f);
	}
}
