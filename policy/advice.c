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

/* Each kind's name and its value per family; -1: the family has none. */
static const struct {
	const char *name;
	int madv;
	int fadv;
} kinds[ADV_NR_KINDS] = {
	[ADV_NORMAL] = { "normal", MADV_NORMAL, POSIX_FADV_NORMAL },
	[ADV_RANDOM] = { "random", MADV_RANDOM, POSIX_FADV_RANDOM },
	[ADV_SEQUENTIAL] = { "sequential", MADV_SEQUENTIAL, POSIX_FADV_SEQUENTIAL },
	[ADV_WILLNEED] = { "willneed", MADV_WILLNEED, POSIX_FADV_WILLNEED },
	[ADV_DONTNEED] = { "dontneed", MADV_DONTNEED, POSIX_FADV_DONTNEED },
	[ADV_NOREUSE] = { "noreuse", -1, POSIX_FADV_NOREUSE },
	[ADV_OTHER] = { "others", -1, -1 },
};

const char *adv_kind_name(enum adv_kind kind)
{
	if ((unsigned int)kind >= ADV_NR_KINDS)
		return "others";
	return kinds[kind].name;
}

int adv_kind_parse(const char *name, enum adv_kind *kind)
{
	int k;

	if (!name)
		return -1;
	for (k = 0; k < ADV_NR_KINDS; k++) {
		if (!strcmp(name, kinds[k].name)) {
			*kind = (enum adv_kind)k;
			return 0;
		}
	}
	return -1;
}

const char *adv_family_name(enum adv_family family)
{
	if (family == ADV_FAMILY_MADVISE)
		return "madvise";
	if (family == ADV_FAMILY_FADVISE)
		return "fadvise";
	return "?";
}

bool adv_family_has(enum adv_family family, enum adv_kind kind)
{
	if ((unsigned int)kind >= ADV_NR_KINDS)
		return false;
	if (kind == ADV_NOREUSE)
		return family == ADV_FAMILY_FADVISE;
	return family == ADV_FAMILY_MADVISE || family == ADV_FAMILY_FADVISE;
}

/* kind_of - the kind whose value in one family (@fadv or not) is @advice. */
static enum adv_kind kind_of(int advice, bool fadv)
{
	int k;

	for (k = 0; advice >= 0 && k < ADV_NR_KINDS; k++)
		if ((fadv ? kinds[k].fadv : kinds[k].madv) == advice)
			return (enum adv_kind)k;
	return ADV_OTHER;
}

_Static_assert(MADV_NORMAL == ADV_NORMAL && MADV_RANDOM == ADV_RANDOM &&
	       MADV_SEQUENTIAL == ADV_SEQUENTIAL &&
	       MADV_WILLNEED == ADV_WILLNEED && MADV_DONTNEED == ADV_DONTNEED &&
	       POSIX_MADV_NORMAL == ADV_NORMAL &&
	       POSIX_MADV_RANDOM == ADV_RANDOM &&
	       POSIX_MADV_SEQUENTIAL == ADV_SEQUENTIAL &&
	       POSIX_MADV_WILLNEED == ADV_WILLNEED &&
	       POSIX_MADV_DONTNEED == ADV_DONTNEED,
	       "adv_from_madvise (policy.h) maps MADV_* 0..4 to the kinds");

enum adv_kind adv_from_fadvise(int advice)
{
	return kind_of(advice, true);
}

int adv_to_madvise(enum adv_kind kind)
{
	if ((unsigned int)kind >= ADV_NR_KINDS)
		return -1;
	return kinds[kind].madv;
}

int adv_to_fadvise(enum adv_kind kind)
{
	if ((unsigned int)kind >= ADV_NR_KINDS)
		return -1;
	return kinds[kind].fadv;
}
