// SPDX-License-Identifier: MIT
/*
 * main.c - advshim-load: a Lucene/HNSW-like page cache workload.
 */
#include <signal.h>
#include <stdio.h>

#include "tools/load/load.h"

int main(int argc, char **argv)
{
	struct load_opts o;
	int ret;

	ret = load_parse_args(argc, argv, &o);
	if (ret)
		return ret > 0 ? 0 : 2;
	/* A reader of our output may go away; report, do not die. */
	signal(SIGPIPE, SIG_IGN);
	return o.mode == LOAD_RANDOM ? load_random(&o) : load_stream(&o);
}
