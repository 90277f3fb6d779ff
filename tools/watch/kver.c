// SPDX-License-Identifier: MIT
/*
 * kver.c - kernel version parsing and the per-version lru_gen write rules.
 */
#include "tools/watch/kver.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

int kver_parse(const char *release, struct kver *out)
{
	char *end;
	long major, minor;

	major = strtol(release, &end, 10);
	if (end == release || *end != '.' || major < 2 || major > 99)
		goto bad;
	release = end + 1;
	minor = strtol(release, &end, 10);
	if (end == release || minor < 0 || minor > 999)
		goto bad;
	out->major = (int)major;
	out->minor = (int)minor;
	return 0;
bad:
	errno = EINVAL;
	return -1;
}

static bool at_least(const struct kver *v, int major, int minor)
{
	return v->major > major || (v->major == major && v->minor >= minor);
}

void kver_rules_for(const struct kver *v, struct kver_rules *out)
{
	out->id_u64 = at_least(v, 7, 0);
	out->seq_exact = !at_least(v, 6, 14);
	out->eexist = at_least(v, 6, 14);
	out->v1_root_only = at_least(v, 7, 0);
	out->fault_to_max_seq = !at_least(v, 6, 14);
}

int age_cmd_format(char *buf, size_t size, const struct kver_rules *r,
		   uint64_t id, int nid, unsigned long seq,
		   bool explicit_force)
{
	int n;

	if (!r->id_u64 && id > 0xffff) {
		errno = ERANGE;
		return -1;
	}
	n = snprintf(buf, size, "+ %llu %d %lu%s", (unsigned long long)id,
		     nid, seq, explicit_force && r->seq_exact ? " 1 1" : "");
	if (n < 0 || (size_t)n >= size) {
		errno = ENOSPC;
		return -1;
	}
	return n;
}
