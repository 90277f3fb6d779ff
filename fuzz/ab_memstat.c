// SPDX-License-Identifier: MIT
/*
 * ab_memstat.c - advshim-ab's memory.stat reader for fuzz_memstat.c, in
 * its own file because tools/ab/kparse.h and tools/watch/memstat.h both
 * define struct memstat.  Also feeds the other small kparse readers that
 * take sampled kernel text (io.stat, /proc/PID/io, smaps).
 */
#include <stdbool.h>
#include <stdlib.h>

#include "tools/ab/kparse.h"

void fuzz_ab_memstat(const char *text);

void fuzz_ab_memstat(const char *text)
{
	static const char *const paths[] = { "/data/a.vec", "/" };
	struct memstat m;
	int state[2];

	if (parse_memstat(text, true, &m) || parse_memstat(text, false, &m))
		abort();	/* documented to always return 0 */
	(void)parse_iostat_rbytes(text);
	(void)parse_proc_io(text);
	(void)parse_smaps_rr(text, paths, 2, state);
}
