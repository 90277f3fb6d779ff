// SPDX-License-Identifier: MIT
/*
 * fields.c - a line cut into tab-separated fields in place (the TSV files
 * the tools write and read back: advshim-ab's runs, adapt-replay's
 * samples).
 */
#include <string.h>

#include "common/fields.h"

int fields_split(char *line, char **f, int max)
{
	int n = 0;

	for (char *p = line; n < max;) {
		f[n++] = p;
		p = strchr(p, '\t');
		if (!p)
			break;
		*p++ = '\0';
	}
	return n;
}
