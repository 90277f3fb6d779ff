// SPDX-License-Identifier: MIT
/*
 * madvise.c - madvise and posix_madvise.
 *
 * Advice no rule changes (MADV_DONTNEED on anonymous memory, HotSpot's
 * probes) goes straight to the next definition (pass_fast): no lock, no
 * stack frame, one add to the thread's own counter (stats `passed`).
 * Lazy init is triggered only by advice allocators never give (they use
 * DONTNEED, FREE, HUGEPAGE and friends, sometimes under their own locks,
 * where init's mallocs could deadlock).
 * MADV_DONTFORK and MADV_DOFORK also keep dontfork.c's records in step.
 */
#include <errno.h>
#include <sys/mman.h>

#include "shim/adapt_known.h"

/*
 * Whether to examine advice @kind (some rule acts on it), counting the
 * call in `calls` if so and in `passed` if not; calls made while the shim
 * is not active are neither examined nor counted.
 */
static inline __attribute__((always_inline)) bool examine(enum adv_kind kind)
{
	bool ok;

	switch (kind) {
	case ADV_NORMAL:
	case ADV_RANDOM:
	case ADV_SEQUENTIAL:
	case ADV_WILLNEED:
		/* shim_activate() is out of line; once active, skip the call. */
		ok = shim_active() || shim_activate();
		break;
	default:
		ok = shim_active();
		break;
	}
	if (!ok)
		return false;
	if (likely(!shim_acts_on(ADV_FAMILY_MADVISE, kind))) {
		STAT_HOT(passed[ADV_FAMILY_MADVISE][kind]);
		return false;
	}
	STAT_HOT(calls[ADV_FAMILY_MADVISE][kind]);
	return true;
}

/*
 * The length to issue a decided call with: the caller's when the advice
 * is unchanged (exactly the caller's call), whole pages when rewritten
 * (as advise_range issues its pieces).
 */
static inline size_t issue_len(size_t len, int advice, int to)
{
	return to == advice ? len : page_up(len);
}

/* The next definition of madvise, or of posix_madvise if @posix. */
static inline int call_advise(void *addr, size_t len, int advice, bool posix)
{
	return posix ? call_posix_madvise(addr, len, advice) :
		       call_madvise(addr, len, advice);
}

/*
 * madvise (@posix false: -1 and errno on failure) or posix_madvise
 * (true: the error number) of @advice on [@addr, @addr + @len), decided.
 * Forced inline into both with @posix constant: out of line, the entry
 * points paid a call and the branches on @posix on every call.
 */
static inline __attribute__((always_inline)) int advise(void *addr, size_t len,
							  int advice, bool posix)
{
	enum adv_kind kind = adv_from_madvise(advice);
	int r;

	if (likely(!examine(kind)))
		return call_advise(addr, len, advice, posix);
	/* A known range: the real call last, so it returns straight back. */
	r = advise_known(addr, len, advice, kind);
	if (likely(r >= 0))
		return call_advise(addr, issue_len(len, advice, r), r, posix);
	if (r == ADV_SKIP)
		return 0;
	if (r == ADV_ADAPT)
		return adapt_known(addr, len, advice, posix);
	r = advise_range(addr, len, advice, kind, posix);
	if (r && !posix) {
		errno = r;
		return -1;
	}
	return r;
}

/*
 * pass_fast - true if @advice goes on unexamined, counted in this thread's
 * slot: the shim active, no rule acting on the advice, the thread holding
 * a slot (STAT_HOT), and for madvise (@posix false) not MADV_DONTFORK or
 * MADV_DOFORK.  Everything else takes the decided path, out of line: the
 * fast path then needs no stack frame and ends in a tail call.
 */
static inline __attribute__((always_inline)) bool pass_fast(int advice,
							     bool posix)
{
	enum adv_kind kind = adv_from_madvise(advice);
	struct advshim_stats_slot *slot = shim_stat_slot;

	/* MADV_DONTFORK (10) and MADV_DOFORK (11): one compare. */
	if (unlikely(!slot || (!posix && (advice & ~1) == MADV_DONTFORK) ||
		     !shim_active() || shim_acts_on(ADV_FAMILY_MADVISE, kind)))
		return false;
	slot_inc(&slot->passed[ADV_FAMILY_MADVISE][kind]);
	return true;
}

static __attribute__((noinline)) int madvise_decided(void *addr, size_t len,
						      int advice)
{
	int r;

	if (likely((advice & ~1) != MADV_DONTFORK))
		return advise(addr, len, advice, false);
	dontfork_before(addr, len, advice);
	r = advise(addr, len, advice, false);
	if (!r)
		dontfork_after(addr, len, advice);
	return r;
}

static __attribute__((noinline)) int posix_madvise_decided(void *addr,
							    size_t len,
							    int advice)
{
	return advise(addr, len, advice, true);
}

SHIM_EXPORT int madvise(void *addr, size_t len, int advice)
{
	if (likely(pass_fast(advice, false)))
		return call_madvise(addr, len, advice);
	return madvise_decided(addr, len, advice);
}

SHIM_EXPORT int posix_madvise(void *addr, size_t len, int advice)
{
	if (likely(pass_fast(advice, true)))
		return call_posix_madvise(addr, len, advice);
	return posix_madvise_decided(addr, len, advice);
}

SHIM_SELF(madvise);
SHIM_SELF(posix_madvise);
