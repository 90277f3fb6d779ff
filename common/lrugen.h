/* SPDX-License-Identifier: MIT */
/*
 * lrugen.h - parse /sys/kernel/debug/lru_gen and lru_gen_full text.
 *
 * Format (mm/vmscan.c lru_gen_seq_show, 6.1 through 7.0):
 *   "memcg %5hu %s\n"  (6.1-6.19: private 16-bit ID)  "memcg %llu %s\n" (7.0)
 *   " node %5d\n"
 *   " %10lu %10u" seq, age_ms, then per type (anon, file) " %10lu%c" pages
 *     and a mark: ' ', or 'x' in lru_gen_full when seq < min_seq[type].
 * lru_gen_full adds after each generation row MAX_NR_TIERS tier rows
 *   "            %10d" tier, then per type three " %10lu%c" with marks
 *   "rep" (refaulted/evicted/protected, on the min_seq row of that type),
 *   "RT " / "RTx" (max_seq row) or "   " / "xxx",
 * and (when the mm walk is built in) one mm-stats row of 22 spaces and
 * " %10lu%c" counters.  Paths may contain spaces: the path is everything
 * after the single space that follows the ID.
 *
 * The parser takes a buffer and never allocates per line; nothing here
 * does I/O.  Anything it does not recognise makes the whole snapshot
 * invalid (the caller must not act on a half-understood picture).  This is
 * the only reader of these files in advshim: the watcher acts on it and
 * advshim-ab samples the generations of its memcgs through it.
 *
 * Locking: none.  A snapshot belongs to its caller; functions that take a
 * const snapshot may run concurrently on it.
 */
#ifndef ADVSHIM_COMMON_LRUGEN_H
#define ADVSHIM_COMMON_LRUGEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LRUGEN_MAX_GENS 4	/* MAX_NR_GENS */
#define LRUGEN_ERR_MSG 160

struct lrugen_gen {
	unsigned long seq;
	unsigned long age_ms;
	unsigned long anon;
	unsigned long file;
	bool anon_x;		/* lru_gen_full: seq < min_seq[anon] */
	bool file_x;		/* lru_gen_full: seq < min_seq[file] */
};

struct lrugen_node {
	int nid;
	int nr_gens;
	struct lrugen_gen gens[LRUGEN_MAX_GENS];	/* oldest first */
	/* lru_gen_full only: the file type's min_seq row */
	bool has_rep;
	unsigned long file_min_seq;
	unsigned long file_refaulted;	/* sum over tiers */
	unsigned long file_evicted;	/* sum over tiers */
	/*
	 * Sum over tiers: pages the kernel protected (moved from the oldest
	 * generation to the next one, folio_inc_gen) since the file min_seq
	 * took its current value.
	 */
	unsigned long file_protected;
};

struct lrugen_memcg {
	uint64_t id;
	size_t path_off;	/* into lrugen_snap.paths */
	size_t first_node;	/* index into lrugen_snap.nodes */
	size_t nr_nodes;
};

struct lrugen_snap {
	struct lrugen_memcg *memcgs;
	size_t nr_memcgs, cap_memcgs;
	struct lrugen_node *nodes;
	size_t nr_nodes, cap_nodes;
	char *paths;
	size_t paths_len, paths_cap;
	bool full;		/* tier rows were seen */
};

struct lrugen_err {
	int line;		/* 1-based; 0 when not about a line */
	char msg[LRUGEN_ERR_MSG];
};

/*
 * lrugen_parse - parse @len bytes of lru_gen or lru_gen_full text into
 * @snap (which must be zeroed or previously parsed: it is reset and its
 * memory reused).  Returns 0, or -1 with *err filled (errno EINVAL for bad
 * text, ENOMEM).  A missing final newline counts as truncation.
 */
int lrugen_parse(const char *buf, size_t len, struct lrugen_snap *snap,
		 struct lrugen_err *err);

/*
 * lrugen_snap_free - release the snapshot's memory and zero it (it may be
 * parsed into again).  Cannot fail.
 */
void lrugen_snap_free(struct lrugen_snap *snap);

/*
 * lrugen_path - the path of @m as lru_gen printed it ("/" for the root), a
 * NUL-terminated string inside @snap, valid until the next parse or free.
 */
static inline const char *lrugen_path(const struct lrugen_snap *snap,
				      const struct lrugen_memcg *m)
{
	return snap->paths + m->path_off;
}

/*
 * lrugen_find_path - the memcg printed with @path, or NULL.  *nr_matches
 * (if non-NULL) gets how many memcgs carry that path: more than one (a
 * dying memcg next to its successor) means the caller must not act.
 */
const struct lrugen_memcg *lrugen_find_path(const struct lrugen_snap *snap,
					    const char *path,
					    int *nr_matches);

/* lrugen_find_node - the block of node @nid in @m, or NULL if absent. */
const struct lrugen_node *lrugen_find_node(const struct lrugen_snap *snap,
					   const struct lrugen_memcg *m,
					   int nid);

/*
 * lrugen_max_seq, lrugen_youngest_age - seq and age of the youngest
 * generation (max_seq) of a node block.  A parsed block has >= 2 rows.
 */
static inline unsigned long lrugen_max_seq(const struct lrugen_node *n)
{
	return n->gens[n->nr_gens - 1].seq;
}

static inline unsigned long lrugen_youngest_age(const struct lrugen_node *n)
{
	return n->gens[n->nr_gens - 1].age_ms;
}

/* The generations of one memcg over all its node blocks. */
struct lrugen_span {
	unsigned long min_seq;	/* smallest oldest shown seq over nodes */
	unsigned long max_seq;	/* largest max_seq over nodes */
	int nr_gens;		/* rows of the node that has the most */
};

/*
 * lrugen_memcg_span - summarise @m's node blocks into *out.  A parsed
 * memcg has at least one node block, so this cannot fail.
 */
void lrugen_memcg_span(const struct lrugen_snap *snap,
		       const struct lrugen_memcg *m, struct lrugen_span *out);

#endif /* ADVSHIM_COMMON_LRUGEN_H */
