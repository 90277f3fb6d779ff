/* SPDX-License-Identifier: MIT */
/*
 * smaps.h - /proc/PID/smaps (and /proc/PID/maps) text, one mapping at a
 * time: what advshim reads to see which advice the kernel has in force
 * (VmFlags rr = MADV_RANDOM, sr = MADV_SEQUENTIAL).
 *
 * Format (fs/proc/task_mmu.c show_map_vma, show_smap):
 *   "%08lx-%08lx %c%c%c%c %08llx %02x:%02x %lu " then, for a named
 *   mapping, padding spaces and the name (a path, "[heap]", ...; a newline
 *   in a path is printed as "\012");
 *   then, in smaps only, "Key:   value" lines (Rss: N kB, ...) ending with
 *   "VmFlags: xx yy " (two-letter mnemonics, each followed by a space).
 *
 * The reader takes a buffer (not necessarily NUL-terminated), allocates
 * nothing, uses no stdio and takes no locks, so a forked child may use it
 * too.  It is strict: a line that is neither a mapping header nor a
 * "Key:" line, a malformed header, a VmFlags token that is not two
 * characters, or a last line without its newline (a cut read) stops the
 * walk with an error.
 */
#ifndef ADVSHIM_COMMON_SMAPS_H
#define ADVSHIM_COMMON_SMAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One mapping.  Pointers point into the parsed buffer. */
struct smaps_vma {
	uint64_t start, end;		/* [start, end) */
	char perms[5];			/* "r-xp" */
	uint64_t offset;		/* file offset of start */
	unsigned int dev_major;		/* the file's device, MAJ:MIN */
	unsigned int dev_minor;
	uint64_t inode;			/* 0: not a file */
	const char *path;		/* name; not NUL-terminated */
	size_t path_len;		/* 0: anonymous, no name */
	bool has_rss;
	uint64_t rss_kib;
	const char *flags;		/* VmFlags text, NULL when absent */
	size_t flags_len;
};

/* Walk state: set up by smaps_begin(), advanced by smaps_next(). */
struct smaps_cursor {
	const char *p, *end;
	unsigned int line;		/* lines consumed; after an error: it */
};

/* smaps_begin - start walking the @len bytes at @buf.  Cannot fail. */
void smaps_begin(struct smaps_cursor *c, const char *buf, size_t len);

/*
 * smaps_next - the next mapping into *vma.  Returns 1 with a mapping, 0
 * at the end of the text, -1 on text that is not smaps (c->line is the
 * 1-based line at fault; calling again is not allowed).
 */
int smaps_next(struct smaps_cursor *c, struct smaps_vma *vma);

/*
 * smaps_header - parse one mapping header line ("START-END PERMS OFFSET
 * MAJ:MIN INODE[ NAME]", without its newline: @len bytes at @line) into
 * *vma, for readers that stream /proc/PID/maps line by line through a
 * small buffer.  Returns 0, or -1 when the line is not a header.
 */
int smaps_header(const char *line, size_t len, struct smaps_vma *vma);

/* smaps_has_flag - is the two-letter @flag ("rr") in @vma's VmFlags? */
bool smaps_has_flag(const struct smaps_vma *vma, const char *flag);

/* smaps_path_is - is @vma's name exactly the NUL-terminated @path? */
bool smaps_path_is(const struct smaps_vma *vma, const char *path);

/*
 * smaps_paths_flag - for each of the @n NUL-terminated @paths, set
 * @state[i] to 1 if some mapping of it has VmFlags @flag, 0 if it is
 * mapped but none has, -1 if it is not mapped.  Returns how many paths are
 * mapped, or -1 on text that is not smaps (@state then unspecified).
 */
int smaps_paths_flag(const char *buf, size_t len, const char *const *paths,
		     size_t n, const char *flag, int *state);

/*
 * smaps_flag_at - does the mapping containing address @addr have VmFlags
 * @flag?  1 yes, 0 no, -1 when no mapping contains it, it has no VmFlags
 * line, or the text is not smaps.
 */
int smaps_flag_at(const char *buf, size_t len, uint64_t addr,
		  const char *flag);

#endif /* ADVSHIM_COMMON_SMAPS_H */
