// SPDX-License-Identifier: MIT
/*
 * load_args.c - advshim-load command line.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/optdoc.h"
#include "tools/load/load.h"

static const char usage_head[] =
"usage: advshim-load random [options] FILE\n"
"       advshim-load stream [options] FILE\n"
"\n"
"random: THREADS threads of one process map FILE, apply ADVICE with\n"
"posix_madvise (like Lucene) and run queries of K dependent reads of one\n"
"record at zipf(THETA)-distributed record offsets.\n";

static const char usage_tail[] =
"SIZE takes k, M, G, T suffixes (powers of 1024).  SIGINT/SIGTERM print\n"
"the summary and exit 0.\n";

enum { O_NO_SHUFFLE = 256, O_SWITCH, O_NOREUSE, O_DROP };

static const struct optdoc random_opts[] = {
	{ "threads", 't', "N", "reader threads (default 4)" },
	{ "reads", 'k', "K", "dependent reads per query (default 16)" },
	{ "record", 'r', "SIZE", "bytes touched per read (default 4k)" },
	{ "theta", 'z', "T", "zipf exponent, >= 0 (default 0.8; 0 = uniform)" },
	{ "advice", 'a', "A",
	  "random|normal|sequential|none (default random)" },
	{ "interval-ms", 'i', "MS", "report interval (default 1000)" },
	{ "duration", 'd', "SEC",
	  "run time in seconds (default 0: until a signal)" },
	{ "no-shuffle", O_NO_SHUFFLE, NULL, "hot records at the start of the file" },
	{ "switch-advice-at", O_SWITCH, "S=A",
	  "posix_madvise(A) on the whole mapping at S seconds (repeatable, "
	  "in time order; a '# switch' line marks it)" },
};

static const struct optdoc stream_opts[] = {
	{ "via", 'v', "mmap|read", "through a normal mmap (default) or read(2)" },
	{ "loops", 'l', "N", "passes over the file (default 1)" },
	{ "delay-ms", 'D', "MS", "wait before the first pass (default 0)" },
	{ "block", 'b', "SIZE", "read(2) size (default 1M)" },
	{ "noreuse", O_NOREUSE, NULL, "posix_fadvise(NOREUSE) on the file first" },
	{ "drop-behind", O_DROP, "SIZE|pass",
	  "posix_fadvise(DONTNEED) on what was read, every SIZE bytes "
	  "(--via read) or after each pass" },
};

static const struct optdoc both_opts[] = {
	{ "size", 's', "SIZE",
	  "create FILE with SIZE random bytes if missing; an existing FILE "
	  "must have this size" },
	{ "seed", 'S', "N", "random seed (default 1)" },
	{ "json", 'j', NULL, "JSON lines instead of TSV" },
	{ "help", 'h', NULL, "this text" },
};

static void usage(FILE *f)
{
	optdoc_help(f, usage_head, random_opts, OPTDOC_NR(random_opts), NULL);
	optdoc_help(f, "stream: read FILE sequentially LOOPS times.\n",
		    stream_opts, OPTDOC_NR(stream_opts), "both:\n");
	optdoc_help(f, NULL, both_opts, OPTDOC_NR(both_opts), usage_tail);
}

int parse_size(const char *s, uint64_t *out)
{
	unsigned long long v;
	unsigned int shift = 0;
	char *end;

	if (!s || !*s || *s == '-' || *s == '+') {
		errno = EINVAL;
		return -1;
	}
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s)
		return errno = errno ? errno : EINVAL, -1;
	switch (*end) {
	case 'k': case 'K': shift = 10; end++; break;
	case 'm': case 'M': shift = 20; end++; break;
	case 'g': case 'G': shift = 30; end++; break;
	case 't': case 'T': shift = 40; end++; break;
	default: break;
	}
	if (shift && !strcasecmp(end, "ib"))
		end += 2;
	else if (!strcasecmp(end, "b"))
		end++;
	if (*end) {
		errno = EINVAL;
		return -1;
	}
	if (shift && v > (UINT64_MAX >> shift)) {
		errno = ERANGE;
		return -1;
	}
	*out = (uint64_t)v << shift;
	return 0;
}

static int bad(const char *opt, const char *val, const char *why)
{
	fprintf(stderr, "advshim-load: %s '%s': %s\n", opt, val, why);
	return -1;
}

static int parse_uint(const char *opt, const char *s, unsigned int min,
		      unsigned int max, unsigned int *out)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (!*s || *s == '-' || *end || errno)
		return bad(opt, s, "not a non-negative integer");
	if (v < min || v > max) {
		fprintf(stderr, "advshim-load: %s '%s': must be %u..%u\n",
			opt, s, min, max);
		return -1;
	}
	*out = (unsigned int)v;
	return 0;
}

static int parse_double(const char *opt, const char *s, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (!*s || *end || errno || !isfinite(v) || v < 0)
		return bad(opt, s, "not a finite number >= 0");
	*out = v;
	return 0;
}

static const char *const advice_names[] = {
	[ADVICE_NONE] = "none", [ADVICE_NORMAL] = "normal",
	[ADVICE_RANDOM] = "random", [ADVICE_SEQUENTIAL] = "sequential",
};

#define NR_ADVICE (sizeof(advice_names) / sizeof(advice_names[0]))

static int parse_advice(const char *s, enum load_advice *a)
{
	for (unsigned int i = 0; i < NR_ADVICE; i++) {
		if (!strcmp(s, advice_names[i])) {
			*a = (enum load_advice)i;
			return 0;
		}
	}
	return bad("--advice", s, "expected random, normal, sequential or none");
}

const char *advice_name(enum load_advice a)
{
	return (unsigned int)a < NR_ADVICE ? advice_names[a] : "none";
}

static int parse_sz(const char *opt, const char *s, uint64_t min, uint64_t *out)
{
	if (parse_size(s, out))
		return bad(opt, s, errno == ERANGE ? "too large" :
			   "expected a size like 4096, 4k, 240M, 1G");
	if (*out < min) {
		fprintf(stderr, "advshim-load: %s '%s': must be at least %llu bytes\n",
			opt, s, (unsigned long long)min);
		return -1;
	}
	return 0;
}

static void set_defaults(struct load_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->seed = 1;
	o->threads = 4;
	o->reads = 16;
	o->record = 4096;
	o->theta = 0.8;
	o->advice = ADVICE_RANDOM;
	o->interval_ms = 1000;
	o->shuffle = true;
	o->via = VIA_MMAP;
	o->loops = 1;
	o->block = 1 << 20;
}

/* Options that make sense in one mode only are refused in the other. */
static int check_mode(const struct load_opts *o, int c)
{
	const struct optdoc *other = o->mode == LOAD_RANDOM ?
		optdoc_find(stream_opts, OPTDOC_NR(stream_opts), c) :
		optdoc_find(random_opts, OPTDOC_NR(random_opts), c);

	if (!other)
		return 0;
	fprintf(stderr, "advshim-load: option --%s is not valid in %s mode\n",
		other->name, o->mode == LOAD_RANDOM ? "random" : "stream");
	return -1;
}

/* --switch-advice-at S=ADVICE: appended, times must not go back. */
static int parse_switch(struct load_opts *o, const char *arg)
{
	char num[32];
	const char *eq = strchr(arg, '=');
	enum load_advice a;
	double s;

	if (!eq || eq == arg || (size_t)(eq - arg) >= sizeof(num))
		return bad("--switch-advice-at", arg, "expected SECONDS=ADVICE");
	memcpy(num, arg, (size_t)(eq - arg));
	num[eq - arg] = 0;
	if (parse_double("--switch-advice-at", num, &s) || parse_advice(eq + 1, &a))
		return -1;
	if (o->nr_switch == LOAD_MAX_SWITCH)
		return bad("--switch-advice-at", arg, "too many switches (8 at most)");
	if (o->nr_switch && o->sw[o->nr_switch - 1].at_ms > (uint64_t)(s * 1000))
		return bad("--switch-advice-at", arg, "switches must be in time order");
	o->sw[o->nr_switch].at_ms = (uint64_t)(s * 1000);
	o->sw[o->nr_switch++].advice = a;
	return 0;
}

static int parse_drop(struct load_opts *o, const char *arg)
{
	if (!strcmp(arg, "pass")) {
		o->drop_pass = true;
		return 0;
	}
	o->drop_pass = true;	/* the tail of a pass is dropped too */
	return parse_sz("--drop-behind", arg, 4096, &o->drop_every);
}

static int parse_one(struct load_opts *o, int c, const char *arg)
{
	unsigned long long seed;
	char *end;

	switch (c) {
	case 't': return parse_uint("--threads", arg, 1, 1024, &o->threads);
	case 'k': return parse_uint("--reads", arg, 1, 1000000, &o->reads);
	case 'r': return parse_sz("--record", arg, 1, &o->record);
	case 'z': return parse_double("--theta", arg, &o->theta);
	case 'a': return parse_advice(arg, &o->advice);
	case 'i': return parse_uint("--interval-ms", arg, 10, 3600000, &o->interval_ms);
	case 'd': return parse_double("--duration", arg, &o->duration_s);
	case O_NO_SHUFFLE: o->shuffle = false; return 0;
	case O_SWITCH: return parse_switch(o, arg);
	case O_NOREUSE: o->noreuse = true; return 0;
	case O_DROP: return parse_drop(o, arg);
	case 'v':
		if (!strcmp(arg, "mmap"))
			o->via = VIA_MMAP;
		else if (!strcmp(arg, "read"))
			o->via = VIA_READ;
		else
			return bad("--via", arg, "expected mmap or read");
		return 0;
	case 'l': return parse_uint("--loops", arg, 1, 1000000, &o->loops);
	case 'D': return parse_uint("--delay-ms", arg, 0, 86400000, &o->delay_ms);
	case 'b': return parse_sz("--block", arg, 1, &o->block);
	case 's': return parse_sz("--size", arg, 1, &o->size);
	case 'S':
		errno = 0;
		seed = strtoull(arg, &end, 0);
		if (!*arg || *end || errno || *arg == '-')
			return bad("--seed", arg, "not a non-negative integer");
		o->seed = seed;
		return 0;
	case 'j': o->json = true; return 0;
	default: return -1;
	}
}

/* argv[1]: the mode, or --help.  0, 1 (help shown) or -1 after a message. */
static int parse_mode(int argc, char **argv, struct load_opts *o)
{
	const char *mode;

	if (argc < 2) {
		usage(stderr);
		return -1;
	}
	mode = argv[1];
	if (!strcmp(mode, "-h") || !strcmp(mode, "--help")) {
		usage(stdout);
		return 1;
	}
	if (!strcmp(mode, "random")) {
		o->mode = LOAD_RANDOM;
	} else if (!strcmp(mode, "stream")) {
		o->mode = LOAD_STREAM;
	} else {
		fprintf(stderr, "advshim-load: unknown mode '%s' (random or stream; see --help)\n",
			mode);
		return -1;
	}
	return 0;
}

/* getopt's table of every mode's options (refused per mode by check_mode). */
static void build_opts(struct optdoc_set *set)
{
	optdoc_init(set, "+", random_opts, OPTDOC_NR(random_opts));
	optdoc_add(set, stream_opts, OPTDOC_NR(stream_opts));
	optdoc_add(set, both_opts, OPTDOC_NR(both_opts));
}

int load_parse_args(int argc, char **argv, struct load_opts *o)
{
	struct optdoc_set set;
	int c, ret;

	build_opts(&set);
	set_defaults(o);
	ret = parse_mode(argc, argv, o);
	if (ret)
		return ret;
	optind = 2;
	while ((c = optdoc_getopt(&set, argc, argv)) != -1) {
		if (c == 'h') {
			usage(stdout);
			return 1;
		}
		if (c == '?') {
			fputs("advshim-load: see --help\n", stderr);
			return -1;
		}
		if (check_mode(o, c) || parse_one(o, c, optarg))
			return -1;
	}
	if (optind != argc - 1) {
		fprintf(stderr, "advshim-load: %s\n", optind >= argc ?
			"missing FILE" : "one FILE expected, extra arguments given");
		return -1;
	}
	if (o->drop_every && o->via != VIA_READ) {
		fputs("advshim-load: --drop-behind SIZE needs --via read (mapped pages are not dropped)\n",
		      stderr);
		return -1;
	}
	o->file = argv[optind];
	return 0;
}
