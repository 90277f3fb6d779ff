// SPDX-License-Identifier: MIT
/*
 * advshim-resid FILE... - the page-cache residency of each FILE in MiB
 * (one decimal), tab separated on one line; "-" for a file that cannot be
 * measured (missing, not regular).  The lab's samplers call it once a
 * second for the working-set and the cold file (vec_MB, cold_MB).  mincore
 * on a mapping it never touches (common/residency.c): nothing is faulted
 * in, nothing is charged to the caller's memcg.  Exit 0, or 2 on usage.
 */
#include <stdint.h>
#include <stdio.h>

#include "common/residency.h"

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: advshim-resid FILE...\n");
		return 2;
	}
	for (int i = 1; i < argc; i++) {
		int64_t b = resid_of_path(argv[i], NULL);

		if (i > 1)
			putchar('\t');
		if (b < 0)
			putchar('-');
		else
			printf("%.1f", (double)b / (1 << 20));
	}
	putchar('\n');
	return 0;
}
