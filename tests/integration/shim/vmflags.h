/* SPDX-License-Identifier: MIT */
/*
 * vmflags.h - the kernel's view of one address: VmFlags from
 * /proc/self/smaps, for the shim's integration test programs.
 */
#ifndef ADVSHIM_TEST_VMFLAGS_H
#define ADVSHIM_TEST_VMFLAGS_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

/*
 * vmflags_at - copy the VmFlags line of the VMA containing @addr into @out
 * (e.g. "rd mr mw me rr"); returns 0, or -1 if no VMA contains it.
 */
static inline int vmflags_at(const void *addr, char *out, size_t size)
{
	uintptr_t a = (uintptr_t)addr, s, e;
	char line[4096];
	int in = 0, ret = -1;
	FILE *f = fopen("/proc/self/smaps", "re");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx ", &s, &e) == 2 && strchr(line, '-') &&
		    line[0] != 'V') {
			in = a >= s && a < e;
			continue;
		}
		if (in && !strncmp(line, "VmFlags:", 8)) {
			size_t n = strcspn(line + 8, "\n");

			if (n > size - 2)
				n = size - 2;
			memcpy(out, line + 8, n);
			out[n] = ' ';
			out[n + 1] = '\0';
			ret = 0;
			break;
		}
	}
	fclose(f);
	return ret;
}

/* has_flag - 1 if the two-letter flag @fl is in VmFlags at @addr. */
static inline int has_flag(const void *addr, const char *fl)
{
	char flags[512], pat[8];

	if (vmflags_at(addr, flags, sizeof(flags)))
		return -1;
	snprintf(pat, sizeof(pat), " %s ", fl);
	return strstr(flags, pat) != NULL;
}

#endif /* ADVSHIM_TEST_VMFLAGS_H */
