/* SPDX-License-Identifier: MIT */
/*
 * kparse.h - pure parsers for the kernel and workload text advshim-ab
 * samples: memory.stat, io.stat, /proc/PID/io, lru_gen, smaps, and
 * advshim-load's TSV lines.  All take buffers; none does I/O.
 */
#ifndef ADVSHIM_AB_KPARSE_H
#define ADVSHIM_AB_KPARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Counters from memory.stat; has_* false when the kernel lacks the key. */
struct memstat {
	uint64_t pgmajfault;
	uint64_t refault_file;
	uint64_t activate_file;
	bool has_pgmajfault, has_refault, has_activate;
};

/*
 * parse_memstat - pick the counters out of memory.stat text.  @v1: prefer
 * the hierarchical total_* copies of cgroup v1.  Older key names
 * (workingset_refault, workingset_activate: before 5.9) are accepted.
 * Always returns 0; missing keys leave has_* false.
 */
int parse_memstat(const char *buf, bool v1, struct memstat *out);

/* parse_iostat_rbytes - sum of rbytes= over every device line of io.stat. */
uint64_t parse_iostat_rbytes(const char *buf);

/* parse_proc_io - read_bytes from /proc/PID/io text; -1 if absent. */
int64_t parse_proc_io(const char *buf);

/* Generations of one memcg in /sys/kernel/debug/lru_gen. */
struct gens {
	unsigned long min_seq;	/* smallest first seq over nodes */
	unsigned long max_seq;	/* largest last seq over nodes */
	int nr_gens;		/* on the node with the most */
};

/*
 * parse_lrugen - find the memcg whose path is @path ("/" for the root;
 * as lru_gen prints it) and summarise its generations.  Returns 0, or -1
 * when the memcg is not listed or has no generation rows.
 */
int parse_lrugen(const char *buf, const char *path, struct gens *out);

/*
 * parse_smaps_rr - for each of @n file @paths, set @state[i] to 1 if some
 * mapping of it in the smaps text has VmFlags "rr", 0 if it is mapped but
 * none has "rr", -1 if it is not mapped.  Returns how many are mapped.
 */
int parse_smaps_rr(const char *buf, const char *const *paths, size_t n,
		   int *state);

/* One interval row of `advshim-load random` TSV output. */
struct load_row {
	uint64_t elapsed_ms, mono_ms, queries;
	double qps, reads_s, p50_us, p90_us, p99_us;
	uint64_t majflt;
	double majflt_s;
};

/*
 * parse_load_row - parse one line; returns 1 for an interval row, 0 for
 * anything else (comments, header, stream lines, partial junk).
 */
int parse_load_row(const char *line, struct load_row *row);

/*
 * parse_stream_event - a `advshim-load stream` start/end line: sets
 * *is_end, *loop and *mono_ms and returns 1, else 0.
 */
int parse_stream_event(const char *line, bool *is_end, unsigned int *loop,
		       uint64_t *mono_ms);



struct watch_counts;
/*
 * parse_watch_log - count advshim-watch's JSON-lines decisions ("event":
 * "thrash", "age", "would_age", "age_failed"; anything else is "other")
 * into @w.  Lines that are not JSON objects are ignored.
 */
void parse_watch_log(const char *buf, struct watch_counts *w);
#endif /* ADVSHIM_AB_KPARSE_H */
