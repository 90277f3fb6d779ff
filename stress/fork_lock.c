// SPDX-License-Identifier: MIT
/*
 * fork_lock.c - reproducer: fork while other threads contend for the shim's
 * table lock; the child must still be able to map a file.
 *
 * usage: advshim-fork-lock FILE [FORKS]   (run under LD_PRELOAD=libadvshim.so)
 *
 * Eight threads map and unmap FILE in a loop (every file mmap/munmap takes
 * the shim's table lock for writing, so writers are often queued on it
 * when fork() runs).  The main thread forks FORKS times; each child maps
 * FILE once and exits.  A child that does not exit within 10 s is stuck
 * on a lock it inherited: exit 1.  Exit 0 when every child exited.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *path;
static atomic_bool stop;

static int map_once(void)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	void *p;

	if (fd < 0)
		return -1;
	p = mmap(NULL, 8192, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return -1;
	return munmap(p, 8192);
}

static void *hammer(void *arg)
{
	(void)arg;
	while (!atomic_load(&stop))
		map_once();
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[8];
	int forks = argc > 2 ? atoi(argv[2]) : 2000, rc = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: advshim-fork-lock FILE [FORKS]\n");
		return 2;
	}
	path = argv[1];
	if (map_once()) {
		perror(path);
		return 2;
	}
	for (int i = 0; i < 8; i++)
		pthread_create(&t[i], NULL, hammer, NULL);
	for (int i = 0; i < forks && !rc; i++) {
		pid_t pid = fork();
		int st, waited = 0;

		if (pid == 0)
			_exit(map_once() ? 3 : 0);
		if (pid < 0) {
			perror("fork");
			rc = 2;
			break;
		}
		while (waitpid(pid, &st, WNOHANG) == 0) {
			if (waited++ == 1000) {
				fprintf(stderr, "advshim-fork-lock: child %d of fork %d "
					"stuck for 10 s (inherited lock)\n", pid, i);
				kill(pid, SIGKILL);
				waitpid(pid, &st, 0);
				rc = 1;
				break;
			}
			usleep(10000);
		}
		if (!rc && (!WIFEXITED(st) || WEXITSTATUS(st))) {
			fprintf(stderr, "advshim-fork-lock: child %d failed (%#x)\n",
				pid, st);
			rc = 1;
		}
	}
	atomic_store(&stop, 1);
	for (int i = 0; i < 8; i++)
		pthread_join(t[i], NULL);
	if (!rc)
		printf("advshim-fork-lock: %d forks, every child mapped and exited\n",
		       forks);
	return rc;
}
