// SPDX-License-Identifier: MIT
/*
 * load_stream.c - `advshim-load stream`: the seed's cold reader.
 *
 * Reads the whole file sequentially, LOOPS times, through a normal mmap
 * (mapped and unmapped per loop, like fio's mmap engine) or read(2).
 * Prints a start and an end event per loop with CLOCK_MONOTONIC
 * timestamps, which advshim-ab uses to mark the cold read on its timeline.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "tools/load/load.h"

static volatile sig_atomic_t got_signal;

static void on_signal(int sig)
{
	(void)sig;
	got_signal = 1;
}

static void event(const struct load_opts *o, const char *name, unsigned int loop,
		  uint64_t t0, uint64_t bytes, double mib_s)
{
	uint64_t now = now_ns();

	if (o->json)
		printf("{\"event\":\"%s\",\"loop\":%u,\"mono_ms\":%" PRIu64
		       ",\"elapsed_ms\":%" PRIu64 ",\"bytes\":%" PRIu64 ",\"mib_s\":%.1f}\n",
		       name, loop, now / 1000000, (now - t0) / 1000000, bytes,
		       mib_s);
	else
		printf("%s\t%u\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%.1f\n", name,
		       loop, now / 1000000, (now - t0) / 1000000, bytes, mib_s);
	fflush(stdout);
}

/* One pass through a fresh mapping; returns bytes covered or -1. */
static int64_t pass_mmap(int fd, uint64_t size, uint64_t *sink)
{
	long pg = sysconf(_SC_PAGESIZE);
	const uint8_t *p;
	uint64_t off;

	p = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return -1;
	for (off = 0; off < size && !got_signal; off += (uint64_t)pg)
		*sink += *(const volatile uint8_t *)(p + off);
	munmap((void *)p, size);
	return (int64_t)(off < size ? off : size);
}

/*
 * --drop-behind: POSIX_FADV_DONTNEED on [*from, @to), what this pass has
 * read since the last drop (nocache's drop-behind for read()).
 */
static void drop_behind(int fd, uint64_t *from, uint64_t to)
{
	if (to > *from)
		posix_fadvise(fd, (off_t)*from, (off_t)(to - *from),
			      POSIX_FADV_DONTNEED);
	*from = to;
}

static int64_t pass_read(const struct load_opts *o, int fd, uint64_t size,
			 char *buf, uint64_t *sink)
{
	uint64_t off = 0, dropped = 0;

	while (off < size && !got_signal) {
		ssize_t n = pread(fd, buf, o->block, (off_t)off);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (n == 0)
			break;
		*sink += (uint8_t)buf[0];
		off += (uint64_t)n;
		if (o->drop_every && off - dropped >= o->drop_every)
			drop_behind(fd, &dropped, off);
	}
	if (o->drop_pass)
		drop_behind(fd, &dropped, off);
	return (int64_t)off;
}

static void delay(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	while (!got_signal && nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static int run_loops(const struct load_opts *o, int fd, uint64_t size,
		     char *buf, uint64_t t0)
{
	uint64_t total = 0, sink = 0, first = 0, mf0 = majflt_self();
	unsigned int loop;

	for (loop = 1; loop <= o->loops && !got_signal; loop++) {
		uint64_t s = now_ns();
		int64_t n;

		if (loop == 1)
			first = s;
		event(o, "start", loop, t0, 0, 0);
		if (o->via == VIA_MMAP) {
			n = pass_mmap(fd, size, &sink);
			if (n >= 0 && o->drop_pass)	/* unmapped: droppable */
				posix_fadvise(fd, 0, n, POSIX_FADV_DONTNEED);
		} else {
			n = pass_read(o, fd, size, buf, &sink);
		}
		if (n < 0) {
			fprintf(stderr, "advshim-load: reading %s: %s\n",
				o->file, strerror(errno));
			return 1;
		}
		total += (uint64_t)n;
		event(o, "end", loop, t0, (uint64_t)n,
		      (double)n / 1048576.0 / ((double)(now_ns() - s) / 1e9));
	}
	if (o->json)
		printf("{\"event\":\"summary\",\"loops\":%u,\"bytes\":%" PRIu64
		       ",\"elapsed_ms\":%" PRIu64 ",\"mib_s\":%.1f,\"majflt\":%" PRIu64
		       ",\"checksum\":%" PRIu64 "}\n", loop - 1, total,
		       (now_ns() - t0) / 1000000, first ? (double)total /
		       1048576.0 / ((double)(now_ns() - first) / 1e9) : 0.0,
		       majflt_self() - mf0, sink);
	else
		printf("# summary loops=%u bytes=%" PRIu64 " elapsed_ms=%" PRIu64
		       " mib_s=%.1f majflt=%" PRIu64 " checksum=%" PRIu64 "\n",
		       loop - 1, total, (now_ns() - t0) / 1000000, first ?
		       (double)total / 1048576.0 /
		       ((double)(now_ns() - first) / 1e9) : 0.0,
		       majflt_self() - mf0, sink);
	fflush(stdout);
	return 0;
}

int load_stream(const struct load_opts *o)
{
	struct sigaction sa = { .sa_handler = on_signal };
	uint64_t t0 = now_ns(), size;
	char *buf = NULL;
	int fd, ret;

	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	fd = load_open_file(o->file, o->size, o->seed, &size);
	if (fd < 0)
		return 1;
	if (o->noreuse && (ret = posix_fadvise(fd, 0, 0, POSIX_FADV_NOREUSE))) {
		fprintf(stderr, "advshim-load: posix_fadvise(NOREUSE): %s\n",
			strerror(ret));
		close(fd);
		return 1;
	}
	if (o->via == VIA_READ && !(buf = malloc(o->block))) {
		fprintf(stderr, "advshim-load: out of memory for --block\n");
		close(fd);
		return 1;
	}
	if (o->json)
		printf("{\"event\":\"begin\",\"mode\":\"stream\",\"file\":\"%s\",\"size\":%" PRIu64
		       ",\"via\":\"%s\",\"loops\":%u,\"pid\":%d,\"mono_ms\":%" PRIu64 "}\n",
		       o->file, size, o->via == VIA_MMAP ? "mmap" : "read",
		       o->loops, (int)getpid(), t0 / 1000000);
	else
		printf("# advshim-load stream file=%s size=%" PRIu64 " via=%s loops=%u pid=%d mono_ms=%" PRIu64
		       "\nevent\tloop\tmono_ms\telapsed_ms\tbytes\tmib_s\n",
		       o->file, size, o->via == VIA_MMAP ? "mmap" : "read",
		       o->loops, (int)getpid(), t0 / 1000000);
	fflush(stdout);
	delay(o->delay_ms);
	ret = run_loops(o, fd, size, buf, t0);
	free(buf);
	close(fd);
	return ret;
}
