// SPDX-License-Identifier: MIT
/*
 * view.c - this thread's view of the mapping table: the leaf of its last
 * hit (the finger) and a few decided extents, so that advice on mappings
 * this thread advised before is decided without shim.lock.
 *
 * Programs advise a mapping right after mapping it, and again and again
 * afterwards (Lucene's prefetch sends WILLNEED for its files on every
 * query); files mapped together sit side by side in the address space
 * and so in one leaf of the table.  Under the lock, view_find() searches
 * the finger's leaf (two cache lines) before it descends the tree.  When
 * a lookup hits the finger's leaf again, view_learn() turns the decided
 * range into an extent: the run of adjacent ranges of that leaf whose
 * files have the same rule and the same logging state, as [start, end)
 * with the outcome per advice kind.  view_code() (view.h) answers for
 * any call inside one of the last VIEW_EXTENTS extents without the lock.
 * A program advising 64 small neighbouring mappings, or a few large
 * ones, is answered there after one locked call per leaf.
 *
 * Why that is safe without the lock: the finger and the extents are this
 * thread's own (TLS), written only by this thread, with the lock held, and
 * read by it; the only shared word the lock-free path reads is
 * shim.table_gen, an atomic counter bumped (under the write lock) by every
 * change of the table and every refresh of a cached file (new rule,
 * `logged` cleared).  Outcomes are computed from the rule when learnt.
 * A file's first rewrite being logged (`logged` set, under the read lock)
 * bumps nothing: an extent that still calls it loud only sends calls to
 * the lock, and the next one learnt there is quiet.  So when the
 * generation still equals the extents', they say what the table
 * and the cache said at a moment no earlier than that generation: the
 * decision is one a locked lookup could have taken just before a
 * concurrent change, as the locked path allows too (it releases the lock
 * before its system call).  Signal handlers never see a half-written view:
 * view code runs with shim_busy raised, which sends re-entrant calls
 * straight through.  Cost: about 200 bytes of TLS per thread.
 *
 * Adaptive files (random = "adaptive"): an extent also needs its ranges
 * to carry the same `asked` tag, and its RANDOM outcome is the group's
 * choice at the generation learnt.  Tags and the choice change with
 * gen_bump() after the change (any lock mode), and view_find() reads the
 * generation before it reads them, so an extent is never newer than its
 * stamp says.  The one race the stamp cannot close, a call decided here
 * just before a switch re-advises its range and landing after it, is
 * closed by adapt_known()'s re-check after the call (adapt_table.c).
 *
 * Memory that holds no file (view_learn_nofile, view_nofile): ranges the
 * table does not know are asked of the kernel (kview.c: an open, an ioctl
 * and a close); when the answer is anonymous memory, a device or a deleted
 * file, the advice keeps the caller's value, and so would the next call
 * there.  The answer is kept as one of VIEW_NOFILE ranges stamped with
 * vm_gen(), read before the question: every mapping call the shim sees
 * that can put a file where such memory was (munmap, mremap, MAP_FIXED,
 * a file mmap, a fork) moves vm_gen on after the kernel returned, so an
 * answer older than one of them is never used.
 */
#include "shim/view.h"

__thread struct view shim_view __attribute__((tls_model("initial-exec")));

/* Start over at generation @gen: nothing is known. */
static void view_reset(unsigned long gen, const struct mt_node *leaf)
{
	shim_view.gen = gen;
	shim_view.leaf = leaf;
	shim_view.nr = 0;
}

const struct map_node *view_find(uintptr_t pos)
{
	unsigned long gen = table_gen();
	const struct mt_node *leaf;
	const struct map_node *n;

	shim_view.again = false;
	if (shim_view.gen == gen && shim_view.leaf) {
		n = maptable_leaf_find(shim_view.leaf, pos);
		if (n) {
			shim_view.again = true;
			return n;
		}
	}
	n = maptable_next_leaf(&shim.table, pos, &leaf);
	if (n && n->start <= pos) {
		if (shim_view.gen != gen)
			view_reset(gen, leaf);
		shim_view.leaf = leaf;
	}
	return n;
}

void view_point(uintptr_t addr)
{
	const struct mt_node *leaf;
	const struct map_node *n = maptable_next_leaf(&shim.table, addr, &leaf);

	if (n && n->start <= addr)
		view_reset(table_gen(), leaf);
}

static bool quiet(const struct shim_file *f)
{
	return shim.log_level < POLICY_LOG_INFO ||
	       __atomic_load_n(&f->logged, __ATOMIC_RELAXED);
}

/*
 * Does range @n decide like an extent of @rule, @q and (adaptive rules
 * only, whose read hints depend on it) tag @asked?
 */
static bool alike(const struct map_node *n, const struct policy_rule *rule,
		  bool q, enum map_asked asked)
{
	const struct shim_file *f = node_file(n);

	return f->rule == rule && quiet(f) == q &&
	       (!policy_rule_adaptive(rule) || node_asked(n) == asked);
}

/*
 * The read hints of an adaptive extent whose ranges are all tagged
 * @asked: RANDOM on ranges asked RANDOM is the group's choice (read and
 * re-checked by adapt_known), NORMAL and SEQUENTIAL on ranges
 * asked OTHER leave the tag as it is; every other case changes a tag,
 * which takes the lock (adaptive_piece in advise.c).
 */
static void adaptive_codes(struct view_extent *x, enum map_asked asked)
{
	x->code[ADV_RANDOM] = asked == ASKED_RANDOM && adapt_decided() ?
			      ADV_ADAPT : ADV_UNKNOWN;
	if (asked != ASKED_OTHER)
		x->code[ADV_NORMAL] = x->code[ADV_SEQUENTIAL] = ADV_UNKNOWN;
}

/* The extent around entry @i of @r[0..nr) (the finger's leaf). */
static struct view_extent extent_at(const struct map_node *r, unsigned int nr,
				    unsigned int i)
{
	const struct shim_file *f = node_file(&r[i]);
	const struct policy_rule *rule = f->rule;
	enum map_asked asked = node_asked(&r[i]);
	struct view_extent x = { .quiet = quiet(f) };
	unsigned int lo = i, hi = i;
	int k;

	while (lo > 0 && r[lo - 1].end == r[lo].start &&
	       alike(&r[lo - 1], rule, x.quiet, asked))
		lo--;
	while (hi + 1 < nr && r[hi].end == r[hi + 1].start &&
	       alike(&r[hi + 1], rule, x.quiet, asked))
		hi++;
	x.start = r[lo].start;
	x.end = r[hi].end;
	for (k = 0; k < ADV_NR_KINDS; k++)
		x.code[k] = (signed char)decide_code(ADV_FAMILY_MADVISE,
			policy_decide(rule, ADV_FAMILY_MADVISE, (enum adv_kind)k));
	if (policy_rule_adaptive(rule))
		adaptive_codes(&x, asked);
	return x;
}

/* Keep @x, in place of an extent it overlaps, else of the oldest. */
static void extent_keep(const struct view_extent *x)
{
	unsigned int i;

	for (i = 0; i < shim_view.nr; i++) {
		const struct view_extent *y = &shim_view.ext[i];

		if (y->start < x->end && x->start < y->end)
			break;
	}
	if (i == shim_view.nr) {
		if (shim_view.nr < VIEW_EXTENTS) {
			shim_view.nr++;
		} else {
			i = shim_view.victim;
			shim_view.victim = (shim_view.victim + 1) % VIEW_EXTENTS;
		}
	}
	shim_view.ext[i] = *x;
	shim_view.last = i;
}

void view_learn(const struct map_node *n)
{
	const struct map_node *r;
	unsigned int nr;
	struct view_extent x;
	uintptr_t i;

	if (!shim_view.again || shim_view.gen != table_gen())
		return;
	r = maptable_leaf_ranges(shim_view.leaf, &nr);
	i = ((uintptr_t)n - (uintptr_t)r) / sizeof(*n);
	if ((uintptr_t)n < (uintptr_t)r || i >= nr)
		return;		/* not a range of the finger's leaf */
	x = extent_at(r, nr, (unsigned int)i);
	extent_keep(&x);
}

void view_learn_nofile(uintptr_t start, uintptr_t end, unsigned long gen)
{
	unsigned int i;

	if (shim_view.nofile_gen != gen) {
		shim_view.nofile_gen = gen;
		shim_view.nr_nofile = 0;
	}
	if (shim_view.nr_nofile < VIEW_NOFILE) {
		i = shim_view.nr_nofile++;
	} else {
		i = shim_view.nofile_victim;
		shim_view.nofile_victim = (i + 1) % VIEW_NOFILE;
	}
	shim_view.nofile[i].start = start;
	shim_view.nofile[i].end = end;
}

bool view_overlaps(uintptr_t start, uintptr_t end)
{
	unsigned long gen = table_gen();
	uintptr_t lo, hi;

	if (!maptable_gap(&shim.table, start, &lo, &hi) || hi < end)
		return true;
	shim_view.gap_gen = gen;
	shim_view.gap_start = lo;
	shim_view.gap_end = hi;
	return false;
}
