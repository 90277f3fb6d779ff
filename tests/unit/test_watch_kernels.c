// SPDX-License-Identifier: MIT
/*
 * test_watch_kernels.c - the watcher's parsers, detector and per-version
 * rules fed text captured from real kernels in the lab
 * (tests/fixtures/kernels/SERIES/, see its README): Debian's 6.1, 6.12,
 * 7.2 and 7.3 cloud kernels under qemu.
 *
 * Per kernel: the idle lru_gen / lru_gen_full text and the text of a
 * memcg with a process (the mm-walk rows) must parse; memory.stat must
 * carry the counters the detector needs; the two snapshots taken a second
 * apart late in the lab's stall arm (MADV_RANDOM, no fix) must be judged
 * thrash where the kernel stalls (not on 6.1, which ages by itself), and
 * those of the shim arm (recovered) must not; and kver.c's table must
 * agree with what `make lab-rules` measured on that kernel.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/lrugen.h"
#include "common/memstat.h"
#include "common/readfile.h"
#include "tools/watch/detector.h"
#include "tools/watch/kver.h"
#include "tools/watch/watch_int.h"

#define FIXDIR "tests/fixtures/kernels"

static const char *const series[] = { "6.1", "6.12", "7.2", "7.3" };
#define NR_SERIES (sizeof(series) / sizeof(series[0]))

/*
 * Whether the lab's MADV_RANDOM arm stalls on the series.  Debian's 6.1
 * does not: its rmap still counts young PTEs of MADV_RANDOM mappings, the
 * kernel ages by itself (61 max_seq moves in the no-fix arm) and the
 * reader keeps 70-85% of its rate while the cold read is throttled.
 */
static bool stalls(const char *ser)
{
	return strcmp(ser, "6.1") != 0;
}

static char *fixture(const char *ser, const char *name, size_t *len)
{
	char rel[128], *buf = NULL;

	snprintf(rel, sizeof(rel), "%s/%s", ser, name);
	cr_assert_eq(read_file_at(FIXDIR, rel, &buf, len, 0), 0,
		     "cannot read fixture %s/%s: %s", FIXDIR, rel,
		     strerror(errno));
	return buf;
}

/* Parses a captured file; fails the test when the parser rejects it. */
static void parse_real(const char *ser, const char *name,
		       struct lrugen_snap *s)
{
	struct lrugen_err err;
	size_t len;
	char *buf = fixture(ser, name, &len);

	memset(s, 0, sizeof(*s));
	cr_assert_eq(lrugen_parse(buf, len, s, &err), 0,
		     "the parser rejects real %s text (%s/%s/%s:%d): %s",
		     ser, FIXDIR, ser, name, err.line, err.msg);
	free(buf);
}

static const struct lrugen_node *node0(const struct lrugen_snap *s,
				       const char *path)
{
	const struct lrugen_memcg *m;
	const struct lrugen_node *n;
	int nr;

	m = lrugen_find_path(s, path, &nr);
	cr_assert_not_null(m, "memcg %s not in the captured text", path);
	cr_assert_eq(nr, 1, "memcg %s printed %d times", path, nr);
	n = lrugen_find_node(s, m, 0);
	cr_assert_not_null(n, "memcg %s has no node 0", path);
	return n;
}

/* Generations in order, 2 to 4 of them (MIN_NR_GENS..MAX_NR_GENS). */
static void check_node(const char *ser, const struct lrugen_node *n)
{
	int i;

	cr_assert(n->nr_gens >= 2 && n->nr_gens <= LRUGEN_MAX_GENS,
		  "%s: %d generations", ser, n->nr_gens);
	for (i = 1; i < n->nr_gens; i++)
		cr_assert_eq(n->gens[i].seq, n->gens[i - 1].seq + 1,
			     "%s: generations out of order", ser);
}

static void kernel_rules(const char *ser, struct kver_rules *r)
{
	struct kver v;
	size_t len;
	char *rel = fixture(ser, "version", &len);

	cr_assert_eq(kver_parse(rel, &v), 0, "%s: version '%s'", ser, rel);
	kver_rules_for(&v, r);
	free(rel);
}

Test(kernels, idle_text_parses)
{
	struct lrugen_snap s;
	const struct lrugen_memcg *root;
	size_t i;
	int nr;

	for (i = 0; i < NR_SERIES; i++) {
		parse_real(series[i], "lru_gen", &s);
		cr_assert_not(s.full);
		root = lrugen_find_path(&s, "/", &nr);
		cr_assert_not_null(root, "%s: no root memcg", series[i]);
		cr_assert_eq(root->id, 1, "%s: root memcg ID %llu", series[i],
			     (unsigned long long)root->id);
		check_node(series[i], node0(&s, "/"));
		check_node(series[i], node0(&s, "/rules-a"));
		lrugen_snap_free(&s);

		parse_real(series[i], "lru_gen_full", &s);
		cr_assert(s.full, "%s: no tier rows in lru_gen_full", series[i]);
		cr_assert(node0(&s, "/rules-a")->has_rep,
			  "%s: no refaulted/evicted row", series[i]);
		lrugen_snap_free(&s);

		/* a memcg with a running process: mm-walk stats rows */
		parse_real(series[i], "lru_gen_full.busy", &s);
		check_node(series[i], node0(&s, "/rules-race"));
		lrugen_snap_free(&s);
	}
}

Test(kernels, memory_stat_has_the_detector_counters)
{
	const char *const files[] = { "memory.stat", "no-fix/memory.stat.1" };
	struct memstat ms;
	size_t i, j, len;
	char *buf;

	for (i = 0; i < NR_SERIES; i++) {
		for (j = 0; j < 2; j++) {
			buf = fixture(series[i], files[j], &len);
			cr_assert_eq(memstat_parse(buf, len, &ms), 0, "%s/%s",
				     series[i], files[j]);
			cr_assert(ms.has_refault && ms.has_activate,
				  "%s/%s: refault/activate counters missing",
				  series[i], files[j]);
			free(buf);
		}
	}
}

/* The rule table (kver.c) against what lab-rules measured (rules.tsv). */
static const char *measured(const char *tsv, const char *check, int col)
{
	static char val[64];
	char key[64];
	const char *p;
	int i;
	size_t n;

	snprintf(key, sizeof(key), "\n%s\t", check);
	p = strstr(tsv, key);
	cr_assert_not_null(p, "rules.tsv has no check %s", check);
	p += strlen(key);
	for (i = 1; i < col; i++) {
		p = strchr(p, '\t');
		cr_assert_not_null(p);
		p++;
	}
	n = strcspn(p, "\t\n");
	cr_assert_lt(n, sizeof(val));
	memcpy(val, p, n);
	val[n] = '\0';
	return val;
}

Test(kernels, rule_table_matches_the_kernel)
{
	struct kver_rules r;
	size_t i, len;
	char *raw, *tsv;

	for (i = 0; i < NR_SERIES; i++) {
		kernel_rules(series[i], &r);
		raw = fixture(series[i], "rules.tsv", &len);
		cr_assert_neq(asprintf(&tsv, "\n%s", raw), -1);
		cr_assert_eq(r.id_u64,
			     !strcmp(measured(tsv, "id_scheme", 1), "inode"),
			     "%s: id_u64 disagrees with the kernel", series[i]);
		cr_assert_eq(r.seq_exact,
			     !strcmp(measured(tsv, "stale", 2), "same"),
			     "%s: seq_exact disagrees with the kernel",
			     series[i]);
		if (strstr(measured(tsv, "race", 1), "EEXIST"))
			cr_assert(r.eexist, "%s: the kernel returned EEXIST",
				  series[i]);
		cr_assert_str_eq(measured(tsv, "plain_4gens", 1), "OK",
				 "%s: the watcher's command form failed",
				 series[i]);
		free(tsv);
		free(raw);
	}
}

/* One lab snapshot as watch.c samples it. */
static void sample_of(const char *ser, const char *arm, int k,
		      struct det_sample *s)
{
	struct lrugen_snap snap;
	const struct lrugen_node *n;
	char name[64], path[64], *buf, *line;
	unsigned long long t = 0;
	size_t len;
	int nr;

	snprintf(name, sizeof(name), "%s/lru_gen_full.%d", arm, k);
	parse_real(ser, name, &snap);
	snprintf(path, sizeof(path), "/lab-%s", arm);
	n = node0(&snap, path);
	memset(s, 0, sizeof(*s));
	s->max_seq = lrugen_max_seq(n);
	watch_gen_rows(n, s);	/* the generation rows, as the daemon passes them */
	if (n->has_rep)
		watch_sample_rep(s, n);	/* as the daemon reads them */
	lrugen_snap_free(&snap);

	snprintf(name, sizeof(name), "%s/t_ms", arm);
	buf = fixture(ser, name, &len);
	for (line = buf; line; line = strchr(line, '\n'), line = line ? line + 1 : NULL)
		if (sscanf(line, "%d %llu", &nr, &t) == 2 && nr == k)
			break;
	cr_assert_gt(t, 0, "%s/%s: no time for capture %d", ser, name, k);
	s->now_ms = t;
	free(buf);
}

/* The detector's verdict (default settings) on the second snapshot. */
static struct det_out judge(const char *ser, const char *arm)
{
	struct det_sample a, b;
	struct watch_conf c;
	struct det_state st;
	struct det_out out;

	watch_conf_defaults(&c);
	sample_of(ser, arm, 1, &a);
	sample_of(ser, arm, 2, &b);
	cr_assert_gt(b.now_ms, a.now_ms);
	det_init(&st);
	det_step(&st, &c.det, &a, &out);
	det_step(&st, &c.det, &b, &out);
	watch_conf_free(&c);
	return out;
}

Test(kernels, the_stall_is_thrash)
{
	struct det_out out;
	size_t i;

	for (i = 0; i < NR_SERIES; i++) {
		out = judge(series[i], "no-fix");
		if (stalls(series[i])) {
			cr_assert(out.thrashing && out.verdict == DET_AGE,
				  "%s: the stall's snapshots are not judged "
				  "thrash (%s: %s)", series[i],
				  det_verdict_name(out.verdict),
				  out.why ? out.why : "-");
		} else {
			/* the kernel ages by itself: stay out of the way */
			cr_assert(!out.thrashing && out.verdict != DET_AGE,
				  "%s: judged thrash although the kernel "
				  "ages by itself", series[i]);
		}
	}
}

Test(kernels, the_recovered_arm_is_not)
{
	struct det_out out;
	size_t i;

	for (i = 0; i < NR_SERIES; i++) {
		out = judge(series[i], "shim");
		cr_assert_not(out.thrashing,
			      "%s: the shim arm's snapshots are judged thrash "
			      "(%s)", series[i], out.why ? out.why : "-");
	}
}
