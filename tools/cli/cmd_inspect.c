// SPDX-License-Identifier: MIT
/*
 * cmd_inspect.c - `advshim inspect [--json] PID`: a process's file
 * mappings as the kernel sees them, and the shim's counters if loaded;
 * `advshim inspect --prometheus [PID]`: the counters of PID, or of every
 * process with the shim loaded or RANDOM/SEQUENTIAL file advice in force,
 * as Prometheus text (inspect_prom.c).
 *
 * Per file (VMAs grouped by path): mapped size (the file's bytes its VMAs
 * cover, each byte once: inspect_span.c), the advice in force from
 * /proc/PID/smaps VmFlags (rr = RANDOM, sr = SEQUENTIAL, "mixed" when the
 * file's VMAs differ), RSS from smaps, and the file's page-cache residency
 * (inspect maps the file itself and asks mincore).  The shim's counters
 * come from its "advshim-stats" memfd page, read through /proc/PID/mem
 * (shimstats.c).
 */
#include <dirent.h>
#include <errno.h>
#include <stddef.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <uthash.h>

#include "common/json.h"
#include "common/readfile.h"
#include "common/residency.h"
#include "common/smaps.h"
#include "policy/policy.h"
#include "shim/stats_layout.h"
#include "tools/cli/cli.h"
#include "tools/cli/inspect.h"
#include "tools/cli/shimstats.h"

struct file_row {
	char *path;
	UT_hash_handle hh;		/* by path: JVMs map thousands of files */
	uint64_t mapped_kib;		/* distinct file bytes, once parsed */
	uint64_t vma_kib;		/* the VMAs' sizes added up */
	struct inspect_span spans;
	uint64_t rss_kib;
	uint64_t inode;			/* of its first VMA */
	unsigned int vmas, rr_vmas, sr_vmas;
	int64_t cached_kib;		/* -1: unknown */
	int64_t file_kib;		/* -1: unknown */
};

struct inspect {
	int pid;
	char comm[64];
	struct file_row *rows;		/* hash head, in insertion order */
	char *shim_path;		/* libadvshim.so mapped, or NULL */
	uint64_t stats_addr;		/* 0: no stats page */
	bool have_stats;
	bool have_adapt;		/* a version 2 page: st.adapt */
	const char *stats_error;
	struct advshim_stats st;
	struct inspect_sec sec;		/* its --seccomp supervisor's report */
};

static struct file_row *row_for(struct inspect *in, const char *path)
{
	struct file_row *r;

	HASH_FIND_STR(in->rows, path, r);
	if (r)
		return r;
	r = calloc(1, sizeof(*r));
	if (!r)
		return NULL;
	r->path = strdup(path);
	if (!r->path) {
		free(r);
		return NULL;
	}
	r->cached_kib = r->file_kib = -1;
	HASH_ADD_KEYPTR(hh, in->rows, r->path, strlen(r->path), r);
	return r;
}

/* Count one file VMA (inode and a '/' path) into its file's row. */
static int add_file_vma(struct inspect *in, const struct smaps_vma *v,
			const char *path)
{
	struct file_row *r = row_for(in, path);

	if (!r)
		return -1;
	if (!r->vmas++)
		r->inode = v->inode;
	r->vma_kib += (v->end - v->start) / 1024;
	if (inspect_span_add(&r->spans, v->offset, v->offset + (v->end - v->start)))
		return -1;
	r->rss_kib += v->rss_kib;
	r->rr_vmas += smaps_has_flag(v, "rr");
	r->sr_vmas += smaps_has_flag(v, "sr");
	return 0;
}

/*
 * Walk smaps text: the shim's stats page and library, and the file VMAs
 * grouped by path.  Returns 0, -1 when out of memory, or the 1-based line
 * where the text stopped being smaps (as a positive number).
 */
static int parse_smaps(struct inspect *in, const char *buf, size_t len)
{
	struct smaps_cursor c;
	struct smaps_vma v;
	char path[4096];
	int r;

	smaps_begin(&c, buf, len);
	while ((r = smaps_next(&c, &v)) == 1) {
		snprintf(path, sizeof(path), "%.*s", (int)v.path_len, v.path);
		if (strstr(path, "/memfd:" ADVSHIM_STATS_NAME)) {
			in->stats_addr = v.start;
			continue;
		}
		if (strstr(path, "libadvshim") && !in->shim_path &&
		    !(in->shim_path = strdup(path)))
			return -1;
		if (v.inode && path[0] == '/' && add_file_vma(in, &v, path))
			return -1;
	}
	return r ? (int)c.line : 0;
}

/* Page-cache residency of the whole file (mincore on its own mapping). */
static void residency(struct file_row *r)
{
	int64_t size, cached;

	if (strstr(r->path, " (deleted)"))
		return;
	size = -1;
	cached = resid_of_path(r->path, &size);
	if (size >= 0)
		r->file_kib = size / 1024;
	if (cached >= 0)
		r->cached_kib = cached / 1024;
}

static void read_stats(struct inspect *in)
{
	if (in->stats_addr &&
	    !shimstats_read(NULL, in->pid, in->stats_addr, &in->st,
			    &in->have_adapt, &in->stats_error))
		in->have_stats = true;
}

/* The file's mark in the ADAPT column, or NULL. */
static const char *adapt_mark(const struct inspect *in,
			      const struct file_row *r)
{
	return in->have_adapt ? inspect_adapt_mark(&in->st.adapt, r->path,
						   r->inode) : NULL;
}

static const char *advice_of(const struct file_row *r)
{
	if (r->rr_vmas == r->vmas)
		return "rr";
	if (r->sr_vmas == r->vmas)
		return "sr";
	if (!r->rr_vmas && !r->sr_vmas)
		return "-";
	return "mixed";
}

/* Calls of @family and @kind, examined or not (stats_layout.h). */
static uint64_t calls_of(const struct advshim_stats *s, int family, int kind)
{
	return s->calls[family][kind] + s->passed[family][kind];
}

static uint64_t passed_total(const struct advshim_stats *s)
{
	uint64_t n = 0;
	int fam, k;

	for (fam = 0; fam < ADV_NR_FAMILIES; fam++)
		for (k = 0; k < ADV_NR_KINDS; k++)
			n += s->passed[fam][k];
	return n;
}

/* "calls" (every call) or "passed" (those no rule acts on) per family. */
static void print_per_kind_json(const struct advshim_stats *s, bool passed,
				FILE *f)
{
	int fam, k;

	fprintf(f, "\"%s\":{", passed ? "passed" : "calls");
	for (fam = 0; fam < ADV_NR_FAMILIES; fam++) {
		fprintf(f, "%s\"%s\":{", fam ? "," : "", adv_family_name(fam));
		for (k = 0; k < ADV_NR_KINDS; k++)
			fprintf(f, "%s\"%s\":%" PRIu64, k ? "," : "",
				adv_kind_name(k), passed ? s->passed[fam][k] :
				calls_of(s, fam, k));
		fputc('}', f);
	}
	fputc('}', f);
}

static void print_counters_json(const struct advshim_stats *s, FILE *f)
{
	fprintf(f, "\"counters\":{");
	print_per_kind_json(s, false, f);
	fputc(',', f);
	print_per_kind_json(s, true, f);
#define X(field, what) fprintf(f, ",\"" #field "\":%" PRIu64, s->field);
	ADVSHIM_STATS_COUNTERS(X)
#undef X
	fputc('}', f);
}

static void print_json(const struct inspect *in, FILE *f)
{
	const struct file_row *r;
	size_t i = 0;

	fprintf(f, "{\"pid\":%d,\"comm\":", in->pid);
	json_put_string(f, in->comm);
	fprintf(f, ",\"shim\":{\"loaded\":%s", in->shim_path ? "true" : "false");
	if (in->shim_path) {
		fprintf(f, ",\"path\":");
		json_put_string(f, in->shim_path);
	}
	if (in->have_stats) {
		fprintf(f, ",\"state\":");
		json_put_string(f, shimstats_state_name(in->st.state));
		fprintf(f, ",\"disabled\":%s", in->st.disabled ? "true" : "false");
		fprintf(f, ",\"policy\":");
		json_put_string(f, in->st.policy_source);
		fprintf(f, ",\"version\":");
		json_put_string(f, in->st.lib_version);
		fputc(',', f);
		print_counters_json(&in->st, f);
		if (in->have_adapt) {
			fputc(',', f);
			inspect_adapt_json(&in->st.adapt, f);
		}
	} else if (in->stats_error) {
		fprintf(f, ",\"stats_error\":");
		json_put_string(f, in->stats_error);
	}
	fprintf(f, "},");
	inspect_seccomp_json(&in->sec, f);
	fprintf(f, ",\"files\":[");
	for (r = in->rows; r; r = r->hh.next, i++) {
		fprintf(f, "%s{\"path\":", i ? "," : "");
		json_put_string(f, r->path);
		fprintf(f, ",\"mapped_kib\":%" PRIu64 ",\"vma_kib\":%" PRIu64 ",\"rss_kib\":%" PRIu64
			",\"cached_kib\":%" PRId64 ",\"file_kib\":%" PRId64
			",\"vmas\":%u,\"rr_vmas\":%u,\"sr_vmas\":%u,\"advice\":\"%s\"",
			r->mapped_kib, r->vma_kib, r->rss_kib, r->cached_kib, r->file_kib,
			r->vmas, r->rr_vmas, r->sr_vmas, advice_of(r));
		if (adapt_mark(in, r))
			fprintf(f, ",\"adaptive\":\"%s\"", adapt_mark(in, r));
		fputc('}', f);
	}
	fprintf(f, "]}\n");
}

/* A size for people: 512K, 3.5M, 1.2G ("-" when unknown). */
static void human(char *buf, size_t size, int64_t kib)
{
	if (kib < 0)
		snprintf(buf, size, "-");
	else if (kib < 1024)
		snprintf(buf, size, "%" PRId64 "K", kib);
	else if (kib < 1024 * 1024)
		snprintf(buf, size, "%.1fM", (double)kib / 1024);
	else
		snprintf(buf, size, "%.1fG", (double)kib / (1024 * 1024));
}

static void print_text(const struct inspect *in, FILE *f)
{
	const struct advshim_stats *s = &in->st;
	const struct file_row *r;
	char a[32], b[32], c[32];

	fprintf(f, "pid %d (%s): libadvshim.so %s\n", in->pid, in->comm,
		in->shim_path ? "loaded" : "not loaded");
	if (in->have_stats) {
		fprintf(f, "  shim %s, policy %s, %s%s\n", s->lib_version,
			s->policy_source, shimstats_state_name(s->state),
			s->disabled ? ", kill switch on: passing advice through" : "");
		fprintf(f, "  madvise calls: random %" PRIu64 ", sequential %" PRIu64
			", normal %" PRIu64 ", willneed %" PRIu64 "; fadvise calls: %" PRIu64 "\n",
			calls_of(s, 0, ADV_RANDOM), calls_of(s, 0, ADV_SEQUENTIAL),
			calls_of(s, 0, ADV_NORMAL), calls_of(s, 0, ADV_WILLNEED),
			calls_of(s, 1, ADV_RANDOM) + calls_of(s, 1, ADV_SEQUENTIAL) +
			calls_of(s, 1, ADV_NORMAL) + calls_of(s, 1, ADV_WILLNEED) +
			calls_of(s, 1, ADV_DONTNEED) + calls_of(s, 1, ADV_NOREUSE) +
			calls_of(s, 1, ADV_OTHER));
		fprintf(f, "  rewritten %" PRIu64 ", skipped %" PRIu64 ", kept %" PRIu64
			", passed unexamined %" PRIu64
			", noreuse at map %" PRIu64 "; file mappings live %" PRIu64
			", total %" PRIu64 "; files %" PRIu64 "; kernel-view lookups %" PRIu64
			"; errors %" PRIu64 "\n",
			s->rewritten, s->skipped, s->kept, passed_total(s),
			s->noreuse_applied,
			s->file_maps_live, s->file_maps_total, s->files_known,
			s->fallbacks, s->errors);
		if (in->have_adapt)
			inspect_adapt_text(&s->adapt, f);
	} else if (in->shim_path) {
		fprintf(f, "  counters unavailable: %s\n",
			in->stats_error ? in->stats_error : "no stats page (shim not initialised yet)");
	}
	inspect_seccomp_text(&in->sec, f);
	fprintf(f, "%-6s %8s %8s %8s %5s  %-6s  %s\n", "ADVICE", "MAPPED",
		"RSS", "CACHED", "VMAS", "ADAPT", "FILE");
	for (r = in->rows; r; r = r->hh.next) {
		human(a, sizeof(a), (int64_t)r->mapped_kib);
		human(b, sizeof(b), (int64_t)r->rss_kib);
		human(c, sizeof(c), r->cached_kib);
		fprintf(f, "%-6s %8s %8s %8s %5u  %-6s  %s\n", advice_of(r), a,
			b, c, r->vmas, adapt_mark(in, r) ? adapt_mark(in, r) : "-",
			r->path);
	}
}

static void usage(FILE *f)
{
	fprintf(f, "usage: advshim inspect [--json] PID\n"
		"       advshim inspect --prometheus [PID]\n"
		"  Lists PID's file mappings grouped by file: advice in force\n"
		"  (rr/sr from smaps VmFlags), mapped and resident size, page-cache\n"
		"  residency, and libadvshim.so's counters if it is loaded.\n"
		"  --prometheus: the shim's counters in the Prometheus text format,\n"
		"  for PID or for every process with the shim loaded or rr/sr file\n"
		"  advice in force (node-exporter's textfile collector).\n");
}

/*
 * Options and the PID: 0 with *pid (0: none, --prometheus only), *json
 * and *prom set, -1 after --help, or EXIT_USAGE after a message.
 */
static int parse_args(int argc, char **argv, long *pid, bool *json,
		      bool *prom)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "prometheus", no_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char *end;
	int c;

	while ((c = getopt_long(argc, argv, "jh", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			*json = true;
			break;
		case 'p':
			*prom = true;
			break;
		default:
			return cli_help_or_usage(c, usage, -1);
		}
	}
	if (*prom && *json) {
		fprintf(stderr, "advshim inspect: --json or --prometheus, not both\n");
		return EXIT_USAGE;
	}
	if (*prom && optind == argc) {
		*pid = 0;
		return 0;
	}
	if (optind != argc - 1) {
		usage(stderr);
		return EXIT_USAGE;
	}
	errno = 0;
	*pid = strtol(argv[optind], &end, 10);
	if (errno || *end || *pid <= 0 || *pid > 0x3fffffff) {
		fprintf(stderr, "advshim inspect: '%s' is not a PID\n", argv[optind]);
		return EXIT_USAGE;
	}
	return 0;
}

/* /proc/PID/smaps into *buf; 0, or 1 (after a message unless @quiet). */
static int read_smaps(long pid, char **buf, size_t *len, bool quiet)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%ld/smaps", pid);
	if (read_file(path, buf, len, 0)) {
		if (quiet)
			return 1;
		cli_smaps_error("inspect", pid, errno);
		return 1;
	}
	if (!*len) {
		free(*buf);
		if (quiet)
			return 1;
		/* smaps of a zombie or kernel thread reads empty. */
		fprintf(stderr, "advshim inspect: process %ld has no memory map (exited?)\n", pid);
		return 1;
	}
	return 0;
}

static void read_comm(struct inspect *in)
{
	char path[64], *comm;

	snprintf(path, sizeof(path), "/proc/%d/comm", in->pid);
	if (!read_file(path, &comm, NULL, 0)) {
		comm[strcspn(comm, "\n")] = '\0';
		snprintf(in->comm, sizeof(in->comm), "%s", comm);
		free(comm);
	}
}

static void free_inspect(struct inspect *in)
{
	struct file_row *r, *tmp;

	HASH_ITER(hh, in->rows, r, tmp) {
		HASH_DEL(in->rows, r);
		inspect_span_free(&r->spans);
		free(r->path);
		free(r);
	}
	free(in->shim_path);
}

/*
 * One process for --prometheus into @p: 1 when it is worth listing (the
 * shim loaded, or rr/sr file VMAs; always with @all), 0 when not or
 * unreadable (gone, not ours: quietly), -1 out of memory.
 */
static int prom_one(long pid, bool all, struct inspect_prom *p)
{
	struct inspect in;
	struct file_row *r;
	size_t len;
	char *buf;
	int ret;

	memset(&in, 0, sizeof(in));
	memset(p, 0, sizeof(*p));
	in.pid = (int)pid;
	if (read_smaps(pid, &buf, &len, !all))
		return all ? -2 : 0;
	read_comm(&in);
	ret = parse_smaps(&in, buf, len);
	free(buf);
	if (ret) {
		free_inspect(&in);
		return ret < 0 ? -1 : 0;
	}
	for (r = in.rows; r; r = r->hh.next)
		p->rr_vmas += r->rr_vmas + r->sr_vmas;
	read_stats(&in);
	p->pid = in.pid;
	memcpy(p->comm, in.comm, sizeof(p->comm));
	p->loaded = in.shim_path != NULL;
	p->have_stats = in.have_stats;
	p->have_adapt = in.have_adapt;
	p->st = in.st;
	free_inspect(&in);
	return all || p->loaded || p->rr_vmas;
}

/* lru_gen/enabled as a number, -1 when absent or unreadable. */
static int read_enabled(void)
{
	char *s, *end;
	long v;

	if (read_file("/sys/kernel/mm/lru_gen/enabled", &s, NULL, 64))
		return -1;
	v = strtol(s, &end, 0);
	if (end == s)
		v = -1;
	free(s);
	return (int)v;
}

/* --prometheus: @pid alone, or every process of /proc (pid 0). */
static int cmd_prom(long pid)
{
	struct inspect_prom *v = NULL, *n;
	size_t nr = 0, cap = 0;
	struct dirent *de;
	DIR *d = NULL;
	int r = 0;

	if (!pid && !(d = opendir("/proc"))) {
		perror("advshim inspect: /proc");
		return 1;
	}
	for (;;) {
		long p = pid;

		if (d) {
			if (!(de = readdir(d)))
				break;
			if (de->d_name[0] < '1' || de->d_name[0] > '9')
				continue;
			p = strtol(de->d_name, NULL, 10);
		}
		if (nr == cap) {
			cap = cap ? 2 * cap : 16;
			if (!(n = realloc(v, cap * sizeof(*v)))) {
				r = -1;
				break;
			}
			v = n;
		}
		r = prom_one(p, !d, &v[nr]);
		if (r < 0)
			break;
		nr += r == 1;
		r = 0;
		if (!d)
			break;
	}
	if (d)
		closedir(d);
	if (r == -1)
		fprintf(stderr, "advshim inspect: out of memory\n");
	if (!r && inspect_prom_write(v, nr, read_enabled(), stdout))
		r = -1;
	free(v);
	return r ? 1 : 0;
}

int cmd_inspect(int argc, char **argv)
{
	struct inspect in;
	struct file_row *r;
	bool json = false, prom = false;
	size_t len;
	char *buf;
	long pid = 0;
	int ret;

	ret = parse_args(argc, argv, &pid, &json, &prom);
	if (ret)
		return ret < 0 ? 0 : ret;
	if (prom)
		return cmd_prom(pid);
	memset(&in, 0, sizeof(in));
	in.pid = (int)pid;
	if (read_smaps(pid, &buf, &len, false))
		return 1;
	read_comm(&in);
	ret = parse_smaps(&in, buf, len);
	free(buf);
	if (ret) {
		if (ret < 0)
			fprintf(stderr, "advshim inspect: out of memory\n");
		else
			fprintf(stderr, "advshim inspect: /proc/%ld/smaps:%d: not smaps text\n",
				pid, ret);
		free_inspect(&in);
		return 1;
	}
	for (r = in.rows; r; r = r->hh.next) {
		r->mapped_kib = inspect_span_total(&r->spans) / 1024;
		residency(r);
	}
	read_stats(&in);
	inspect_seccomp_read(in.pid, &in.sec);
	if (json)
		print_json(&in, stdout);
	else
		print_text(&in, stdout);
	free_inspect(&in);
	return 0;
}
