/* SPDX-License-Identifier: MIT */
/*
 * doctor.h - `advshim doctor`: is this host hit by the MGLRU stall, where,
 * and what to run.  The pieces, one concern per file:
 *
 *   cmd_doctor.c       options, the order of the steps, the exit code
 *   doctor_kernel.c    kernel release, lru_gen state, the series' rule
 *   doctor_proc.c      processes: smaps rr/sr file mappings, memcg, shim
 *   doctor_elf.c       executables: static, Go (what LD_PRELOAD cannot reach)
 *   doctor_watchers.c  running advshim-watch processes and their memcgs
 *   doctor_memcg.c     per memcg: need, figures, the adaptive rule's verdict
 *   doctor_sample.c    per memcg: the stall signature, sampled through the
 *                      watcher's detector
 *   doctor_verdict.c   per process: affected, covered, the exact remedy
 *   doctor_out.c       text and JSON (docs/doctor.md has the schema)
 *
 * Every file is read below doc->root ("/" or --root DIR), the way the
 * watcher reads below its --*-root options, so tests point doctor at a
 * tree of captured kernel text.  Read-only: nothing is written anywhere.
 * Single-threaded; no locks.  Functions that read files report what they
 * could not read in the structures (an errno) instead of failing: doctor
 * says what it could not see and why (mostly: not root).
 */
#ifndef ADVSHIM_CLI_DOCTOR_H
#define ADVSHIM_CLI_DOCTOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "common/cgroup_read.h"
#include "adapt/adapt.h"
#include "tools/watch/detector.h"
#include "tools/watch/kver.h"

#define DOC_PATH_MAX	4096

/* What the lab measured for a kernel series (tools/lab/README.md). */
enum doc_series {
	DOC_SER_UNKNOWN,	/* release unreadable */
	DOC_SER_OLD,		/* before 6.1: no MGLRU upstream */
	DOC_SER_AGES,		/* 6.1, 6.2: rmap counts RANDOM accesses */
	DOC_SER_STALLS,		/* 6.3 - 6.19: vma_has_recency(), never ages */
	DOC_SER_SOMETIMES,	/* 7.x: stalls, at times ages by itself */
};

struct doc_kernel {
	char release[128];		/* "" when unreadable */
	struct kver v;
	bool have_v;
	enum doc_series series;
	bool mglru;			/* sys/kernel/mm/lru_gen exists */
	int enabled;			/* enabled bits, -1 unknown */
	long min_ttl_ms;		/* -1 unknown */
	int lrugen_errno;		/* 0: debugfs lru_gen readable */
	bool full;			/* lru_gen_full is the file read */
	char lockdown[32];		/* "none", "integrity"...; "" unknown */
};

/* Why LD_PRELOAD cannot put the shim into a process. */
enum doc_reach {
	DOC_REACH_UNKNOWN,	/* executable unreadable */
	DOC_REACH_PRELOAD,	/* dynamic, not Go: the shim can be preloaded */
	DOC_REACH_STATIC,	/* no PT_INTERP: the loader never runs */
	DOC_REACH_GO,		/* Go: raw syscalls, never through libc */
	DOC_REACH_SECURE,	/* AT_SECURE: the shim ignores its environment */
};

/* One file mapped with rr or sr; a file mapped twice counts once. */
struct doc_file {
	char *path;
	uint64_t inode;
	int64_t size;			/* bytes; -1 unknown */
	unsigned int vmas, rr_vmas, sr_vmas;
};

struct doc_memcg;

struct doc_proc {
	int pid;
	char comm[64];
	char exe[DOC_PATH_MAX];		/* "" unreadable */
	struct doc_file *files;
	size_t nr_files;
	int cg_err;			/* 0, or -errno of locating the memcg */
	struct cg_where cg;
	struct doc_memcg *mc;		/* NULL when cg_err */
	bool shim_mapped;		/* libadvshim.so in its smaps */
	int shim_state;			/* ADVSHIM_STATE_*, -1 no stats page */
	bool shim_disabled;		/* its kill switch is on */
	const char *stats_error;	/* why the page was not read, or NULL */
	uint64_t rewritten;		/* the shim's counters (state >= 0) */
	int preload;			/* LD_PRELOAD names the shim: 1, 0, -1 ? */
	int secure;			/* AT_SECURE: 1, 0, -1 unreadable */
	enum doc_reach reach;
	bool is_go, is_static;
	int seccomp;			/* pid of its advshim run --seccomp
					   supervisor (live, the filter in its
					   status); 0: not supervised */
};

/* The stall signature of one memcg over the sampling interval. */
struct doc_stall {
	bool sampled;			/* two readings made */
	int err;			/* errno of the reading that failed */
	const char *what;		/* which one (static), when err */
	bool listed;			/* the memcg is in lru_gen */
	uint64_t dt_ms;
	unsigned long max_seq0, max_seq1;
	double refaults_per_s;		/* < 0 unknown */
	unsigned int nr_gens;
	unsigned long stuck_pages;	/* file pages above the oldest gen */
	unsigned long file_pages;
	struct det_out out;		/* the detector's second step */
};

struct doc_memcg {
	struct cg_where w;
	uint64_t need;			/* bytes of its rr/sr files, once each */
	int fig_err;			/* 0, or -errno of the figures */
	struct cg_figures fig;
	uint64_t file_bytes, mem_avail;
	struct adapt_verdict av;	/* the adaptive rule on one sample */
	bool has_rr;			/* a listed process maps rr/sr here */
	bool named;			/* given by --cgroup */
	bool has_procs;			/* a listed process is in it */
	bool watched;			/* a live advshim-watch that can write
					 * lru_gen (not --dry-run, no lockdown,
					 * debugfs there) ages it */
	const char *watch_note;		/* a watcher names it but cannot age
					 * it: why (static), else NULL */
	int mark_err;			/* advshim-watch's mark on it
					 * (common/guard.h): 0 read, else
					 * guard_read's -errno (-ENODATA:
					 * none) */
	uint64_t mark_age_s;		/* when read: how old */
	bool guarded;			/* when read: fresh, as the shim
					 * judges it */
	struct doc_stall stall;
};

/* A running advshim-watch, from its command line. */
struct doc_watcher {
	int pid;
	bool dry_run;
	size_t nr_cgroups;		/* 0: every memcg */
	char **cgroups;
};

enum doc_verdict {
	DOC_V_NOT_AFFECTED,	/* kernel, advice or memcg rule it out */
	DOC_V_SHIM,		/* covered: the shim is active, no rr left */
	DOC_V_WATCHER,		/* covered: a live watcher ages its memcg */
	DOC_V_SECCOMP,		/* covered: advshim run --seccomp, no rr left */
	DOC_V_EXPOSED,		/* affected, not covered, not stalled now */
	DOC_V_STALLED,		/* affected, not covered, stalled now */
	DOC_V_UNKNOWN,		/* could not tell (unreadable kernel text) */
};

struct doctor {
	const char *root;		/* "" for "/" */
	bool json;
	unsigned int sample_ms;
	const int *pids;		/* --pid filter (nr_pids 0: all) */
	size_t nr_pids;
	char *const *cgroups;		/* --cgroup filter and extra memcgs */
	size_t nr_cgroups;
	bool is_root;			/* euid 0 */
	char hostname[256];
	struct doc_kernel k;
	struct doc_proc *procs;
	size_t nr_procs, cap_procs;
	unsigned int unreadable;	/* processes whose smaps we may not read */
	struct doc_memcg **memcgs;	/* each allocated once: stable */
	size_t nr_memcgs, cap_memcgs;
	struct doc_watcher *watchers;
	size_t nr_watchers;
	const char *shim_lib;		/* for the remedy lines */
};

/* ---- doctor_kernel.c ---- */

/*
 * doc_kernel_read - release (proc/sys/kernel/osrelease), lru_gen's
 * enabled bits and min_ttl_ms, whether debugfs lru_gen[_full] opens, and
 * the lockdown mode, all below @root; never fails (unknowns are marked).
 */
void doc_kernel_read(const char *root, struct doc_kernel *k);

/* doc_series_of - the lab's rule for kernel @v. */
enum doc_series doc_series_of(const struct kver *v);

/* doc_series_text - one sentence on @s (static). */
const char *doc_series_text(enum doc_series s);

/* doc_series_name - "no", "yes", "sometimes", "n/a", "unknown". */
const char *doc_series_name(enum doc_series s);

/* doc_kernel_exposed - MGLRU on (enabled bit 0x1) and a series that stalls. */
bool doc_kernel_exposed(const struct doc_kernel *k);

/* ---- doctor_elf.c ---- */

/*
 * doc_elf_classify - from the ELF image @buf (@len bytes, a 64- or 32-bit
 * little-endian ELF): *is_static when it has no PT_INTERP, *is_go when a
 * section is named .note.go.buildid or .go.buildinfo, or the symbol table
 * has runtime.main.  Returns 0, or -1 (errno ENOEXEC) when it is not ELF.
 */
int doc_elf_classify(const void *buf, size_t len, bool *is_static,
		     bool *is_go);

/*
 * doc_elf_file - doc_elf_classify() of the file @path (mapped read-only).
 * Returns 0, or -1 with errno of open/mmap or ENOEXEC.
 */
int doc_elf_file(const char *path, bool *is_static, bool *is_go);

/* ---- doctor_proc.c ---- */

/*
 * doc_procs_scan - every process below @d->root's proc/ (or only those of
 * --pid) with rr/sr file mappings or the shim loaded: files, memcg, shim
 * state and reach; counts the ones whose smaps it may not read.  Returns
 * 0, or -1 with errno (ENOMEM; proc/ unreadable; ESRCH: a --pid named no
 * readable process) after a message on stderr.
 */
int doc_procs_scan(struct doctor *d);

/*
 * doc_watchers_scan - running advshim-watch processes and, from their
 * command lines, which memcgs they age (--cgroup, --dry-run).  Returns 0
 * or -1 (ENOMEM).
 */
int doc_watchers_scan(struct doctor *d);

/* doc_free - release everything the scans and doc_memcg_get allocated. */
void doc_free(struct doctor *d);

/* ---- doctor_memcg.c ---- */

/*
 * doc_memcg_get - the entry of memcg @w, created (zeroed, path copied)
 * when new; NULL when out of memory.  Entries never move.
 */
struct doc_memcg *doc_memcg_get(struct doctor *d, const struct cg_where *w);

/*
 * doc_memcgs_measure - for every memcg: need (its processes' rr/sr files,
 * each once), limit, usage, page cache and MemAvailable, whether a watcher
 * covers it, advshim-watch's mark on it, and the adaptive rule's first
 * decision on that one sample (by size alone, as the shim's first is).
 */
void doc_memcgs_measure(struct doctor *d);

/* ---- doctor_sample.c ---- */

/*
 * doc_memcgs_sample - the stall signature: lru_gen (lru_gen_full when
 * readable) and memory.stat of every memcg now and after d->sample_ms,
 * judged by the watcher's detector with its default settings (two looks:
 * the window over lru_gen_full's counters).  Only memcgs with a listed process or named by --cgroup.  Skipped
 * (stall.sampled false) without MGLRU, with sample_ms 0, when lru_gen is
 * unreadable (stall.err) or there is no such memcg.
 */
void doc_memcgs_sample(struct doctor *d);

/*
 * doc_fit_name - "fits", "does not fit", "in between", "unknown" (figures
 * unreadable) or "none" (no listed process maps rr/sr files there).
 */
const char *doc_fit_name(const struct doc_memcg *m);

/* doc_stalled - the detector saw thrash with pages stuck above the oldest. */
bool doc_stalled(const struct doc_memcg *m);

/* ---- doctor_verdict.c ---- */

/* doc_verdict - what holds for @p on this host (pure). */
enum doc_verdict doc_verdict(const struct doctor *d, const struct doc_proc *p);

/* doc_verdict_name - "not affected", "covered by the shim", ... */
const char *doc_verdict_name(enum doc_verdict v);

/* doc_reason - why @p has verdict @v, one phrase into @buf. */
void doc_reason(const struct doctor *d, const struct doc_proc *p,
		enum doc_verdict v, char *buf, size_t size);

/*
 * doc_remedy - the lines to run or install for @p (affected verdicts
 * only; else none), each written to @f prefixed by @indent.  JSON
 * callers pass @json true: each line is a JSON string, comma separated.
 */
void doc_remedy(const struct doctor *d, const struct doc_proc *p,
		const char *indent, bool json, FILE *f);

/* doc_shim_why_not - why the shim is not active in @p (static), or NULL. */
const char *doc_shim_why_not(const struct doc_proc *p);

/* ---- doctor_out.c ---- */

/* doc_print_text, doc_print_json - the report; @status is the exit code. */
void doc_print_text(const struct doctor *d, int status, FILE *f);
void doc_print_json(const struct doctor *d, int status, FILE *f);

#endif /* ADVSHIM_CLI_DOCTOR_H */
