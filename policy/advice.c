// SPDX-License-Identifier: MIT
/*
 * advice.c - advice names and the numeric values of each family.
 *
 * The numbers come from the system headers rather than literals: on Linux
 * MADV_* and POSIX_MADV_* agree for 0..4, while POSIX_FADV_DONTNEED and
 * POSIX_FADV_NOREUSE differ between architectures (4/5 on x86, 6/7 on s390).
 */
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>

#include "policy/policy.h"

static const char *const kind_names[ADV_NR_KINDS] = {
	[ADV_NORMAL] = "normal",
	[ADV_RANDOM] = "random",
	[ADV_SEQUENTIAL] = "sequential",
	[ADV_WILLNEED] = "willneed",
	[ADV_DONTNEED] = "dontneed",
	[ADV_NOREUSE] = "noreuse",
	[ADV_OTHER] = "others",
};

const char *adv_kind_name(enum adv_kind kind)
{
	if ((unsigned int)kind >= ADV_NR_KINDS)
		return "others";
	return kind_names[kind];
}

int adv_kind_parse(const char *name, enum adv_kind *kind)
{
	int k;

	if (!name)
		return -1;
	for (k = 0; k < ADV_NR_KINDS; k++) {
		if (!strcmp(name, kind_names[k])) {
			*kind = (enum adv_kind)k;
			return 0;
		}
	}
	return -1;
}

const char *adv_family_name(enum adv_family family)
{
	switch (family) {
	case ADV_FAMILY_MADVISE:
		return "madvise";
	case ADV_FAMILY_FADVISE:
		return "fadvise";
	default:
		return "?";
	}
}

bool adv_family_has(enum adv_family family, enum adv_kind kind)
{
	if ((unsigned int)kind >= ADV_NR_KINDS)
		return false;
	if (kind == ADV_NOREUSE)
		return family == ADV_FAMILY_FADVISE;
	return family == ADV_FAMILY_MADVISE || family == ADV_FAMILY_FADVISE;
}

enum adv_kind adv_from_madvise(int advice)
{
	switch (advice) {
	case MADV_NORMAL:
		return ADV_NORMAL;
	case MADV_RANDOM:
		return ADV_RANDOM;
	case MADV_SEQUENTIAL:
		return ADV_SEQUENTIAL;
	case MADV_WILLNEED:
		return ADV_WILLNEED;
	case MADV_DONTNEED:
		return ADV_DONTNEED;
	default:
		return ADV_OTHER;
	}
}

enum adv_kind adv_from_fadvise(int advice)
{
	switch (advice) {
	case POSIX_FADV_NORMAL:
		return ADV_NORMAL;
	case POSIX_FADV_RANDOM:
		return ADV_RANDOM;
	case POSIX_FADV_SEQUENTIAL:
		return ADV_SEQUENTIAL;
	case POSIX_FADV_WILLNEED:
		return ADV_WILLNEED;
	case POSIX_FADV_DONTNEED:
		return ADV_DONTNEED;
	case POSIX_FADV_NOREUSE:
		return ADV_NOREUSE;
	default:
		return ADV_OTHER;
	}
}

int adv_to_madvise(enum adv_kind kind)
{
	switch (kind) {
	case ADV_NORMAL:
		return MADV_NORMAL;
	case ADV_RANDOM:
		return MADV_RANDOM;
	case ADV_SEQUENTIAL:
		return MADV_SEQUENTIAL;
	case ADV_WILLNEED:
		return MADV_WILLNEED;
	case ADV_DONTNEED:
		return MADV_DONTNEED;
	default:
		return -1;
	}
}

int adv_to_fadvise(enum adv_kind kind)
{
	switch (kind) {
	case ADV_NORMAL:
		return POSIX_FADV_NORMAL;
	case ADV_RANDOM:
		return POSIX_FADV_RANDOM;
	case ADV_SEQUENTIAL:
		return POSIX_FADV_SEQUENTIAL;
	case ADV_WILLNEED:
		return POSIX_FADV_WILLNEED;
	case ADV_DONTNEED:
		return POSIX_FADV_DONTNEED;
	case ADV_NOREUSE:
		return POSIX_FADV_NOREUSE;
	default:
		return -1;
	}
}
