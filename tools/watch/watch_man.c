// SPDX-License-Identifier: MIT
/*
 * watch_man.c - watch-man REGION: print a generated region of the manual
 * pages (watch-options, watch-keys, watch-example) from the settings
 * table, for tools/watch/man-regions.sh.  Not installed.
 */
#include <stdio.h>

#include "tools/watch/watch_doc.h"

int main(int argc, char **argv)
{
	if (argc != 2 || watch_doc_region(argv[1], stdout)) {
		fprintf(stderr, "usage: watch-man watch-options|watch-keys|"
			"watch-example\n");
		return 2;
	}
	return fflush(stdout) ? 1 : 0;
}
