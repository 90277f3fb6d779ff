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
