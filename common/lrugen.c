// SPDX-License-Identifier: MIT
/*
 * lrugen.c - lru_gen / lru_gen_full text parser (see lrugen.h for the
 * format and where it comes from).
 *
 * Rows are told apart by their indentation, which the kernel's fixed
 * widths make unambiguous: a generation row starts with " %10lu" (1-10
 * spaces), a tier row with 12 spaces and "%10d" (21 spaces before a
 * one-digit tier), an mm-stats row with 22 spaces and " %10lu" (23+).
 */
#include "common/lrugen.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/decimal.h"

struct cursor {
	const char *p;		/* current position in the line */
	const char *end;	/* the line's '\n' */
};

static int fail(struct lrugen_err *err, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(struct lrugen_err *err, int line, const char *fmt, ...)
{
	va_list ap;

	err->line = line;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	errno = EINVAL;
	return -1;
}

static void skip_spaces(struct cursor *c)
{
	while (c->p < c->end && *c->p == ' ')
		c->p++;
}

/* Decimal number; 0 on success.  Overflow is an error, not a wrap. */
static int parse_u64(struct cursor *c, uint64_t *out)
{
	const char *next = decimal_u64(c->p, c->end, out);

	if (!next)
		return -1;
	c->p = next;
	return 0;
}

/*
 * A counter followed by an optional one-letter mark glued to it ("123x",
 * "7r").  *mark is ' ' when there is none.
 */
static int parse_marked(struct cursor *c, uint64_t *val, char *mark)
{
	skip_spaces(c);
	if (parse_u64(c, val))
		return -1;
	*mark = ' ';
	if (c->p < c->end && *c->p != ' ') {
		char m = *c->p;

		if (!((m >= 'a' && m <= 'z') || (m >= 'A' && m <= 'Z')))
			return -1;
		*mark = m;
		c->p++;
		if (c->p < c->end && *c->p != ' ')
			return -1;
	}
	return 0;
}

static void *grow(void *base, size_t *cap, size_t need, size_t elem)
{
	size_t ncap = *cap ? *cap : 16;
	void *n;

	if (need <= *cap)
		return base;
	while (ncap < need)
		ncap *= 2;
	n = realloc(base, ncap * elem);
	if (!n)
		return NULL;
	*cap = ncap;
	return n;
}

static int add_memcg(struct lrugen_snap *s, uint64_t id, const char *path,
		     size_t plen)
{
	struct lrugen_memcg *m;
	void *p;

	p = grow(s->memcgs, &s->cap_memcgs, s->nr_memcgs + 1, sizeof(*m));
	if (!p)
		return -1;
	s->memcgs = p;
	p = grow(s->paths, &s->paths_cap, s->paths_len + plen + 1, 1);
	if (!p)
		return -1;
	s->paths = p;
	m = &s->memcgs[s->nr_memcgs++];
	m->id = id;
	m->path_off = s->paths_len;
	memcpy(s->paths + s->paths_len, path, plen);
	s->paths[s->paths_len + plen] = '\0';
	s->paths_len += plen + 1;
	m->first_node = s->nr_nodes;
	m->nr_nodes = 0;
	return 0;
}

static struct lrugen_node *add_node(struct lrugen_snap *s, int nid)
{
	struct lrugen_node *n;
	void *p;

	p = grow(s->nodes, &s->cap_nodes, s->nr_nodes + 1, sizeof(*n));
	if (!p)
		return NULL;
	s->nodes = p;
	n = &s->nodes[s->nr_nodes++];
	memset(n, 0, sizeof(*n));
	n->nid = nid;
	s->memcgs[s->nr_memcgs - 1].nr_nodes++;
	return n;
}

struct parse_state {
	struct lrugen_snap *s;
	struct lrugen_err *err;
	int line;
	struct lrugen_node *node;	/* current node block */
	bool in_file_min_row;		/* tier rows belong to file min_seq */
	bool file_min_found;
};

/* A node block must have at least MIN_NR_GENS rows; fewer is truncation. */
static int close_node(struct parse_state *ps)
{
	if (ps->node && ps->node->nr_gens < 2)
		return fail(ps->err, ps->line,
			    "node %d has %d generation rows (truncated?)",
			    ps->node->nid, ps->node->nr_gens);
	ps->node = NULL;
	return 0;
}

static int parse_memcg(struct parse_state *ps, struct cursor *c)
{
	uint64_t id;

	c->p += 5;	/* "memcg" */
	if (c->p >= c->end || *c->p != ' ')
		return fail(ps->err, ps->line, "bad memcg line");
	skip_spaces(c);
	if (parse_u64(c, &id))
		return fail(ps->err, ps->line, "bad memcg ID");
	/* exactly one space separates the ID from the path ("" if none) */
	if (c->p < c->end) {
		if (*c->p != ' ')
			return fail(ps->err, ps->line, "bad memcg ID");
		c->p++;
	}
	if (close_node(ps))
		return -1;
	if (ps->s->nr_memcgs &&
	    !ps->s->memcgs[ps->s->nr_memcgs - 1].nr_nodes)
		return fail(ps->err, ps->line, "memcg without node blocks");
	if (add_memcg(ps->s, id, c->p, (size_t)(c->end - c->p)))
		return -1;
	return 0;
}

static int parse_node(struct parse_state *ps, struct cursor *c)
{
	const struct lrugen_snap *s = ps->s;
	const struct lrugen_memcg *m;
	uint64_t nid;
	size_t i;

	c->p += 5;	/* " node" */
	/* The kernel prints " node %5d": a digit glued to "node" is garbage. */
	if (c->p >= c->end || *c->p != ' ')
		return fail(ps->err, ps->line, "bad node line");
	skip_spaces(c);
	if (parse_u64(c, &nid) || nid > 1u << 20 || c->p != c->end)
		return fail(ps->err, ps->line, "bad node line");
	if (!s->nr_memcgs)
		return fail(ps->err, ps->line, "node line before any memcg");
	if (close_node(ps))
		return -1;
	m = &s->memcgs[s->nr_memcgs - 1];
	for (i = 0; i < m->nr_nodes; i++)
		if (s->nodes[m->first_node + i].nid == (int)nid)
			return fail(ps->err, ps->line, "node %d repeated",
				    (int)nid);
	ps->node = add_node(ps->s, (int)nid);
	if (!ps->node)
		return -1;
	ps->in_file_min_row = false;
	ps->file_min_found = false;
	return 0;
}

static int parse_gen(struct parse_state *ps, struct cursor *c)
{
	struct lrugen_node *n = ps->node;
	struct lrugen_gen *g;
	uint64_t seq, age, anon, file;
	char m1, m2;

	if (!n)
		return fail(ps->err, ps->line, "generation row outside a node");
	skip_spaces(c);
	if (parse_u64(c, &seq))
		return fail(ps->err, ps->line, "bad generation row");
	skip_spaces(c);
	if (parse_u64(c, &age) || parse_marked(c, &anon, &m1) ||
	    parse_marked(c, &file, &m2))
		return fail(ps->err, ps->line, "bad generation row");
	skip_spaces(c);
	if (c->p != c->end || (m1 != ' ' && m1 != 'x') ||
	    (m2 != ' ' && m2 != 'x'))
		return fail(ps->err, ps->line, "bad generation row");
	if (n->nr_gens >= LRUGEN_MAX_GENS)
		return fail(ps->err, ps->line, "more than %d generations",
			    LRUGEN_MAX_GENS);
	if (n->nr_gens && n->gens[n->nr_gens - 1].seq + 1 != seq)
		return fail(ps->err, ps->line,
			    "generation %llu does not follow %lu",
			    (unsigned long long)seq,
			    n->gens[n->nr_gens - 1].seq);
	g = &n->gens[n->nr_gens++];
	g->seq = (unsigned long)seq;
	g->age_ms = (unsigned long)age;
	g->anon = (unsigned long)anon;
	g->file = (unsigned long)file;
	g->anon_x = m1 == 'x';
	g->file_x = m2 == 'x';
	ps->in_file_min_row = false;
	if (!g->file_x && !ps->file_min_found) {
		ps->file_min_found = true;
		ps->in_file_min_row = true;
		n->file_min_seq = g->seq;
	}
	return 0;
}

static int parse_tier(struct parse_state *ps, struct cursor *c)
{
	uint64_t tier, v[6];
	char mk[6];
	int i;

	if (!ps->node || !ps->node->nr_gens)
		return fail(ps->err, ps->line, "tier row outside a generation");
	skip_spaces(c);
	if (parse_u64(c, &tier) || tier >= 4)
		return fail(ps->err, ps->line, "bad tier row");
	for (i = 0; i < 6; i++)
		if (parse_marked(c, &v[i], &mk[i]))
			return fail(ps->err, ps->line, "bad tier row");
	skip_spaces(c);
	if (c->p != c->end)
		return fail(ps->err, ps->line, "bad tier row");
	ps->s->full = true;
	/* columns 3..5 are the file type; "rep" only on its min_seq row */
	if (ps->in_file_min_row && mk[3] == 'r' && mk[4] == 'e' &&
	    mk[5] == 'p') {
		ps->node->has_rep = true;
		ps->node->file_refaulted += (unsigned long)v[3];
		ps->node->file_evicted += (unsigned long)v[4];
		ps->node->file_protected += (unsigned long)v[5];
	}
	return 0;
}

static int parse_mm(struct parse_state *ps, struct cursor *c)
{
	uint64_t v;
	char mk;
	int nr = 0;

	if (!ps->node || !ps->node->nr_gens)
		return fail(ps->err, ps->line, "mm row outside a generation");
	while (skip_spaces(c), c->p < c->end) {
		if (parse_marked(c, &v, &mk))
			return fail(ps->err, ps->line, "bad mm stats row");
		nr++;
	}
	if (nr < 1 || nr > 8)
		return fail(ps->err, ps->line, "bad mm stats row");
	ps->s->full = true;
	return 0;
}

static int parse_line(struct parse_state *ps, struct cursor *c)
{
	size_t lead = 0;

	if (c->end - c->p >= 5 && !memcmp(c->p, "memcg", 5))
		return parse_memcg(ps, c);
	if (c->end - c->p >= 5 && !memcmp(c->p, " node", 5))
		return parse_node(ps, c);
	while (c->p + lead < c->end && c->p[lead] == ' ')
		lead++;
	if (!lead || c->p + lead == c->end)
		return fail(ps->err, ps->line, "unrecognised line");
	if (lead <= 10)
		return parse_gen(ps, c);
	if (lead <= 21)
		return parse_tier(ps, c);
	return parse_mm(ps, c);
}

int lrugen_parse(const char *buf, size_t len, struct lrugen_snap *snap,
		 struct lrugen_err *err)
{
	struct parse_state ps = { .s = snap, .err = err };
	const char *p = buf, *end = buf + len, *nl;

	snap->nr_memcgs = 0;
	snap->nr_nodes = 0;
	snap->paths_len = 0;
	snap->full = false;
	err->line = 0;
	err->msg[0] = '\0';
	while (p < end) {
		struct cursor c;

		ps.line++;
		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			return fail(err, ps.line, "truncated line (no newline)");
		c.p = p;
		c.end = nl;
		if (memchr(p, '\0', (size_t)(nl - p)))
			return fail(err, ps.line, "NUL byte in line");
		if (parse_line(&ps, &c)) {
			if (errno == ENOMEM)
				return fail(err, ps.line, "out of memory");
			return -1;
		}
		p = nl + 1;
	}
	if (close_node(&ps))
		return -1;
	if (snap->nr_memcgs && !snap->memcgs[snap->nr_memcgs - 1].nr_nodes)
		return fail(err, ps.line, "memcg without node blocks (truncated?)");
	return 0;
}

void lrugen_snap_free(struct lrugen_snap *snap)
{
	free(snap->memcgs);
	free(snap->nodes);
	free(snap->paths);
	memset(snap, 0, sizeof(*snap));
}

const struct lrugen_memcg *lrugen_find_path(const struct lrugen_snap *snap,
					    const char *path,
					    int *nr_matches)
{
	const struct lrugen_memcg *found = NULL;
	int nr = 0;
	size_t i;

	for (i = 0; i < snap->nr_memcgs; i++) {
		if (strcmp(snap->paths + snap->memcgs[i].path_off, path))
			continue;
		if (!found)
			found = &snap->memcgs[i];
		nr++;
	}
	if (nr_matches)
		*nr_matches = nr;
	return found;
}

const struct lrugen_node *lrugen_find_node(const struct lrugen_snap *snap,
					   const struct lrugen_memcg *m,
					   int nid)
{
	size_t i;

	for (i = 0; i < m->nr_nodes; i++)
		if (snap->nodes[m->first_node + i].nid == nid)
			return &snap->nodes[m->first_node + i];
	return NULL;
}

void lrugen_memcg_span(const struct lrugen_snap *snap,
		       const struct lrugen_memcg *m, struct lrugen_span *out)
{
	size_t i;

	out->min_seq = (unsigned long)-1;
	out->max_seq = 0;
	out->nr_gens = 0;
	for (i = 0; i < m->nr_nodes; i++) {
		const struct lrugen_node *n = &snap->nodes[m->first_node + i];

		if (n->gens[0].seq < out->min_seq)
			out->min_seq = n->gens[0].seq;
		if (lrugen_max_seq(n) > out->max_seq)
			out->max_seq = lrugen_max_seq(n);
		if (n->nr_gens > out->nr_gens)
			out->nr_gens = n->nr_gens;
	}
}
