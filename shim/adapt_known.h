/* SPDX-License-Identifier: MIT */
/*
 * adapt_known.h - the adaptive RANDOM call on ranges this thread's view
 * knows, without the lock (madvise.c's fast path; view.h stays a cache
 * that issues no calls).
 */
#ifndef ADVSHIM_ADAPT_KNOWN_H
#define ADVSHIM_ADAPT_KNOWN_H

#include <errno.h>

#include "shim/view.h"

/*
 * adapt_known - RANDOM advice @advice on [@addr, @addr + @len), ranges of
 * adaptive files asked RANDOM that this thread's view knows (advise_known
 * said ADV_ADAPT; the view's generation still current): issue the group's
 * choice without the lock, counted like a decided piece, then re-check the
 * generation (shim.h's one rule): if it moved meanwhile (a switch may have
 * published another choice and re-advised the range before this call
 * landed), redo the call through advise_range() so that the range ends
 * with the group's current choice; that redo is bounded as advise.c's
 * own re-check is.  No tag changes here, so no switch in flight can
 * hold a stale tag for these ranges: nothing to settle (adapt_table.c).
 * Returns what the call returns (@posix: posix_madvise's contract, else
 * madvise's).
 * Inline: it is the whole of the known-range RANDOM call's path after
 * advise_known(), and a call frame here cost a quarter of its
 * instructions.
 */
static inline int adapt_known(void *addr, size_t len, int advice,
			      bool posix)
{
	unsigned long gen = shim_view.gen;	/* the extent's, just checked */
	int to = adapt_random_code(advice), r;
	size_t l = to == advice ? len : page_up(len);

	decide_count(advice, to);
	if (posix)
		r = call_posix_madvise(addr, l, to);
	else
		r = call_madvise(addr, l, to) ? errno : 0;
	if (unlikely(table_gen() != gen)) {
		/* A switch (or any change) came in between: again, locked. */
		r = advise_range(addr, len, advice, ADV_RANDOM, posix);
	}
	if (posix || !r)
		return r;
	errno = r;
	return -1;
}

#endif /* ADVSHIM_ADAPT_KNOWN_H */
