// SPDX-License-Identifier: MIT
/*
 * test_shim_adapt.c - the shim's side of random = "adaptive" (files named
 * adapt-* in the unit policy): the `asked` tag of each range through the
 * shim's real posix_madvise, the tag transitions themselves, the view's
 * lock-free outcome and its re-check, a switch applied to the tagged
 * ranges only, a call, an unmapping and a MAP_FIXED mapping waiting out
 * a switch's madvise in flight and a switch waiting out a MAP_FIXED call, the sampler's snapshot (need per file, windows), and
 * adoption of a mapping the table never saw.  The kernel's VmFlags say
 * what was issued.  The test process has no memcg limit of its own, so
 * the first decision is normal (MemAvailable is the room).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <pthread.h>
#include <time.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "shim/sampler.h"
#include "shim/adapt_known.h"
#include "tests/unit/shim_unit.h"

TestSuite(adapt, .init = unit_init, .fini = unit_fini);

/* The tag of the table range holding @p. */
static enum map_asked asked_at(const void *p)
{
	struct map_node n;

	cr_assert(table_range_at(p, &n), "no range at %p", p);
	return node_asked(&n);
}

/* The group's choice, as a switch would publish it, applied. */
static struct adapt_applied publish(enum adapt_choice c)
{
	struct adapt_applied ap;

	__atomic_store_n(&shim.adapt_choice, (int)c, __ATOMIC_RELEASE);
	gen_bump();
	adapt_apply(c, &ap);
	return ap;
}

Test(adapt, first_call_decides_and_tags)
{
	char *p = unit_map(NULL, unit_file("adapt-a", 8, NULL), 8, 0);

	cr_assert_eq(adapt_decided(), 0);
	cr_assert_eq(posix_madvise(p, 8 * PG, POSIX_MADV_RANDOM), 0);
	cr_assert(adapt_decided());
	cr_assert_eq(shim.adapt_choice, ADAPT_NORMAL);
	cr_assert_eq(rr_at(p), 0, "the first call issued the decided advice");
	cr_assert_eq(asked_at(p), ASKED_RANDOM);
	cr_assert_eq(shim_stats->adapt.samples, 1);
	cr_assert_eq(shim_stats->adapt.nr_history, 1);
	cr_assert_eq(shim_stats->adapt.history[0].from, -1);
	cr_assert_eq(shim_stats->adapt.history[0].to, ADAPT_NORMAL);
	cr_assert_eq(shim_stats->adapt.ranges_asked, 1);
}

/*
 * A read hint on part of a range cuts it (as the kernel splits the VMA):
 * the part gets its own tag, the rest keeps its own.
 */
Test(adapt, tags_follow_the_read_hints)
{
	char *p = unit_map(NULL, unit_file("adapt-a", 8, NULL), 8, 0);
	size_t nr = table_nr();

	cr_assert_eq(madvise(p, 8 * PG, MADV_SEQUENTIAL), 0);
	cr_assert_eq(asked_at(p), ASKED_OTHER);
	cr_assert_eq(sr_at(p), 1, "SEQUENTIAL kept");
	cr_assert_eq(madvise(p + PG, PG, MADV_RANDOM), 0);
	cr_assert_eq(table_nr(), nr + 2, "cut in three");
	cr_assert_eq(asked_at(p), ASKED_OTHER);
	cr_assert_eq(asked_at(p + PG), ASKED_RANDOM);
	cr_assert_eq(asked_at(p + 2 * PG), ASKED_OTHER);
	cr_assert_eq(rr_at(p + PG), 0, "the part has the choice (normal)");
	cr_assert_eq(sr_at(p + PG), 0);
	cr_assert_eq(sr_at(p), 1, "the rest keeps SEQUENTIAL");
	cr_assert_eq(sr_at(p + 2 * PG), 1);
	cr_assert_eq(madvise(p, 8 * PG, MADV_RANDOM), 0);
	cr_assert_eq(asked_at(p), ASKED_RANDOM);
	cr_assert_eq(asked_at(p + 2 * PG), ASKED_RANDOM);
	cr_assert_eq(madvise(p + 2 * PG, 2 * PG, MADV_RANDOM), 0);
	cr_assert_eq(asked_at(p + 2 * PG), ASKED_RANDOM, "a part of a RANDOM range");
	cr_assert_eq(asked_at(p + 4 * PG), ASKED_RANDOM);
	cr_assert_eq(madvise(p + 2 * PG, 2 * PG, MADV_NORMAL), 0);
	cr_assert_eq(asked_at(p + 2 * PG), ASKED_OTHER);
	cr_assert_eq(asked_at(p + 4 * PG), ASKED_RANDOM);
	cr_assert_eq(madvise(p, 8 * PG, MADV_WILLNEED), 0);
	cr_assert_eq(asked_at(p + 4 * PG), ASKED_RANDOM, "WILLNEED is no read hint");
	cr_assert_eq(posix_madvise(p, 8 * PG, POSIX_MADV_NORMAL), 0);
	cr_assert_eq(asked_at(p), ASKED_OTHER);
	cr_assert_eq(asked_at(p + 4 * PG), ASKED_OTHER);
	/* munmap of a hole: both halves keep the tag. */
	cr_assert_eq(madvise(p, 8 * PG, MADV_RANDOM), 0);
	cr_assert_eq(munmap(p + 3 * PG, PG), 0);
	cr_assert_eq(asked_at(p + 2 * PG), ASKED_RANDOM);
	cr_assert_eq(asked_at(p + 4 * PG), ASKED_RANDOM);
}

/*
 * Pieces of one mapping moved as one VMA (the kernel split nothing: the
 * choice is normal, so the flags did not differ): asked alike, the tag
 * moves; asked differently, the moved range is MIXED and a switch leaves
 * it alone.
 */
Test(adapt, mremap_merges_the_pieces_tags)
{
	char *p = unit_map(NULL, unit_file("adapt-a", 8, NULL), 8, 0);
	char *to = unit_reserve(8), *q;

	cr_assert_eq(madvise(p, 8 * PG, MADV_RANDOM), 0);
	cr_assert_eq(madvise(p + PG, PG, MADV_RANDOM), 0);
	q = mremap(p, 8 * PG, 8 * PG, MREMAP_MAYMOVE | MREMAP_FIXED, to);
	cr_assert_eq(q, to);
	cr_assert_eq(asked_at(q), ASKED_RANDOM, "all pieces RANDOM");
	cr_assert_eq(madvise(q + 2 * PG, PG, MADV_NORMAL), 0);
	cr_assert_eq(asked_at(q + 2 * PG), ASKED_OTHER);
	p = mremap(q, 8 * PG, 8 * PG, MREMAP_MAYMOVE);
	cr_assert_neq(p, MAP_FAILED);
	cr_assert_eq(asked_at(p), ASKED_MIXED);
	cr_assert_eq(asked_at(p + 7 * PG), ASKED_MIXED);
}

/* The transition table itself, on a range that lives on the stack. */
Test(adapt, ask_transitions)
{
	static const struct {
		enum map_asked from;
		bool whole;
		enum adv_kind kind;
		enum map_asked to;
	} t[] = {
		{ ASKED_NONE, true, ADV_RANDOM, ASKED_RANDOM },
		{ ASKED_NONE, false, ADV_RANDOM, ASKED_MIXED },
		{ ASKED_NONE, true, ADV_SEQUENTIAL, ASKED_OTHER },
		{ ASKED_NONE, false, ADV_NORMAL, ASKED_OTHER },
		{ ASKED_RANDOM, false, ADV_RANDOM, ASKED_RANDOM },
		{ ASKED_RANDOM, false, ADV_NORMAL, ASKED_MIXED },
		{ ASKED_RANDOM, true, ADV_NORMAL, ASKED_OTHER },
		{ ASKED_OTHER, false, ADV_SEQUENTIAL, ASKED_OTHER },
		{ ASKED_OTHER, false, ADV_RANDOM, ASKED_MIXED },
		{ ASKED_MIXED, false, ADV_SEQUENTIAL, ASKED_MIXED },
		{ ASKED_MIXED, true, ADV_RANDOM, ASKED_RANDOM },
	};
	static struct shim_file f __attribute__((aligned(16)));
	struct map_node n;
	unsigned long gen;
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		n = (struct map_node){ 0x10000, 0x14000,
				       (void *)((uintptr_t)&f | t[i].from) };
		gen = table_gen();
		adapt_ask(&n, t[i].whole ? 0x10000 : 0x11000,
			  t[i].whole ? 0x14000 : 0x12000, t[i].kind);
		cr_expect_eq(node_asked(&n), t[i].to, "case %zu: %d", i,
			     node_asked(&n));
		cr_expect_eq(node_file(&n), &f);
		cr_expect_eq(table_gen() != gen, t[i].from != t[i].to,
			     "case %zu: the generation moves iff the tag does", i);
	}
}

Test(adapt, view_decides_known_random_ranges_and_rechecks)
{
	char *p = unit_reserve(9);
	uint64_t rw;

	unit_map(p, unit_file("adapt-a", 8, NULL), 8, 0);
	cr_assert_eq(munmap(p + 8 * PG, PG), 0);	/* a hole after it */

	cr_assert_eq(posix_madvise(p, 8 * PG, POSIX_MADV_RANDOM), 0);
	cr_assert_eq(posix_madvise(p, 8 * PG, POSIX_MADV_RANDOM), 0);
	cr_assert_eq(posix_madvise(p, 8 * PG, POSIX_MADV_RANDOM), 0);
	cr_assert_eq(advise_known(p, 2 * PG, MADV_RANDOM, ADV_RANDOM), ADV_ADAPT);
	cr_assert_eq(advise_known(p, 2 * PG, MADV_WILLNEED, ADV_WILLNEED),
		     MADV_WILLNEED);
	cr_assert_eq(advise_known(p, PG, MADV_SEQUENTIAL, ADV_SEQUENTIAL),
		     ADV_UNKNOWN, "a tag change takes the lock");
	/* Without the lock: the choice in force, one piece counted. */
	rw = STAT(rewritten);
	cr_assert_eq(adapt_known(p, 8 * PG, POSIX_MADV_RANDOM, true), 0);
	cr_assert_eq(STAT(rewritten), rw + 1);
	cr_assert_eq(rr_at(p), 0);
	/*
	 * The generation moved after the view checked it (a switch between
	 * the check and the call): the call is redone under the lock.
	 */
	publish(ADAPT_RANDOM);
	shim_view.gen = table_gen() - 1;
	rw = STAT(kept);
	cr_assert_eq(adapt_known(p, 8 * PG, MADV_RANDOM, false), 0);
	cr_assert_eq(STAT(kept), rw + 2, "issued, then redone");
	cr_assert_eq(rr_at(p), 1);
	cr_assert_eq(advise_known(p, 8 * PG, MADV_RANDOM, ADV_RANDOM),
		     ADV_UNKNOWN, "relearnt after the switch");
	cr_assert_eq(posix_madvise(p, 8 * PG, POSIX_MADV_RANDOM), 0);
	cr_assert_eq(posix_madvise(p, 8 * PG, POSIX_MADV_RANDOM), 0);
	cr_assert_eq(advise_known(p, 8 * PG, MADV_RANDOM, ADV_RANDOM), ADV_ADAPT);
	/* Errors keep madvise's contract. */
	cr_assert_eq(adapt_known(p + 8 * PG, PG, MADV_RANDOM, false), -1);
	cr_assert_eq(errno, ENOMEM);
}

Test(adapt, switch_applies_to_ranges_asked_random_only)
{
	char *p = unit_reserve(24);
	struct adapt_applied ap;

	unit_map(p, unit_file("adapt-a", 8, NULL), 8, 0);
	unit_map(p + 8 * PG, unit_file("adapt-b", 8, NULL), 8, 0);
	unit_map(p + 16 * PG, unit_file("keep-c", 8, NULL), 8, 0);
	cr_assert_eq(posix_madvise(p, 8 * PG, POSIX_MADV_RANDOM), 0);
	cr_assert_eq(posix_madvise(p + 8 * PG, 8 * PG, POSIX_MADV_SEQUENTIAL), 0);
	cr_assert_eq(posix_madvise(p + 9 * PG, PG, POSIX_MADV_RANDOM), 0);
	cr_assert_eq(posix_madvise(p + 16 * PG, 8 * PG, POSIX_MADV_RANDOM), 0);
	cr_assert_eq(rr_at(p), 0);
	cr_assert_eq(rr_at(p + 9 * PG), 0);
	cr_assert_eq(rr_at(p + 16 * PG), 1, "keep-c is not adaptive");
	ap = publish(ADAPT_RANDOM);
	cr_assert_eq(ap.ranges, 2);
	cr_assert_eq(ap.mixed, 0);
	cr_assert_eq(ap.errors, 0);
	cr_assert_eq(rr_at(p), 1);
	cr_assert_eq(sr_at(p + 8 * PG), 1, "a SEQUENTIAL part is left alone");
	cr_assert_eq(rr_at(p + 9 * PG), 1, "the part asked RANDOM follows");
	cr_assert_eq(sr_at(p + 10 * PG), 1);
	ap = publish(ADAPT_NORMAL);
	cr_assert_eq(rr_at(p), 0);
	cr_assert_eq(rr_at(p + 9 * PG), 0);
	cr_assert_eq(sr_at(p + 10 * PG), 1);
	cr_assert_eq(rr_at(p + 16 * PG), 1);
	/* A new call reads the choice in force. */
	publish(ADAPT_RANDOM);
	cr_assert_eq(posix_madvise(p, 8 * PG, POSIX_MADV_RANDOM), 0);
	cr_assert_eq(rr_at(p), 1);
}

Test(adapt, snapshot_need_files_windows)
{
	char *p = unit_reserve(40);
	struct adapt_seed seed = { .dev = 1, .ino = 2, .size = 64 * PG,
				   .bytes = 16 * PG };
	static struct adapt_snap s;
	int fd = unit_file("adapt-a", 8, NULL);

	unit_map(p, fd, 8, 0);
	unit_map(p + 8 * PG, fd, 8, 0);		/* the same file twice */
	unit_map(p + 16 * PG, unit_file("adapt-b", 16, NULL), 16, 0);
	unit_map(p + 32 * PG, unit_file("adapt-c", 8, NULL), 8, 0);
	cr_assert_eq(posix_madvise(p, 32 * PG, POSIX_MADV_RANDOM), 0);
	cr_assert_eq(posix_madvise(p + 32 * PG, PG, POSIX_MADV_RANDOM), 0);
	adapt_snapshot(&s, NULL, 0);
	cr_assert_eq(s.nr_ranges, 4, "adapt-c's first page is a range now");
	cr_assert_eq(s.nr_mixed, 0);
	cr_assert_eq(s.nr_files, 3);
	cr_assert_eq(s.bytes, 33 * PG);
	cr_assert_eq(s.need, 25 * PG, "adapt-a counted once: its size");
	cr_assert_eq(s.nr_win, 4, "a window per range the first time");
	adapt_snapshot(&s, NULL, s.bytes);
	cr_assert_eq(s.nr_win, ADAPT_WINDOWS);
	for (unsigned int i = 0; i < s.nr_win; i++)
		cr_assert(s.win[i] >= (uintptr_t)p &&
			  s.win[i] + s.win_pages[i] * PG <= (uintptr_t)p + 33 * PG,
			  "window %u outside the ranges", i);
	cr_assert_eq(adapt_resident(&s), 0, "sparse files: nothing cached");
	adapt_snapshot(&s, &seed, 0);
	cr_assert_eq(s.nr_files, 4);
	cr_assert_eq(s.need, 41 * PG);
}

/* A mapping the shim never saw (raw mmap) joins the table when advised. */
Test(adapt, kernel_view_range_adopted)
{
	int fd = unit_file("adapt-a", 8, NULL);
	char *p = (char *)syscall(SYS_mmap, NULL, 8 * PG, PROT_READ,
				  MAP_SHARED, fd, 0);

	cr_assert_neq(p, MAP_FAILED);
	cr_assert_null(table_file_at(p));
	cr_assert_eq(posix_madvise(p, 8 * PG, POSIX_MADV_RANDOM), 0);
	cr_assert_not_null(table_file_at(p));
	cr_assert_eq(asked_at(p), ASKED_RANDOM);
	cr_assert_eq(rr_at(p), 0);
	publish(ADAPT_RANDOM);
	cr_assert_eq(rr_at(p), 1, "a switch reaches it");
}

static int landed;

/* The switch's madvise in flight "returns" 100 ms later. */
static void *land_later(void *arg)
{
	struct timespec ts = { 0, 100 * 1000 * 1000 };

	(void)arg;
	nanosleep(&ts, NULL);
	__atomic_store_n(&landed, 1, __ATOMIC_SEQ_CST);
	__atomic_fetch_add(&shim.adapt.issuing, 1, __ATOMIC_SEQ_CST);
	return NULL;
}

/*
 * While a switch's madvise is in flight (adapt.issuing odd), a read hint
 * that re-tags an adaptive range, and a munmap of a table range, wait for
 * it to return before their own system call (adapt_table.c: the switch
 * may have read the old tag, or found the range still mapped).
 */
Test(adapt, calls_wait_out_a_switch_madvise_in_flight)
{
	char *p = unit_map(NULL, unit_file("adapt-a", 8, NULL), 8, 0);
	pthread_t t;

	cr_assert_eq(posix_madvise(p, 8 * PG, POSIX_MADV_RANDOM), 0);
	cr_assert_eq(shim.adapt.issuing % 2, 0, "no switch in flight");
	landed = 0;
	__atomic_fetch_add(&shim.adapt.issuing, 1, __ATOMIC_SEQ_CST);
	cr_assert_eq(pthread_create(&t, NULL, land_later, NULL), 0);
	cr_assert_eq(madvise(p, 8 * PG, MADV_SEQUENTIAL), 0);
	cr_assert(__atomic_load_n(&landed, __ATOMIC_SEQ_CST),
		  "the hint was issued before the switch's madvise returned");
	pthread_join(t, NULL);
	cr_assert_eq(asked_at(p), ASKED_OTHER);
	cr_assert_eq(sr_at(p), 1);

	landed = 0;
	__atomic_fetch_add(&shim.adapt.issuing, 1, __ATOMIC_SEQ_CST);
	cr_assert_eq(pthread_create(&t, NULL, land_later, NULL), 0);
	cr_assert_eq(munmap(p, 8 * PG), 0);
	cr_assert(__atomic_load_n(&landed, __ATOMIC_SEQ_CST),
		  "unmapped before the switch's madvise returned");
	pthread_join(t, NULL);
	cr_assert_null(table_file_at(p));
}

/* The MAP_FIXED call in flight "updates the table" 100 ms later. */
static void *replaced_later(void *arg)
{
	struct timespec ts = { 0, 100 * 1000 * 1000 };

	(void)arg;
	nanosleep(&ts, NULL);
	__atomic_store_n(&landed, 1, __ATOMIC_SEQ_CST);
	adapt_replace_done();
	return NULL;
}

/*
 * A MAP_FIXED mmap over a table range waits out a switch's madvise in
 * flight before its system call; a switch finds no range while a
 * MAP_FIXED call is between its announcement and its table update.
 */
Test(adapt, map_fixed_and_switch_hold_each_other_off)
{
	char *p = unit_map(NULL, unit_file("adapt-a", 8, NULL), 8, 0);
	struct adapt_applied ap;
	pthread_t t;

	cr_assert_eq(posix_madvise(p, 8 * PG, POSIX_MADV_RANDOM), 0);
	landed = 0;
	__atomic_fetch_add(&shim.adapt.issuing, 1, __ATOMIC_SEQ_CST);
	cr_assert_eq(pthread_create(&t, NULL, land_later, NULL), 0);
	cr_assert_neq(mmap(p, 8 * PG, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS |
			   MAP_FIXED, -1, 0), MAP_FAILED);
	cr_assert(__atomic_load_n(&landed, __ATOMIC_SEQ_CST),
		  "replaced before the switch's madvise returned");
	pthread_join(t, NULL);
	cr_assert_null(table_file_at(p));
	cr_assert_eq(shim.adapt.replacing, 0, "the call uncounted itself");

	p = unit_map(NULL, unit_file("adapt-b", 8, NULL), 8, 0);
	cr_assert_eq(posix_madvise(p, 8 * PG, POSIX_MADV_RANDOM), 0);
	landed = 0;
	__atomic_fetch_add(&shim.adapt.replacing, 1, __ATOMIC_SEQ_CST);
	cr_assert_eq(pthread_create(&t, NULL, replaced_later, NULL), 0);
	ap = publish(ADAPT_RANDOM);
	cr_assert(__atomic_load_n(&landed, __ATOMIC_SEQ_CST),
		  "the switch re-advised during a MAP_FIXED call");
	pthread_join(t, NULL);
	cr_assert_eq(ap.ranges, 1);
	cr_assert_eq(rr_at(p), 1);
}

/*
 * stress/adapt_race.c's "1 ranges keep a stale choice": a switch publishes
 * RANDOM and walks the table up the address space; a range asked RANDOM
 * that it has not reached yet is moved below the walk's position (the
 * walk waits while the mremap is counted, then goes on above).  The walk
 * never sees it, and the kernel moved the VMA with its old flags: the
 * mremap itself must leave the range with the published choice.  Here
 * the switch is published and its walk never visits the moved range.
 */
Test(adapt, mremap_behind_a_switch_walk_gets_the_choice)
{
	char *low = unit_reserve(8);
	char *p = unit_map(NULL, unit_file("adapt-a", 8, NULL), 8, 0), *q;

	cr_assert_eq(posix_madvise(p, 8 * PG, POSIX_MADV_RANDOM), 0);
	cr_assert_eq(shim.adapt_choice, ADAPT_NORMAL);
	cr_assert_eq(rr_at(p), 0);
	/* The switch to RANDOM is published; its walk is past `low`. */
	__atomic_store_n(&shim.adapt_choice, (int)ADAPT_RANDOM, __ATOMIC_SEQ_CST);
	gen_bump();
	q = mremap(p, 8 * PG, 8 * PG, MREMAP_MAYMOVE | MREMAP_FIXED, low);
	cr_assert_eq(q, low);
	cr_assert_eq(asked_at(q), ASKED_RANDOM);
	cr_assert_eq(rr_at(q), 1, "the moved range kept the choice before the switch");
	cr_assert_eq(rr_at(q + 7 * PG), 1);
	cr_assert_eq(shim.adapt.replacing, 0, "the mremap uncounted itself");
	/* Back to normal: a plain move (no MREMAP_FIXED) is held the same. */
	__atomic_store_n(&shim.adapt_choice, (int)ADAPT_NORMAL, __ATOMIC_SEQ_CST);
	gen_bump();
	p = mremap(q, 8 * PG, 16 * PG, MREMAP_MAYMOVE);
	cr_assert_neq(p, MAP_FAILED);
	cr_assert_eq(rr_at(p), 0, "the moved range kept RANDOM after the switch to normal");
	/* A range asked otherwise keeps what it was given. */
	cr_assert_eq(madvise(p, 16 * PG, MADV_SEQUENTIAL), 0);
	__atomic_store_n(&shim.adapt_choice, (int)ADAPT_RANDOM, __ATOMIC_SEQ_CST);
	gen_bump();
	q = mremap(p, 16 * PG, 8 * PG, MREMAP_MAYMOVE | MREMAP_FIXED, low);
	cr_assert_eq(q, low);
	cr_assert_eq(rr_at(q), 0);
	cr_assert_eq(sr_at(q), 1);
}
