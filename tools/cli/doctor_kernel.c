// SPDX-License-Identifier: MIT
/*
 * doctor_kernel.c - what `advshim doctor` says about the kernel: release,
 * MGLRU state (sys/kernel/mm/lru_gen/{enabled,min_ttl_ms}), whether
 * debugfs lru_gen can be read, the lockdown mode, and whether the series
 * has the stall, from what the lab measured on Debian's kernels
 * (tools/lab/README.md, KERNEL-NOTES 1): 6.1 ages by itself (its rmap
 * counts accesses through RANDOM mappings), 6.3 to 6.19 never do
 * (vma_has_recency()), 7.2 and 7.3 stall too but in some scenarios age by
 * themselves after 20 s or so.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/readfile.h"
#include "tools/cli/doctor.h"

enum doc_series doc_series_of(const struct kver *v)
{
	if (v->major < 6 || (v->major == 6 && v->minor < 1))
		return DOC_SER_OLD;
	if (v->major == 6 && v->minor < 3)
		return DOC_SER_AGES;
	if (v->major == 6)
		return DOC_SER_STALLS;
	return DOC_SER_SOMETIMES;
}

const char *doc_series_text(enum doc_series s)
{
	switch (s) {
	case DOC_SER_OLD:
		return "before 6.1: no MGLRU upstream";
	case DOC_SER_AGES:
		return "6.1/6.2 age RANDOM-mapped page cache by themselves "
		       "(rmap counts their accesses): the lab's 6.1 recovered "
		       "without a fix";
	case DOC_SER_STALLS:
		return "6.3+ never age RANDOM/SEQUENTIAL mappings "
		       "(vma_has_recency()): the lab's 6.12 stayed stalled "
		       "to the end of every run";
	case DOC_SER_SOMETIMES:
		return "7.x stalls like 6.12 (the lab's 7.2 and 7.3 stayed at "
		       "10-11% to the end), at times ages by itself ~20 s "
		       "after a cold read";
	case DOC_SER_UNKNOWN:
		break;
	}
	return "kernel release unreadable";
}

const char *doc_series_name(enum doc_series s)
{
	switch (s) {
	case DOC_SER_OLD: return "n/a";
	case DOC_SER_AGES: return "no";
	case DOC_SER_STALLS: return "yes";
	case DOC_SER_SOMETIMES: return "sometimes";
	case DOC_SER_UNKNOWN: break;
	}
	return "unknown";
}

bool doc_kernel_exposed(const struct doc_kernel *k)
{
	return k->mglru && k->enabled > 0 && (k->enabled & 1) &&
	       (k->series == DOC_SER_STALLS ||
		k->series == DOC_SER_SOMETIMES ||
		k->series == DOC_SER_UNKNOWN);
}

/* A small file's first line without its newline; 0 or -1 with errno. */
static int read_line(const char *root, const char *rel, char *out,
		     size_t size)
{
	char *buf;

	if (read_file_at(root, rel, &buf, NULL, 1 << 16))
		return -1;
	buf[strcspn(buf, "\n")] = '\0';
	snprintf(out, size, "%s", buf);
	free(buf);
	return 0;
}

/* "0x0007" or "7" or "y" (6.1 prints the bits in hex). */
static int parse_enabled(const char *s)
{
	char *end;
	long v;

	if (!strcmp(s, "y"))
		return 7;
	if (!strcmp(s, "n"))
		return 0;
	errno = 0;
	v = strtol(s, &end, 0);
	if (errno || end == s || *end || v < 0 || v > 0xffff)
		return -1;
	return (int)v;
}

/* "none [integrity] confidentiality" -> "integrity". */
static void read_lockdown(const char *root, struct doc_kernel *k)
{
	char line[128], *open_br, *close_br;

	if (read_line(root, "/sys/kernel/security/lockdown", line, sizeof(line)))
		return;
	open_br = strchr(line, '[');
	close_br = open_br ? strchr(open_br, ']') : NULL;
	if (!close_br || close_br - open_br - 1 >= (long)sizeof(k->lockdown))
		return;
	memcpy(k->lockdown, open_br + 1, (size_t)(close_br - open_br - 1));
	k->lockdown[close_br - open_br - 1] = '\0';
}

/* Can lru_gen_full (else lru_gen) be opened for reading? */
static void probe_lrugen(const char *root, struct doc_kernel *k)
{
	static const char *const names[] = {
		"/sys/kernel/debug/lru_gen_full", "/sys/kernel/debug/lru_gen",
	};
	char path[DOC_PATH_MAX];
	int fd, i, first = 0;

	for (i = 0; i < 2; i++) {
		if (path_join(path, sizeof(path), root, names[i]))
			break;
		/* O_NONBLOCK: a test's FIFO must not block the probe. */
		fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
		if (fd >= 0) {
			close(fd);
			k->lrugen_errno = 0;
			k->full = i == 0;
			return;
		}
		if (!i)
			first = errno;
	}
	/* Report the more telling error: EACCES over ENOENT. */
	k->lrugen_errno = first == EACCES || first == EPERM ? first : errno;
}

void doc_kernel_read(const char *root, struct doc_kernel *k)
{
	char line[128], path[DOC_PATH_MAX];

	memset(k, 0, sizeof(*k));
	k->enabled = -1;
	k->min_ttl_ms = -1;
	if (!read_line(root, "/proc/sys/kernel/osrelease", k->release,
		       sizeof(k->release)) &&
	    !kver_parse(k->release, &k->v)) {
		k->have_v = true;
		k->series = doc_series_of(&k->v);
	}
	k->mglru = !path_join(path, sizeof(path), root, "/sys/kernel/mm/lru_gen") &&
		   !access(path, F_OK);
	if (!read_line(root, "/sys/kernel/mm/lru_gen/enabled", line, sizeof(line)))
		k->enabled = parse_enabled(line);
	if (!read_line(root, "/sys/kernel/mm/lru_gen/min_ttl_ms", line, sizeof(line)))
		k->min_ttl_ms = strtol(line, NULL, 10);
	read_lockdown(root, k);
	if (k->mglru)
		probe_lrugen(root, k);
	else
		k->lrugen_errno = ENOENT;
}
