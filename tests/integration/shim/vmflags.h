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

/*
 * has_flag_nomalloc - has_flag() without stdio or malloc, for forked
 * children of threaded programs (the sanitizers' allocators are not
 * fork-safe).  Reads smaps into @buf (size @size).  1, 0, or -1.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

static inline int has_flag_nomalloc(const void *addr, const char *fl,
				    char *buf, size_t size)
{
	uintptr_t a = (uintptr_t)addr, s, e;
	size_t have = 0;
	ssize_t n;
	char *line, *nl, *end;
	int fd = open("/proc/self/smaps", O_RDONLY | O_CLOEXEC), in = 0;

	if (fd < 0)
		return -1;
	while (have < size - 1 && (n = read(fd, buf + have, size - 1 - have)) > 0)
		have += (size_t)n;
	close(fd);
	buf[have] = '\0';
	for (line = buf; *line; line = nl + 1) {
		nl = strchr(line, '\n');
		if (!nl)
			break;
		*nl = '\0';
		s = strtoul(line, &end, 16);
		if (end != line && *end == '-') {
			e = strtoul(end + 1, NULL, 16);
			in = a >= s && a < e;
		} else if (in && !strncmp(line, "VmFlags:", 8)) {
			for (end = line + 8; (end = strstr(end, fl)); end += 2)
				if (end[-1] == ' ' && (end[2] == ' ' || !end[2]))
					return 1;
			return 0;
		}
	}
	return -1;
}

#endif /* ADVSHIM_TEST_VMFLAGS_H */
