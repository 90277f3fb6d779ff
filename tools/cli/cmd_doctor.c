// SPDX-License-Identifier: MIT
/*
 * cmd_doctor.c - `advshim doctor [--json] [--pid PID]... [--cgroup
 * PATH]... [--sample-ms MS] [--root DIR]`: is this host hit by the MGLRU
 * stall, where, and what to run.  Read-only.  Exit status: 0 not affected
 * (or every affected process covered), 1 a process affected and not
 * covered, 2 an error (bad usage, /proc unreadable, a --pid not there).
 * The steps are in doctor.h; this file runs them in order.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/optdoc.h"
#include "common/readfile.h"
#include "tools/cli/cli.h"
#include "tools/cli/doctor.h"

#define DEFAULT_SAMPLE_MS	3000
#define STR(x)			STR_(x)
#define STR_(x)			#x
#define MAX_ARGS		256

static const char usage_head[] =
"usage: advshim doctor [--json] [--pid PID]... [--cgroup PATH]...\n"
"                      [--sample-ms MS] [--root DIR]\n"
"  Is this host hit by the MGLRU stall of MADV_RANDOM page cache, where,\n"
"  and what to run: the kernel and lru_gen state, every process with\n"
"  rr/sr file mappings (or the shim loaded), its memcg's fit, the stall\n"
"  signature now, a verdict and the remedy per process.  Read-only.\n";

static const char usage_tail[] =
"Exit: 0 not affected or covered, 1 affected and not covered, 2 error.\n"
"See advshim(1).\n";

static const struct optdoc doctor_opts[] = {
	{ "json", 'j', NULL, "one JSON object for the host (schema in doctor.md)" },
	{ "pid", 'p', "PID",
	  "only this process (repeatable), reported even without rr mappings" },
	{ "cgroup", 'g', "PATH",
	  "only processes in this memcg or below it (repeatable; a path below "
	  "the hierarchy's root); the memcg is sampled even when empty" },
	{ "sample-ms", 's', "MS",
	  "sample the stall signature over MS, 0-600000 (default "
	  STR(DEFAULT_SAMPLE_MS) "; 0: skip)" },
	{ "root", 'r', "DIR", "read every file below DIR instead of / (tests)" },
	{ "help", 'h', NULL, "this text" },
};

static void usage(FILE *f)
{
	optdoc_help(f, usage_head, doctor_opts, OPTDOC_NR(doctor_opts),
		    usage_tail);
}

/* A decimal in [lo, hi] into *out; 0, or -1 after a message. */
static int parse_num(const char *opt, const char *s, long lo, long hi,
		     long *out)
{
	char *end;

	errno = 0;
	*out = strtol(s, &end, 10);
	if (errno || end == s || *end || *out < lo || *out > hi) {
		fprintf(stderr, "advshim doctor: %s '%s': want %ld..%ld\n", opt,
			s, lo, hi);
		return -1;
	}
	return 0;
}

struct args {
	int pids[MAX_ARGS];
	char *cgroups[MAX_ARGS];
};

static int add_arg(struct doctor *d, struct args *a, int c, const char *v)
{
	long n;

	if ((c == 'p' ? d->nr_pids : d->nr_cgroups) >= MAX_ARGS) {
		fprintf(stderr, "advshim doctor: at most %d of each option\n", MAX_ARGS);
		return -1;
	}
	if (c == 'p') {
		if (parse_num("--pid", v, 1, 0x3fffffff, &n))
			return -1;
		a->pids[d->nr_pids++] = (int)n;
		return 0;
	}
	if (v[0] != '/') {
		fprintf(stderr, "advshim doctor: --cgroup '%s': a path below the hierarchy's root, starting with '/'\n", v);
		return -1;
	}
	a->cgroups[d->nr_cgroups++] = (char *)v;
	return 0;
}

/* 0, -1 after --help, or EXIT_USAGE after a message. */
static int parse_args(int argc, char **argv, struct doctor *d, struct args *a)
{
	struct optdoc_set set;
	long n;
	int c;

	optdoc_init(&set, "", doctor_opts, OPTDOC_NR(doctor_opts));
	while ((c = optdoc_getopt(&set, argc, argv)) != -1) {
		switch (c) {
		case 'j':
			d->json = true;
			break;
		case 'p':
		case 'g':
			if (add_arg(d, a, c, optarg))
				return EXIT_USAGE;
			break;
		case 's':
			if (parse_num("--sample-ms", optarg, 0, 600000, &n))
				return EXIT_USAGE;
			d->sample_ms = (unsigned int)n;
			break;
		case 'r':
			d->root = optarg;
			break;
		default:
			return cli_help_or_usage(c, usage, -1);
		}
	}
	if (optind != argc) {
		usage(stderr);
		return EXIT_USAGE;
	}
	d->pids = a->pids;
	d->cgroups = a->cgroups;
	return 0;
}

/* The memcgs --cgroup names, reported even without a listed process. */
static int add_named(struct doctor *d)
{
	struct cg_where w;
	char path[DOC_PATH_MAX];
	struct doc_memcg *m;
	size_t i;

	w.version = d->nr_memcgs ? d->memcgs[0]->w.version : CG_V2;
	if (!d->nr_memcgs &&
	    (path_join(path, sizeof(path), d->root, CG_V2_MOUNT "/cgroup.controllers") ||
	     access(path, F_OK)))
		w.version = CG_V1;
	for (i = 0; i < d->nr_cgroups; i++) {
		snprintf(w.path, sizeof(w.path), "%s", d->cgroups[i]);
		if (!(m = doc_memcg_get(d, &w)))
			return -1;
		m->named = true;
	}
	return 0;
}

static void host_facts(struct doctor *d)
{
	char *buf;
	static char lib[PATH_MAX];
	const char *found = cli_shim_path();

	d->is_root = geteuid() == 0;
	snprintf(d->hostname, sizeof(d->hostname), "(unknown)");
	if (!read_file_at(d->root, "/proc/sys/kernel/hostname", &buf, NULL, 4096)) {
		buf[strcspn(buf, "\n")] = '\0';
		snprintf(d->hostname, sizeof(d->hostname), "%s", buf);
		free(buf);
	}
	d->shim_lib = found && realpath(found, lib) ? lib :
		"/usr/lib/x86_64-linux-gnu/libadvshim.so";
}

static int status_of(const struct doctor *d)
{
	enum doc_verdict v;
	size_t i;

	for (i = 0; i < d->nr_procs; i++) {
		v = doc_verdict(d, &d->procs[i]);
		if (v == DOC_V_EXPOSED || v == DOC_V_STALLED)
			return 1;
	}
	return 0;
}

int cmd_doctor(int argc, char **argv)
{
	struct doctor d = { .root = "", .sample_ms = DEFAULT_SAMPLE_MS };
	struct args a;
	int r, status;

	r = parse_args(argc, argv, &d, &a);
	if (r)
		return r < 0 ? 0 : r;
	host_facts(&d);
	doc_kernel_read(d.root, &d.k);
	if (doc_watchers_scan(&d) || doc_procs_scan(&d) || add_named(&d)) {
		if (errno == ENOMEM)
			fprintf(stderr, "advshim doctor: out of memory\n");
		doc_free(&d);
		return EXIT_USAGE;
	}
	doc_memcgs_measure(&d);
	doc_memcgs_sample(&d);
	status = status_of(&d);
	if (d.json)
		doc_print_json(&d, status, stdout);
	else
		doc_print_text(&d, status, stdout);
	doc_free(&d);
	if (fflush(stdout)) {
		perror("advshim doctor: stdout");
		return EXIT_USAGE;
	}
	return status;
}
