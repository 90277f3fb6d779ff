/* SPDX-License-Identifier: MIT */
/*
 * kver.h - what the running kernel's lru_gen accepts, by version.
 *
 * Read from mm/vmscan.c (lru_gen_seq_write, run_cmd, run_aging) and
 * Documentation/admin-guide/mm/multigen_lru.rst:
 *
 *  6.1-6.13  "+ memcg_id node_id seq [can_swap [force_scan]]".  seq must
 *            equal max_seq: smaller returns 0 and does nothing, larger is
 *            EINVAL.  force_scan defaults to 1 (opt = -1); an explicit 0
 *            with 4 generations is ERANGE.  can_swap defaults to the
 *            memcg's swap setting.  The result of the walk is ignored, so
 *            success does not prove max_seq moved: re-read.
 *  6.14+     "+ memcg_id node_id seq [swappiness [force_scan]]".  Any seq
 *            <= max_seq ages from the current max_seq; EEXIST when the walk
 *            did not end in a new generation (another walker aged, or the
 *            mm walk for that seq already ran).  swappiness 0 = file only,
 *            200 = anon only (7.x also takes "max" and 201, anon only).
 *  all       an unknown memcg ID or node is EINVAL (so is a vanished memcg);
 *            IDs: 16-bit private IDs up to 6.19, u64 cgroup IDs from 7.0.
 *
 * Where a new file page goes (include/linux/mm_inline.h, mm/swap.c or
 * mm/folio.c, read in Debian's 6.12 and 7.3 sources):
 *  6.1-6.13  lru_gen_add_folio: a page faulted in through a mapping with
 *            recency (folio_add_lru() activates it in the fault) to
 *            max_seq; any other page to F, or to F + 1 once there are four
 *            generations (min_seq + MIN_NR_GENS < max_seq): the working
 *            set's refaults through a RANDOM mapping never reach max_seq.
 *  6.14+     lru_gen_folio_seq (read in 7.3; 6.14-6.19 not read, and they
 *            get the rule that waits longer): a new page faulted in
 *            through a mapping with recency to max(max_seq - 2, F), a
 *            refault there to max_seq; the working set's refault through
 *            a RANDOM mapping also to max(max_seq - 2, F): the generations
 *            do not tell a reader's pages from the working set's.
 *
 * Each rule the watcher uses was tried with real writes on Debian's
 * 6.1.0-57 (6.1.192), 6.12.117, 7.2.13 and 7.3.4 kernels: tools/lab
 * (make lab-rules, experiments/rules.expect; the lab smoke repeats it).
 * There, with two writers racing for one max_seq, 6.1/6.12 never fail (the
 * loser's walk is dropped, max_seq +1) while 7.x answers EEXIST or, when
 * the second write comes after the first finished, ages a second time
 * (stale seq).  A removed memcg is EINVAL at once (it is not listed after
 * rmdir even with page cache left).  Debian's 6.12 and 7.x kernels have no
 * cgroup v1 memory controller (CONFIG_MEMCG_V1 off: mounting it is
 * EINVAL), so v1_root_only was not met on a real kernel; 6.1 ages a v1
 * memcg by its private ID.
 *
 * The watcher writes the 4-field form everywhere: the kernel then picks
 * swappiness/can_swap itself and force_scan is 1, which is the one form
 * whose meaning did not change between versions.  After an ERANGE (a kernel
 * whose default differs) it retries with an explicit "1 1" on 6.1-6.13.
 *
 * Pure functions of their arguments: no I/O, no locks, no allocation.
 */
#ifndef ADVSHIM_WATCH_KVER_H
#define ADVSHIM_WATCH_KVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct kver {
	int major;
	int minor;
};

struct kver_rules {
	bool id_u64;		/* 7.0+: cgroup IDs; before: u16 */
	bool seq_exact;		/* 6.1-6.13: seq must equal max_seq */
	bool eexist;		/* 6.14+: EEXIST when nothing aged */
	bool v1_root_only;	/* 7.0+: with cgroup v1 only the root memcg */
	bool fault_to_max_seq;	/* 6.1-6.13: only pages faulted through a
				   mapping with recency are added to max_seq */
};

/* kver_parse - "6.12.48+deb12-amd64" -> 6.12.  0, or -1 (errno EINVAL). */
int kver_parse(const char *release, struct kver *out);

/* kver_rules_for - the write rules of kernel @v into @out; never fails. */
void kver_rules_for(const struct kver *v, struct kver_rules *out);

/*
 * age_cmd_format - the aging command for (@id, @nid, @seq) into @buf,
 * without a trailing newline.  @explicit_force appends " 1 1" (6.1-6.13
 * only: can_swap=1 force_scan=1).  Returns the length, or -1 with errno
 * ERANGE when @id does not fit this kernel's ID width, ENOSPC if @size is
 * too small.
 */
int age_cmd_format(char *buf, size_t size, const struct kver_rules *r,
		   uint64_t id, int nid, unsigned long seq,
		   bool explicit_force);

#endif /* ADVSHIM_WATCH_KVER_H */
