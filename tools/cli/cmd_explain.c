// SPDX-License-Identifier: MIT
/*
 * cmd_explain.c - `advshim explain FILE|- PATH [ADVICE]`: which rule fires
 * for a file and what happens to its advice.
 *
 * It answers with what the shim would see: the shim names a mapped file by
 * readlink("/proc/self/fd/N"), an absolute path with symlinks resolved, so
 * an existing PATH is resolved the same way before matching.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "policy/policy.h"
#include "tools/cli/cli.h"

/* An ADVICE argument: which families it names, and the kind in each. */
struct advice_arg {
	bool in[ADV_NR_FAMILIES];
	enum adv_kind kind[ADV_NR_FAMILIES];
	int value[ADV_NR_FAMILIES];	/* the numeric value, or -1 */
};

struct const_name {
	const char *name;
	enum adv_family fam;
	int value;
};

/* C names accepted as ADVICE, and shown next to numeric values. */
static const struct const_name const_names[] = {
	{ "MADV_NORMAL", ADV_FAMILY_MADVISE, MADV_NORMAL },
	{ "MADV_RANDOM", ADV_FAMILY_MADVISE, MADV_RANDOM },
	{ "MADV_SEQUENTIAL", ADV_FAMILY_MADVISE, MADV_SEQUENTIAL },
	{ "MADV_WILLNEED", ADV_FAMILY_MADVISE, MADV_WILLNEED },
	{ "MADV_DONTNEED", ADV_FAMILY_MADVISE, MADV_DONTNEED },
	{ "MADV_FREE", ADV_FAMILY_MADVISE, 8 },
	{ "MADV_REMOVE", ADV_FAMILY_MADVISE, 9 },
	{ "MADV_DONTFORK", ADV_FAMILY_MADVISE, 10 },
	{ "MADV_DOFORK", ADV_FAMILY_MADVISE, 11 },
	{ "MADV_MERGEABLE", ADV_FAMILY_MADVISE, 12 },
	{ "MADV_UNMERGEABLE", ADV_FAMILY_MADVISE, 13 },
	{ "MADV_HUGEPAGE", ADV_FAMILY_MADVISE, 14 },
	{ "MADV_NOHUGEPAGE", ADV_FAMILY_MADVISE, 15 },
	{ "MADV_DONTDUMP", ADV_FAMILY_MADVISE, 16 },
	{ "MADV_DODUMP", ADV_FAMILY_MADVISE, 17 },
	{ "MADV_WIPEONFORK", ADV_FAMILY_MADVISE, 18 },
	{ "MADV_KEEPONFORK", ADV_FAMILY_MADVISE, 19 },
	{ "MADV_COLD", ADV_FAMILY_MADVISE, 20 },
	{ "MADV_PAGEOUT", ADV_FAMILY_MADVISE, 21 },
	{ "MADV_POPULATE_READ", ADV_FAMILY_MADVISE, 22 },
	{ "MADV_POPULATE_WRITE", ADV_FAMILY_MADVISE, 23 },
	{ "MADV_DONTNEED_LOCKED", ADV_FAMILY_MADVISE, 24 },
	{ "MADV_COLLAPSE", ADV_FAMILY_MADVISE, 25 },
	{ "MADV_HWPOISON", ADV_FAMILY_MADVISE, 100 },
	{ "MADV_SOFT_OFFLINE", ADV_FAMILY_MADVISE, 101 },
	{ "POSIX_MADV_NORMAL", ADV_FAMILY_MADVISE, POSIX_MADV_NORMAL },
	{ "POSIX_MADV_RANDOM", ADV_FAMILY_MADVISE, POSIX_MADV_RANDOM },
	{ "POSIX_MADV_SEQUENTIAL", ADV_FAMILY_MADVISE, POSIX_MADV_SEQUENTIAL },
	{ "POSIX_MADV_WILLNEED", ADV_FAMILY_MADVISE, POSIX_MADV_WILLNEED },
	{ "POSIX_MADV_DONTNEED", ADV_FAMILY_MADVISE, POSIX_MADV_DONTNEED },
	{ "POSIX_FADV_NORMAL", ADV_FAMILY_FADVISE, POSIX_FADV_NORMAL },
	{ "POSIX_FADV_RANDOM", ADV_FAMILY_FADVISE, POSIX_FADV_RANDOM },
	{ "POSIX_FADV_SEQUENTIAL", ADV_FAMILY_FADVISE, POSIX_FADV_SEQUENTIAL },
	{ "POSIX_FADV_WILLNEED", ADV_FAMILY_FADVISE, POSIX_FADV_WILLNEED },
	{ "POSIX_FADV_DONTNEED", ADV_FAMILY_FADVISE, POSIX_FADV_DONTNEED },
	{ "POSIX_FADV_NOREUSE", ADV_FAMILY_FADVISE, POSIX_FADV_NOREUSE },
};

#define NR_CONST_NAMES (sizeof(const_names) / sizeof(const_names[0]))

/* c_name - the MADV_ or POSIX_FADV_ name of @value in @fam, or NULL. */
static const char *c_name(enum adv_family fam, int value)
{
	size_t i;

	for (i = 0; i < NR_CONST_NAMES; i++)
		if (const_names[i].fam == fam && const_names[i].value == value)
			return const_names[i].name;
	return NULL;
}

static void explain_usage(FILE *f)
{
	fprintf(f,
		"usage: advshim explain [-h] FILE|- PATH [ADVICE]\n"
		"\n"
		"Say which rule of the policy FILE (\"-\": the embedded default)\n"
		"fires for a file mapped from PATH, and what the shim does with\n"
		"ADVICE, or with every advice when ADVICE is omitted.  An existing\n"
		"PATH is resolved to the absolute path the shim would see.\n"
		"\n"
		"ADVICE is an advice name (normal, random, sequential, willneed,\n"
		"dontneed, noreuse, others), optionally prefixed by its family\n"
		"(madvise:, posix_madvise:, fadvise:, posix_fadvise:), a C name\n"
		"(MADV_RANDOM, POSIX_FADV_NOREUSE, MADV_HUGEPAGE, ...) or a number\n"
		"(family:number, or a bare number read in both families).\n"
		"\n"
		"examples:\n"
		"  advshim explain /etc/advshim.conf /data/index/_0.vec random\n"
		"  advshim explain - /data/x posix_fadvise:noreuse\n"
		"\n"
		"Exit status: 0 explained, 1 FILE cannot be read, 2 invalid\n"
		"policy or bad usage.\n");
}

/* parse_number - a whole decimal/hex/octal int, 0 or -1. */
static int parse_number(const char *s, int *v)
{
	char *end;
	long n;

	if (!*s)
		return -1;
	errno = 0;
	n = strtol(s, &end, 0);
	if (errno || *end || n < INT_MIN || n > INT_MAX)
		return -1;
	*v = (int)n;
	return 0;
}

static void set_fam(struct advice_arg *a, enum adv_family fam, int value,
		    enum adv_kind kind)
{
	a->in[fam] = true;
	a->value[fam] = value;
	a->kind[fam] = kind;
}

static void set_number(struct advice_arg *a, enum adv_family fam, int v)
{
	set_fam(a, fam, v, fam == ADV_FAMILY_MADVISE ? adv_from_madvise(v) :
		adv_from_fadvise(v));
}

/* set_kind - advice @kind by name, in @fam (or both if @any). */
static int set_kind(struct advice_arg *a, enum adv_kind kind, int fam,
		    const char *arg)
{
	int f;

	for (f = 0; f < ADV_NR_FAMILIES; f++) {
		if ((fam >= 0 && f != fam) ||
		    !adv_family_has((enum adv_family)f, kind))
			continue;
		set_fam(a, (enum adv_family)f, kind == ADV_OTHER ? -1 :
			(f == ADV_FAMILY_MADVISE ? adv_to_madvise(kind) :
			 adv_to_fadvise(kind)), kind);
	}
	if (!a->in[0] && !a->in[1]) {
		fprintf(stderr, "advshim explain: \"%s\": %s is not a madvise "
			"advice (it exists only for posix_fadvise)\n", arg,
			adv_kind_name(kind));
		return -1;
	}
	return 0;
}

/*
 * parse_advice - ADVICE argument -> @a.  Returns 0, or -1 after printing
 * what was expected.
 */
static int parse_advice(const char *arg, struct advice_arg *a)
{
	static const struct { const char *prefix; enum adv_family fam; }
	prefixes[] = {
		{ "madvise:", ADV_FAMILY_MADVISE },
		{ "posix_madvise:", ADV_FAMILY_MADVISE },
		{ "fadvise:", ADV_FAMILY_FADVISE },
		{ "posix_fadvise:", ADV_FAMILY_FADVISE },
	};
	const char *s = arg;
	enum adv_kind kind;
	int fam = -1, f, v;
	size_t i;

	memset(a, 0, sizeof(*a));
	for (i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++) {
		if (!strncmp(s, prefixes[i].prefix, strlen(prefixes[i].prefix))) {
			fam = (int)prefixes[i].fam;
			s += strlen(prefixes[i].prefix);
			break;
		}
	}
	if (!parse_number(s, &v)) {
		for (f = 0; f < ADV_NR_FAMILIES; f++)
			if (fam < 0 || f == fam)
				set_number(a, (enum adv_family)f, v);
		return 0;
	}
	if (!adv_kind_parse(s, &kind))
		return set_kind(a, kind, fam, arg);
	for (i = 0; i < NR_CONST_NAMES; i++) {
		if (strcmp(s, const_names[i].name))
			continue;
		if (fam >= 0 && (int)const_names[i].fam != fam)
			break;
		set_number(a, const_names[i].fam, const_names[i].value);
		return 0;
	}
	fprintf(stderr, "advshim explain: unknown advice \"%s\" (expected "
		"normal, random, sequential, willneed, dontneed, noreuse, "
		"others, optionally as madvise:NAME or fadvise:NAME, a C name "
		"like MADV_RANDOM or POSIX_FADV_NOREUSE, or a number)\n", arg);
	return -1;
}

/*
 * resolve - the path the shim would see for @path into @out: realpath()
 * when it exists, else made absolute against the working directory.
 */
static int resolve(const char *path, char *out, size_t size, bool *exists)
{
	char cwd[PATH_MAX];

	*exists = realpath(path, out) != NULL;
	if (*exists)
		return 0;
	if (path[0] == '/') {
		snprintf(out, size, "%s", path);
		return 0;
	}
	if (!getcwd(cwd, sizeof(cwd))) {
		fprintf(stderr, "advshim explain: getcwd: %s\n",
			strerror(errno));
		return -1;
	}
	if ((size_t)snprintf(out, size, "%s/%s", strcmp(cwd, "/") ? cwd : "",
			     path) >= size) {
		fprintf(stderr, "advshim explain: %s: path too long\n", path);
		return -1;
	}
	return 0;
}

static void print_one(const struct policy_rule *rule, enum adv_family fam,
		      const struct advice_arg *a)
{
	struct adv_action act = policy_decide(rule, fam, a->kind[fam]);
	const char *fname = fam == ADV_FAMILY_MADVISE ? "madvise" : "fadvise";
	const char *cn = a->value[fam] >= 0 ? c_name(fam, a->value[fam]) : NULL;
	char buf[64];
	int to;

	printf("%s %s", fname, adv_kind_name(a->kind[fam]));
	if (a->value[fam] >= 0)
		printf(" (%d%s%s)", a->value[fam], cn ? " = " : "",
		       cn ? cn : "");
	printf(": %s", adv_action_format(act, buf, sizeof(buf)));
	if (act.act == ADV_ACT_ADAPT) {
		printf(" (decided at run time: see below)");
	} else if (act.act == ADV_ACT_REWRITE) {
		to = fam == ADV_FAMILY_MADVISE ? adv_to_madvise(act.to) :
			adv_to_fadvise(act.to);
		printf(" (%d = %s)", to, c_name(fam, to) ? c_name(fam, to) : "?");
	} else if (act.act == ADV_ACT_SKIP) {
		printf(" (not issued; the caller sees success)");
	}
	printf("\n");
}

static void print_processes(const struct policy *p)
{
	size_t i;

	if (!p->nr_processes)
		return;
	printf("processes: only in");
	for (i = 0; i < p->nr_processes; i++)
		printf("%s%s", i ? ", " : " ", p->processes[i]);
	printf(" (every other process passes everything through)\n");
}

/* What an adaptive rule means, with the thresholds in force. */
static void print_adaptive(const struct policy *p)
{
	const struct adapt_params *x = &p->adaptive.params;

	printf("adaptive: madvise RANDOM on this file is decided at run time, "
	       "per process:\n"
	       "  normal advice (MADV_NORMAL: recency, read-around) while "
	       "the files the process\n"
	       "  maps under adaptive rules and advises RANDOM need <= %u%% "
	       "of the room its\n"
	       "  memory cgroup has for page cache; MADV_RANDOM kept from "
	       "%u%%; in between the\n"
	       "  choice stays.  Re-decided every %u ms; switches >= %u ms "
	       "apart, <= %u a minute.\n"
	       "  Until the first sample, and whenever the cgroup's figures "
	       "cannot be read,\n"
	       "  the application's RANDOM is kept.  `advshim inspect PID` "
	       "shows the choice,\n"
	       "  the numbers behind it and the switches.\n",
	       x->fit_pct, x->nofit_pct, p->adaptive.interval_ms, x->dwell_ms,
	       x->max_per_min);
}

static int explain(const struct policy *p, const char *arg_path,
		   const char *advice)
{
	const struct policy_rule *rule;
	struct advice_arg a;
	char path[PATH_MAX];
	struct stat st;
	bool exists;
	size_t glob = 0;
	int f;

	if (advice && parse_advice(advice, &a))
		return EXIT_USAGE;
	if (resolve(arg_path, path, sizeof(path), &exists))
		return 1;
	printf("policy: %s\n", p->source);
	printf("path: %s", path);
	if (strcmp(path, arg_path))
		printf(" (%s, as the shim sees it)", arg_path);
	printf("\n");
	if (exists && stat(path, &st) == 0 && !S_ISREG(st.st_mode))
		printf("note: not a regular file: the shim passes its mappings "
		       "through untouched\n");
	print_processes(p);
	rule = policy_match_glob(p, path, &glob);
	if (!rule) {
		printf("no rule matches: every advice passes through\n");
		return 0;
	}
	printf("rule: \"%s\" (%s:%d), glob \"%s\" matched\n", rule->name,
	       p->source, rule->line, rule->globs[glob]);
	if (!advice) {
		policy_print_actions(rule, stdout);
	} else {
		for (f = 0; f < ADV_NR_FAMILIES; f++)
			if (a.in[f])
				print_one(rule, (enum adv_family)f, &a);
	}
	if (policy_rule_adaptive(rule) && (!advice ||
	    (a.in[ADV_FAMILY_MADVISE] && a.kind[ADV_FAMILY_MADVISE] == ADV_RANDOM)))
		print_adaptive(p);
	return 0;
}

int cmd_explain(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct policy *p;
	int c, ret, n;

	optind = 1;
	while ((c = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
		switch (c) {
		default:
			return cli_help_or_usage(c, explain_usage, 0);
		}
	}
	n = argc - optind;
	if (n < 2 || n > 3) {
		fprintf(stderr, "advshim explain: %s\n", n < 2 ?
			"missing FILE or PATH" : "too many arguments");
		explain_usage(stderr);
		return EXIT_USAGE;
	}
	if (!argv[optind + 1][0]) {
		fprintf(stderr, "advshim explain: empty PATH\n");
		return EXIT_USAGE;
	}
	ret = cli_load_policy(argv[optind], &p);
	if (ret)
		return ret;
	ret = explain(p, argv[optind + 1], n == 3 ? argv[optind + 2] : NULL);
	policy_free(p);
	return ret;
}
