/* SPDX-License-Identifier: MIT */
/*
 * load.h - advshim-load internals shared by its modes.
 *
 * The option parser and file set-up run before any thread exists; the
 * modes start their own threads, which share nothing but what load_random
 * documents; now_ns() and majflt_self() may be called from any thread.
 */
#ifndef ADVSHIM_LOAD_LOAD_H
#define ADVSHIM_LOAD_LOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum load_mode { LOAD_RANDOM, LOAD_STREAM };
enum load_advice { ADVICE_NONE, ADVICE_NORMAL, ADVICE_RANDOM, ADVICE_SEQUENTIAL };
enum load_via { VIA_MMAP, VIA_READ };

#define LOAD_MAX_SWITCH 8

struct load_opts {
	enum load_mode mode;
	const char *file;
	uint64_t size;		/* bytes; 0: not given (the file must exist) */
	bool json;
	uint64_t seed;
	/* random */
	unsigned int threads;
	unsigned int reads;	/* dependent reads per query */
	uint64_t record;	/* bytes per read */
	double theta;
	enum load_advice advice;
	unsigned int interval_ms;
	double duration_s;	/* 0: until SIGINT/SIGTERM */
	bool shuffle;		/* spread hot records over the file */
	unsigned int nr_switch;	/* --switch-advice-at, in time order */
	struct load_switch {
		uint64_t at_ms;
		enum load_advice advice;
	} sw[LOAD_MAX_SWITCH];
	/* stream */
	enum load_via via;
	unsigned int loops;
	unsigned int delay_ms;
	uint64_t block;		/* read() size */
	bool noreuse;		/* POSIX_FADV_NOREUSE on the fd first */
	bool drop_pass;		/* POSIX_FADV_DONTNEED after each pass */
	uint64_t drop_every;	/* ... and every this many bytes read (0: no) */
};

/*
 * load_parse_args - fill @o from argv (argv[1] is the mode).  Returns 0,
 * 1 when --help was printed (exit 0), or -1 after printing a message to
 * stderr (exit 2).
 */
int load_parse_args(int argc, char **argv, struct load_opts *o);

/*
 * parse_size - "4096", "4k", "240M", "1G", "1T" (binary units; an optional
 * trailing "iB"/"B") into bytes.  Returns 0, or -1 with errno = EINVAL or
 * ERANGE.
 */
int parse_size(const char *s, uint64_t *out);

/*
 * load_open_file - open @path read-only, creating it first with @size
 * bytes of pseudo-random content (seeded by @seed) when it is missing.
 * An existing file must have exactly @size bytes when @size != 0.
 * Returns the fd and sets *st_size, or -1 after printing why to stderr.
 */
int load_open_file(const char *path, uint64_t size, uint64_t seed,
		   uint64_t *st_size);

/* now_ns - CLOCK_MONOTONIC in nanoseconds.  Cannot fail. */
uint64_t now_ns(void);

/* majflt_self - major faults of this process so far (getrusage); 0 if unknown. */
uint64_t majflt_self(void);

/*
 * load_random / load_stream - run a mode until its end (duration, loops)
 * or SIGINT/SIGTERM, printing TSV (or JSON) to stdout.  Return the exit
 * status: 0, 1 after an I/O or set-up error (said on stderr), 2 for an
 * argument that only the opened file shows to be wrong.
 */
int load_random(const struct load_opts *o);
int load_stream(const struct load_opts *o);

/* advice_name - "none", "normal", "random" or "sequential" (static). */
const char *advice_name(enum load_advice a);

#endif /* ADVSHIM_LOAD_LOAD_H */
