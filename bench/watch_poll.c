// SPDX-License-Identifier: MIT
/*
 * watch_poll.c - CPU cost of one advshim-watch poll over N memcgs x 1 node.
 *
 * usage: watch_poll DIR [N] [POLLS]
 *
 * Builds a fixture tree in DIR with N memcgs (lru_gen_full in the 6.12
 * format, a cgroup2 memory.stat each) and times watch_tick() - the daemon's
 * whole poll: read lru_gen_full, parse, the detectors - with
 * CLOCK_PROCESS_CPUTIME_ID.  Rewriting the fixture between polls is not
 * timed.  Scenarios, measured side by side in one run:
 *   aging    every memcg's max_seq moves (busy, healthy)
 *   stuck    max_seq still, ages grow, pages move, F's counters grow
 *   quiet    max_seq still, nothing moves (idle memcgs): skipped after one
 *            read
 *   named    one --cgroup target among N, stuck
 * Prints per-poll CPU (median, p95) and the ratio to the 5 ms budget.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "tools/watch/kver.h"
#include "tools/watch/watch.h"

static char dir[4096];
static int nr;
static char *text;
static size_t text_cap;

static double cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void put(const char *rel, const char *data, size_t len)
{
	char path[4400];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	f = fopen(path, "w");
	if (!f || fwrite(data, 1, len, f) != len || fclose(f)) {
		perror(path);
		exit(1);
	}
}

/* lru_gen_full's four tier rows under a generation (counters on F's). */
static size_t tiers(bool oldest, unsigned long t, char *out, size_t size)
{
	size_t off = 0;
	int i;

	for (i = 0; i < 4; i++)
		off += (size_t)snprintf(out + off, size - off,
			"            %10d %10lur %10lue %10lup %10lur %10lue %10lup\n",
			i, 0ul, 0ul, 0ul, oldest ? t * 900 : 0ul,
			oldest ? t * 1000 : 0ul, 0ul);
	return off;
}

/* lru_gen_full for all memcgs at poll @t in scenario @sc. */
static void write_lrugen(int t, const char *sc)
{
	size_t off = 0;
	int i;
	unsigned long s, max;

	for (i = 0; i < nr; i++) {
		max = 10 + (strcmp(sc, "aging") ? 0 : (unsigned long)t);
		off += (size_t)snprintf(text + off, text_cap - off,
					"memcg %5d /kubepods.slice/pod-%04d.slice/"
					"app-%04d.scope\n node %5d\n", i + 2, i, i, 0);
		for (s = max - 3; s <= max; s++) {
			unsigned long moved = strcmp(sc, "quiet") ?
				(unsigned long)t * 7 % 13 : 0;

			off += (size_t)snprintf(text + off, text_cap - off,
						" %10lu %10lu %10lu  %10lu \n", s,
						(max - s) * 60000 + (unsigned long)t * 1000 + 5,
						100 + moved, 20000 + s + moved);
			off += tiers(s == max - 3, (unsigned long)t, text + off,
				     text_cap - off);
		}
	}
	/* the watcher reads lru_gen_full each poll, lru_gen to probe */
	put("debugfs/lru_gen_full", text, off);
	put("debugfs/lru_gen", text, off);
}

static void write_stats(int t)
{
	char rel[256], buf[256];
	int i, n;

	for (i = 0; i < nr; i++) {
		snprintf(rel, sizeof(rel),
			 "cg/kubepods.slice/pod-%04d.slice/app-%04d.scope/memory.stat",
			 i, i);
		n = snprintf(buf, sizeof(buf),
			     "anon 1\nfile 2\nworkingset_refault_file %d\n"
			     "workingset_activate_file %d\npgmajfault 3\n",
			     t * 10, t * 10);
		put(rel, buf, (size_t)n);
	}
}

static void mk(const char *rel)
{
	char path[4400];

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	if (mkdir(path, 0755) && errno != EEXIST) {
		perror(path);
		exit(1);
	}
}

static void build_tree(void)
{
	char rel[256];
	int i;

	if (mkdir(dir, 0755) && errno != EEXIST) {
		perror(dir);
		exit(1);
	}
	mk("debugfs");
	mk("sys");
	mk("sys/kernel");
	mk("sys/kernel/mm");
	mk("sys/kernel/mm/lru_gen");
	mk("cg");
	mk("cg/kubepods.slice");
	put("sys/kernel/mm/lru_gen/enabled", "0x0007\n", 7);
	put("cg/cgroup.controllers", "memory\n", 7);
	for (i = 0; i < nr; i++) {
		snprintf(rel, sizeof(rel), "cg/kubepods.slice/pod-%04d.slice", i);
		mk(rel);
		snprintf(rel, sizeof(rel),
			 "cg/kubepods.slice/pod-%04d.slice/app-%04d.scope", i, i);
		mk(rel);
	}
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void run(const char *sc, int polls)
{
	char deb[4400], sys[4400], cg[4400];
	char name[128], *target = name;
	struct watch_conf c;
	struct kver_rules r;
	struct kver v = { 6, 12 };
	struct wlog log = { NULL, WLOG_TEXT };
	struct watch_fs *fs;
	struct watch_io io;
	struct watch *w;
	double *ms = calloc((size_t)polls, sizeof(double));
	int t;

	snprintf(deb, sizeof(deb), "%s/debugfs", dir);
	snprintf(sys, sizeof(sys), "%s/sys", dir);
	snprintf(cg, sizeof(cg), "%s/cg", dir);
	log.f = fopen("/dev/null", "w");
	kver_rules_for(&v, &r);
	watch_conf_defaults(&c);
	c.dry_run = true;
	if (!strcmp(sc, "named")) {
		snprintf(name, sizeof(name),
			 "/kubepods.slice/pod-%04d.slice/app-%04d.scope",
			 nr / 2, nr / 2);
		watch_conf_set_cgroups(&c, &target, 1);
	}
	fs = watch_fs_new(deb, sys, cg);
	watch_fs_io(fs, &io);
	w = watch_new(&c, &r, false, &io, &log);
	for (t = 0; t < polls; t++) {
		double t0;

		write_lrugen(t, strcmp(sc, "named") ? sc : "stuck");
		if (t == 0 || strcmp(sc, "quiet"))
			write_stats(t);
		t0 = cpu_ms();
		watch_tick(w, (uint64_t)t * 1000);
		ms[t] = cpu_ms() - t0;
	}
	/* the first poll primes every detector: report steady state */
	qsort(ms + 1, (size_t)polls - 1, sizeof(double), cmp);
	printf("%-6s %5d memcgs: first %.3f ms, median %.3f ms, p95 %.3f ms "
	       "CPU per poll = %.2fx the 5 ms budget\n", sc, nr, ms[0],
	       ms[1 + (polls - 1) / 2], ms[1 + (polls - 1) * 95 / 100],
	       ms[1 + (polls - 1) / 2] / 5.0);
	watch_free(w);
	watch_fs_free(fs);
	watch_conf_free(&c);
	fclose(log.f);
	free(ms);
}

int main(int argc, char **argv)
{
	int polls;

	if (argc < 2) {
		fprintf(stderr, "usage: watch_poll DIR [N] [POLLS]\n");
		return 2;
	}
	snprintf(dir, sizeof(dir), "%s", argv[1]);
	nr = argc > 2 ? atoi(argv[2]) : 1000;
	polls = argc > 3 ? atoi(argv[3]) : 41;
	if (nr < 1 || polls < 3)
		return 2;
	text_cap = (size_t)nr * 2000 + 4096;	/* 4 gens x (1 + 4 tier rows) */
	text = malloc(text_cap);
	build_tree();
	run("aging", polls);
	run("stuck", polls);
	run("quiet", polls);
	run("named", polls);
	free(text);
	return 0;
}
