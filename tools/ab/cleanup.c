// SPDX-License-Identifier: MIT
/*
 * cleanup.c - the record of what a run must undo, and undoing it (see
 * cleanup.h).
 */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "common/readfile.h"
#include "tools/ab/cleanup.h"
#include "tools/ab/clock.h"

#define MAX_GROUPS 17		/* MAX_WL workloads and the watcher */

static volatile sig_atomic_t caught_signal;

static struct {
	pid_t pgid[MAX_GROUPS];
	int npgid;
	struct memcg *mc;
	const char *lru_path;
	char lru_saved[64];
	bool lru_dirty;
} rec;

static void on_signal(int sig)
{
	caught_signal = sig;
}

int stop_signal(void)
{
	return caught_signal;
}

void cleanup_install(void)
{
	struct sigaction sa = { .sa_handler = on_signal };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	atexit(cleanup_now);
}

int cleanup_add_group(pid_t pgid)
{
	if (rec.npgid == MAX_GROUPS)
		return -1;
	rec.pgid[rec.npgid++] = pgid;
	return 0;
}

void cleanup_forget_group(pid_t pgid)
{
	for (int i = 0; i < rec.npgid; i++)
		if (rec.pgid[i] == pgid)
			rec.pgid[i] = rec.pgid[--rec.npgid];
}

void cleanup_set_memcg(struct memcg *mc)
{
	rec.mc = mc;
}

void stop_groups(pid_t *pgids, int n, long grace_ms)
{
	uint64_t until = now_ns() + (uint64_t)grace_ms * 1000000ull;
	bool left = true;

	for (int i = 0; i < n; i++)
		if (pgids[i] > 0)
			kill(-pgids[i], SIGTERM);
	while (left && now_ns() < until) {
		left = false;
		for (int i = 0; i < n; i++) {
			if (pgids[i] <= 0)
				continue;
			if (waitpid(pgids[i], NULL, WNOHANG) == pgids[i] ||
			    (kill(-pgids[i], 0) && errno == ESRCH))
				pgids[i] = -pgids[i];
			else
				left = true;
		}
		if (left)
			sleep_until(now_ns() + 20000000ull);
	}
	for (int i = 0; i < n; i++) {
		pid_t g = pgids[i] < 0 ? -pgids[i] : pgids[i];

		if (g <= 0)
			continue;
		kill(-g, SIGKILL);
		waitpid(g, NULL, 0);
	}
}

int cleanup_lru_set(const char *path, int want, char *why, size_t size)
{
	char *cur;

	if (want < 0)
		return 0;
	if (read_file(path, &cur, NULL, 0)) {
		snprintf(why, size, "this arm sets lru_gen but %s cannot be read: %s (kernel without CONFIG_LRU_GEN?)",
			 path, strerror(errno));
		return -1;
	}
	cur[strcspn(cur, "\n")] = '\0';
	snprintf(rec.lru_saved, sizeof(rec.lru_saved), "%s", cur);
	free(cur);
	rec.lru_path = path;
	rec.lru_dirty = true;
	if (write_file_at(NULL, path, want ? "y" : "n", 1, 0)) {
		snprintf(why, size, "writing %s to %s: %s", want ? "y" : "n",
			 path, strerror(errno));
		return -1;
	}
	return 0;
}

void cleanup_lru_restore(void)
{
	if (!rec.lru_dirty)
		return;
	if (write_file_at(NULL, rec.lru_path, rec.lru_saved,
			  strlen(rec.lru_saved), 0))
		fprintf(stderr, "advshim-ab: could not restore %s to %s: %s\n",
			rec.lru_path, rec.lru_saved, strerror(errno));
	rec.lru_dirty = false;
}

void cleanup_now(void)
{
	if (rec.npgid) {
		pid_t g[MAX_GROUPS];
		int n = rec.npgid;

		memcpy(g, rec.pgid, sizeof(pid_t) * (size_t)n);
		rec.npgid = 0;
		stop_groups(g, n, 2000);
	}
	if (rec.mc) {
		if (memcg_destroy(rec.mc))
			fprintf(stderr, "advshim-ab: cannot remove memcg %s: %s\n",
				rec.mc->fs, strerror(errno));
		rec.mc = NULL;
	}
	cleanup_lru_restore();
}
