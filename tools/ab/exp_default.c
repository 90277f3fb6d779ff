// SPDX-License-Identifier: MIT
/*
 * exp_default.c - the built-in experiment: the seed's scenario scaled to
 * run in a few minutes on a small machine.  Four reader threads of one
 * process read a file that just fits the memcg at zipf(0.8) through an
 * MADV_RANDOM mapping; at ~1/3 of the run a cold file is read twice
 * through a normal mapping.  Arm "random" is the bug's setting, arm
 * "shim" runs the same readers under advshim's default policy.
 */
#include "tools/ab/exp.h"

const char exp_default_text[] =
"# advshim-ab default experiment (advshim-ab --print-default)\n"
"version = 1;\n"
"name = \"seed-000\";\n"
"description = \"random readers over a file that just fits the memcg; a cold file read twice at ~1/3\";\n"
"limit_mib = 256;\n"
"duration_s = 90;\n"
"interval_ms = 1000;\n"
"print_every = 5;\n"
"dir = \"/var/tmp/advshim-ab\";\n"
"baseline_s = 10;\n"
"recover_pct = 80;\n"
"settle_majflt_s = 100;\n"
"settle_intervals = 3;\n"
"\n"
"files = (\n"
"  { name = \"vec\";  path = \"${DIR}/vec.bin\";  size_mib = 240; },\n"
"  { name = \"cold\"; path = \"${DIR}/cold.bin\"; size_mib = 80; }\n"
");\n"
"\n"
"workloads = (\n"
"  { name = \"readers\"; throughput = true;\n"
"    command = [ \"${BUILD}/advshim-load\", \"random\", \"--threads\", \"4\",\n"
"                \"--theta\", \"0.8\", \"--reads\", \"16\", \"--advice\", \"random\",\n"
"                \"--interval-ms\", \"250\", \"${file:vec}\" ]; },\n"
"  { name = \"cold\"; start_ms = 30000;\n"
"    command = [ \"${BUILD}/advshim-load\", \"stream\", \"--via\", \"mmap\",\n"
"                \"--loops\", \"2\", \"${file:cold}\" ]; }\n"
");\n"
"\n"
"# advshim-load reports every 250 ms: each 1 s sample averages ~4 rows.\n"
"# The cold read's start and end come from this workload's events.\n"
"event = { workload = \"cold\"; };\n"
"\n"
"arms = (\n"
"  { name = \"random\"; label = \"MADV_RANDOM, no shim\"; },\n"
"  { name = \"shim\";   label = \"advshim default policy\"; shim = true; }\n"
");\n";
