// SPDX-License-Identifier: MIT
/*
 * adaptprog.c - a long-lived program under the adaptive advice: maps a
 * file whole, advises it RANDOM once, then never calls the shim again
 * while the test changes its memory cgroup and watches the advice in
 * force from outside (/proc/PID/smaps VmFlags, advshim inspect).
 *
 * usage: adaptprog [-t] [-F] [-L] [-x] [-m MIB] FILE
 *   -t   advise from a thread that exits right after: no thread of the
 *        process calls the shim again (the sampler must re-decide alone)
 *   -F   then fork a child that waits 1.5 s (past the shim's restart
 *        delay for fork children), maps and advises FILE again (its
 *        sampler restarts) and prints "child PID"; it waits like the
 *        parent
 *   -L   with -F: fork only once a line arrives on stdin (the test first
 *        brings the parent's choice where it wants it); the child prints
 *        "forked PID" and maps only at a second line, the parent reads
 *        stdin only once the child is gone
 *   -x   then exec this program again (without -x): a new image, a new
 *        shim, which maps and advises afresh
 *   -m   map MIB MiB whatever the file's size, as LMDB maps its data file
 *        (which then grows inside the map)
 * Prints "ready PID" once advised, then waits for stdin to reach EOF.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *file;
static size_t map_bytes;	/* -m: the mapping's length; 0: the file's */

/* Map FILE whole and advise it RANDOM; exits on failure. */
static void *map_and_advise(void *arg)
{
	struct stat st;
	void *p;
	int fd = open(file, O_RDONLY | O_CLOEXEC), r;

	(void)arg;
	if (fd < 0 || fstat(fd, &st)) {
		perror(file);
		exit(1);
	}
	if (!map_bytes)
		map_bytes = (size_t)st.st_size;
	p = mmap(NULL, map_bytes, PROT_READ, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		perror("mmap");
		exit(1);
	}
	r = posix_madvise(p, map_bytes, POSIX_MADV_RANDOM);
	if (r) {
		fprintf(stderr, "posix_madvise: %d\n", r);
		exit(1);
	}
	close(fd);
	return NULL;
}

static void wait_stdin(void)
{
	while (getchar() != EOF)
		;
}

int main(int argc, char **argv)
{
	int c, thread = 0, do_fork = 0, late = 0, do_exec = 0;
	pthread_t t;
	pid_t pid;

	while ((c = getopt(argc, argv, "tFLxm:")) != -1) {
		switch (c) {
		case 't': thread = 1; break;
		case 'm': map_bytes = strtoull(optarg, NULL, 10) << 20; break;
		case 'F': do_fork = 1; break;
		case 'L': late = 1; break;
		case 'x': do_exec = 1; break;
		default:
			fprintf(stderr, "usage: adaptprog [-t] [-F] [-L] [-x] [-m MIB] FILE\n");
			return 2;
		}
	}
	if (optind != argc - 1)
		return 2;
	file = argv[optind];
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (thread) {
		if (pthread_create(&t, NULL, map_and_advise, NULL) ||
		    pthread_join(t, NULL))
			return 1;
	} else {
		map_and_advise(NULL);
	}
	if (do_exec) {
		execl("/proc/self/exe", "adaptprog", file, (char *)NULL);
		perror("exec");
		return 1;
	}
	printf("ready %d\n", (int)getpid());
	if (do_fork) {
		while (late && (c = getchar()) != EOF && c != '\n')
			;
		pid = fork();
		if (pid == 0) {
			usleep(1500 * 1000);
			if (late) {
				printf("forked %d\n", (int)getpid());
				while ((c = getchar()) != EOF && c != '\n')
					;
			}
			map_and_advise(NULL);
			printf("child %d\n", (int)getpid());
			wait_stdin();
			_exit(0);
		}
		if (pid < 0)
			return 1;
		if (late)	/* the child reads the next line */
			waitpid(pid, NULL, 0);
		wait_stdin();
		waitpid(pid, NULL, 0);
		return 0;
	}
	wait_stdin();
	return 0;
}
