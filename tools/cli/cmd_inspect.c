// SPDX-License-Identifier: MIT
/*
 * cmd_inspect.c - `advshim inspect [--json] PID`: a process's file
 * mappings as the kernel sees them, and the shim's counters if loaded.
 *
 * Per file (VMAs grouped by path): mapped size, the advice in force from
 * /proc/PID/smaps VmFlags (rr = RANDOM, sr = SEQUENTIAL, "mixed" when the
 * file's VMAs differ), RSS from smaps, and the file's page-cache residency
 * (inspect maps the file itself and asks mincore).  The shim's counters
 * come from its "advshim-stats" memfd page, read through /proc/PID/mem.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <uthash.h>

#include "common/readfile.h"
#include "policy/policy.h"
#include "shim/stats_layout.h"
#include "tools/cli/cli.h"

struct file_row {
	char *path;
	UT_hash_handle hh;		/* by path: JVMs map thousands of files */
	uint64_t mapped_kib;
	uint64_t rss_kib;
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
	const char *stats_error;
	struct advshim_stats st;
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

/* Does VmFlags line @flags contain the two-letter flag @fl? */
static bool has_flag(const char *flags, const char *fl)
{
	const char *p = flags;

	while ((p = strstr(p, fl))) {
		if ((p == flags || p[-1] == ' ') && (p[2] == ' ' || !p[2] ||
						     p[2] == '\n'))
			return true;
		p += 2;
	}
	return false;
}

/* Parse smaps text; file VMAs are those with an inode and a '/' path. */
static int parse_smaps(struct inspect *in, char *buf)
{
	struct file_row *cur = NULL;
	char *line, *save = NULL, path[4096];
	unsigned long long start, end, ino, kib;
	int n;

	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		path[0] = '\0';
		n = 0;
		if (sscanf(line, "%llx-%llx %*s %*s %*s %llu %n", &start, &end,
			   &ino, &n) == 3 && n) {
			snprintf(path, sizeof(path), "%s", line + n);
			cur = NULL;
			if (strstr(path, "/memfd:" ADVSHIM_STATS_NAME)) {
				in->stats_addr = start;
				continue;
			}
			if (strstr(path, "libadvshim") && !in->shim_path)
				in->shim_path = strdup(path);
			if (!ino || path[0] != '/')
				continue;
			cur = row_for(in, path);
			if (!cur)
				return -1;
			cur->vmas++;
			cur->mapped_kib += (end - start) / 1024;
			continue;
		}
		if (!cur)
			continue;
		if (sscanf(line, "Rss: %llu kB", &kib) == 1)
			cur->rss_kib += kib;
		else if (!strncmp(line, "VmFlags:", 8)) {
			cur->rr_vmas += has_flag(line + 8, "rr");
			cur->sr_vmas += has_flag(line + 8, "sr");
		}
	}
	return 0;
}

/*
 * Page-cache residency of the whole file: map it (no faults: mincore only
 * reads the page cache) and count resident pages, 64 MiB at a time so a
 * huge file needs no huge vector.
 */
static void residency(struct file_row *r)
{
	enum { WINDOW = 64 << 20 };
	long pg = sysconf(_SC_PAGESIZE);
	unsigned char *vec;
	struct stat st;
	size_t res = 0, i, n;
	off_t off;
	void *m;
	int fd;

	if (strstr(r->path, " (deleted)"))
		return;
	fd = open(r->path, O_RDONLY | O_CLOEXEC | O_NOATIME);
	if (fd < 0)
		fd = open(r->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return;
	}
	r->file_kib = st.st_size / 1024;
	vec = malloc(WINDOW / pg);
	for (off = 0; vec && off < st.st_size; off += WINDOW) {
		n = st.st_size - off < WINDOW ? (size_t)(st.st_size - off) : WINDOW;
		m = mmap(NULL, n, PROT_READ, MAP_SHARED, fd, off);
		if (m == MAP_FAILED)
			break;
		if (mincore(m, n, vec)) {
			munmap(m, n);
			break;
		}
		for (i = 0; i < (n + pg - 1) / pg; i++)
			res += vec[i] & 1;
		munmap(m, n);
	}
	if (vec && off >= st.st_size)
		r->cached_kib = (int64_t)(res * (pg / 1024));
	free(vec);
	close(fd);
}

static void read_stats(struct inspect *in)
{
	char memp[64];
	ssize_t n;
	int fd;

	if (!in->stats_addr)
		return;
	snprintf(memp, sizeof(memp), "/proc/%d/mem", in->pid);
	fd = open(memp, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		in->stats_error = errno == EACCES || errno == EPERM ?
			"permission denied reading /proc/PID/mem (run as the process's user with ptrace access, or root)" :
			strerror(errno);
		return;
	}
	n = pread(fd, &in->st, sizeof(in->st), (off_t)in->stats_addr);
	if (n < 0)
		in->stats_error = strerror(errno);
	close(fd);
	if (n == (ssize_t)sizeof(in->st) && in->st.magic == ADVSHIM_STATS_MAGIC &&
	    in->st.version == ADVSHIM_STATS_VERSION) {
		in->st.policy_source[sizeof(in->st.policy_source) - 1] = '\0';
		in->st.lib_version[sizeof(in->st.lib_version) - 1] = '\0';
		in->have_stats = true;
	} else if (!in->stats_error) {
		in->stats_error = "stats page has an unknown layout";
	}
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

static const char *state_name(int s)
{
	switch (s) {
	case ADVSHIM_STATE_STARTING: return "starting";
	case ADVSHIM_STATE_ACTIVE: return "active";
	case ADVSHIM_STATE_CONFIG_ERROR: return "config error, passing through";
	case ADVSHIM_STATE_NOT_SELECTED: return "process not selected, passing through";
	}
	return "unknown";
}

static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(f, "\\u%04x", *s);
		else
			fputc(*s, f);
	}
	fputc('"', f);
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
	json_str(f, in->comm);
	fprintf(f, ",\"shim\":{\"loaded\":%s", in->shim_path ? "true" : "false");
	if (in->shim_path) {
		fprintf(f, ",\"path\":");
		json_str(f, in->shim_path);
	}
	if (in->have_stats) {
		fprintf(f, ",\"state\":");
		json_str(f, state_name(in->st.state));
		fprintf(f, ",\"policy\":");
		json_str(f, in->st.policy_source);
		fprintf(f, ",\"version\":");
		json_str(f, in->st.lib_version);
		fputc(',', f);
		print_counters_json(&in->st, f);
	} else if (in->stats_error) {
		fprintf(f, ",\"stats_error\":");
		json_str(f, in->stats_error);
	}
	fprintf(f, "},\"files\":[");
	for (r = in->rows; r; r = r->hh.next, i++) {
		fprintf(f, "%s{\"path\":", i ? "," : "");
		json_str(f, r->path);
		fprintf(f, ",\"mapped_kib\":%" PRIu64 ",\"rss_kib\":%" PRIu64
			",\"cached_kib\":%" PRId64 ",\"file_kib\":%" PRId64
			",\"vmas\":%u,\"rr_vmas\":%u,\"sr_vmas\":%u,\"advice\":\"%s\"}",
			r->mapped_kib, r->rss_kib, r->cached_kib, r->file_kib,
			r->vmas, r->rr_vmas, r->sr_vmas, advice_of(r));
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
		fprintf(f, "  shim %s, policy %s, %s\n", s->lib_version,
			s->policy_source, state_name(s->state));
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
	} else if (in->shim_path) {
		fprintf(f, "  counters unavailable: %s\n",
			in->stats_error ? in->stats_error : "no stats page (shim not initialised yet)");
	}
	fprintf(f, "%-6s %8s %8s %8s %5s  %s\n", "ADVICE", "MAPPED", "RSS",
		"CACHED", "VMAS", "FILE");
	for (r = in->rows; r; r = r->hh.next) {
		human(a, sizeof(a), (int64_t)r->mapped_kib);
		human(b, sizeof(b), (int64_t)r->rss_kib);
		human(c, sizeof(c), r->cached_kib);
		fprintf(f, "%-6s %8s %8s %8s %5u  %s\n", advice_of(r), a, b,
			c, r->vmas, r->path);
	}
}

static void usage(FILE *f)
{
	fprintf(f, "usage: advshim inspect [--json] PID\n"
		"  Lists PID's file mappings grouped by file: advice in force\n"
		"  (rr/sr from smaps VmFlags), mapped and resident size, page-cache\n"
		"  residency, and libadvshim.so's counters if it is loaded.\n");
}

int cmd_inspect(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct inspect in;
	struct file_row *r, *tmp;
	char path[64], *buf = NULL, *comm = NULL, *end;
	bool json = false;
	long pid;
	int c;

	while ((c = getopt_long(argc, argv, "jh", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind != argc - 1) {
		usage(stderr);
		return EXIT_USAGE;
	}
	errno = 0;
	pid = strtol(argv[optind], &end, 10);
	if (errno || *end || pid <= 0 || pid > 0x3fffffff) {
		fprintf(stderr, "advshim inspect: '%s' is not a PID\n", argv[optind]);
		return EXIT_USAGE;
	}
	memset(&in, 0, sizeof(in));
	in.pid = (int)pid;
	snprintf(path, sizeof(path), "/proc/%ld/smaps", pid);
	if (read_file(path, &buf, NULL, 0)) {
		if (errno == ENOENT || errno == ESRCH)
			fprintf(stderr, "advshim inspect: no process %ld\n", pid);
		else if (errno == EACCES || errno == EPERM)
			fprintf(stderr, "advshim inspect: %s: permission denied "
				"(run as the process's user or root)\n", path);
		else
			fprintf(stderr, "advshim inspect: %s: %s\n", path,
				strerror(errno));
		return 1;
	}
	snprintf(path, sizeof(path), "/proc/%ld/comm", pid);
	if (!read_file(path, &comm, NULL, 0)) {
		comm[strcspn(comm, "\n")] = '\0';
		snprintf(in.comm, sizeof(in.comm), "%s", comm);
		free(comm);
	}
	if (!buf[0]) {
		/* smaps of a zombie or kernel thread reads empty. */
		fprintf(stderr, "advshim inspect: process %ld has no memory map (exited?)\n", pid);
		free(buf);
		return 1;
	}
	if (parse_smaps(&in, buf)) {
		fprintf(stderr, "advshim inspect: out of memory\n");
		free(buf);
		return 1;
	}
	free(buf);
	for (r = in.rows; r; r = r->hh.next)
		residency(r);
	read_stats(&in);
	if (json)
		print_json(&in, stdout);
	else
		print_text(&in, stdout);
	HASH_ITER(hh, in.rows, r, tmp) {
		HASH_DEL(in.rows, r);
		free(r->path);
		free(r);
	}
	free(in.shim_path);
	return 0;
}
