// SPDX-License-Identifier: MIT
/*
 * doctor_elf.c - which executables LD_PRELOAD cannot reach: a static one
 * (no PT_INTERP: the dynamic loader never runs, nothing is preloaded) and
 * a Go one (the Go runtime makes mmap/madvise as raw syscalls, never
 * through libc, even when cgo links libc).  Go is recognised by the
 * sections the Go linker always writes (.note.go.buildid, .go.buildinfo,
 * kept by strip) or, failing those, the runtime.main symbol.
 *
 * Every offset read from the file is bounds-checked against the mapped
 * length: a truncated or hostile executable gives ENOEXEC, never a read
 * outside the image.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tools/cli/doctor.h"

/* The fields we use, from either ELF class. */
struct elf_view {
	const unsigned char *p;
	size_t len;
	bool is64;
	uint64_t phoff, shoff;
	unsigned int phnum, phentsize, shnum, shentsize, shstrndx;
};

struct elf_sect {
	uint32_t name, type, link;
	uint64_t off, size, entsize;
};

static bool in_image(const struct elf_view *e, uint64_t off, uint64_t n)
{
	return off <= e->len && n <= e->len - off;
}

/*
 * The header fields of ELF class header @h (an Elf32_Ehdr or Elf64_Ehdr,
 * checked to fit) into @e; 0, or -1 if program headers of that class
 * (@phdr_size bytes) do not fit the entry size it gives.
 */
#define LOAD_EHDR(e, h, phdr_size) ( \
	(e)->phoff = (h)->e_phoff, (e)->phnum = (h)->e_phnum, \
	(e)->phentsize = (h)->e_phentsize, (e)->shoff = (h)->e_shoff, \
	(e)->shnum = (h)->e_shnum, (e)->shentsize = (h)->e_shentsize, \
	(e)->shstrndx = (h)->e_shstrndx, \
	(e)->phentsize >= (phdr_size) || !(e)->phnum ? 0 : -1)

static int load_header(struct elf_view *e)
{
	if (e->len < sizeof(Elf32_Ehdr) || memcmp(e->p, ELFMAG, SELFMAG) ||
	    e->p[EI_DATA] != ELFDATA2LSB)
		return -1;
	e->is64 = e->p[EI_CLASS] == ELFCLASS64;
	if (e->is64)
		return e->len < sizeof(Elf64_Ehdr) ? -1 :
		       LOAD_EHDR(e, (const Elf64_Ehdr *)(const void *)e->p,
				 sizeof(Elf64_Phdr));
	if (e->p[EI_CLASS] != ELFCLASS32)
		return -1;
	return LOAD_EHDR(e, (const Elf32_Ehdr *)(const void *)e->p,
			 sizeof(Elf32_Phdr));
}

/* Does a program header say PT_INTERP?  -1: the table is out of bounds. */
static int has_interp(const struct elf_view *e)
{
	const unsigned char *ph;
	uint32_t type;
	unsigned int i;

	if (!in_image(e, e->phoff, (uint64_t)e->phnum * e->phentsize))
		return -1;
	for (i = 0; i < e->phnum; i++) {
		ph = e->p + e->phoff + (uint64_t)i * e->phentsize;
		memcpy(&type, ph, sizeof(type));	/* p_type: first */
		if (type == PT_INTERP)
			return 1;
	}
	return 0;
}

static int sect_at(const struct elf_view *e, unsigned int i,
		   struct elf_sect *s)
{
	const unsigned char *sh;

	if (i >= e->shnum || !in_image(e, e->shoff + (uint64_t)i * e->shentsize,
				       e->is64 ? sizeof(Elf64_Shdr) : sizeof(Elf32_Shdr)))
		return -1;
	sh = e->p + e->shoff + (uint64_t)i * e->shentsize;
	if (e->is64) {
		const Elf64_Shdr *h = (const void *)sh;

		*s = (struct elf_sect){ h->sh_name, h->sh_type, h->sh_link,
					h->sh_offset, h->sh_size, h->sh_entsize };
	} else {
		const Elf32_Shdr *h = (const void *)sh;

		*s = (struct elf_sect){ h->sh_name, h->sh_type, h->sh_link,
					h->sh_offset, h->sh_size, h->sh_entsize };
	}
	return in_image(e, s->off, s->type == SHT_NOBITS ? 0 : s->size) ? 0 : -1;
}

/* Is @off a NUL-terminated string equal to @want inside @strtab? */
static bool str_is(const struct elf_view *e, const struct elf_sect *strtab,
		   uint64_t off, const char *want)
{
	size_t n = strlen(want);

	return off < strtab->size && n < strtab->size - off &&
	       !memcmp(e->p + strtab->off + off, want, n + 1);
}

/* Does symbol table @sym (with its string table) define runtime.main? */
static bool has_symbol(const struct elf_view *e, const struct elf_sect *sym,
		       const char *want)
{
	struct elf_sect str;
	uint64_t i, n, esz = e->is64 ? sizeof(Elf64_Sym) : sizeof(Elf32_Sym);
	uint32_t name;

	if (sym->entsize < esz || sect_at(e, sym->link, &str))
		return false;
	n = sym->size / sym->entsize;
	for (i = 0; i < n; i++) {
		/* st_name is the first field in both classes. */
		memcpy(&name, e->p + sym->off + i * sym->entsize, sizeof(name));
		if (str_is(e, &str, name, want))
			return true;
	}
	return false;
}

static bool is_go(const struct elf_view *e)
{
	struct elf_sect names, s;
	unsigned int i;

	if (!e->shoff || sect_at(e, e->shstrndx, &names))
		return false;
	for (i = 1; i < e->shnum; i++) {
		if (sect_at(e, i, &s))
			return false;
		if (str_is(e, &names, s.name, ".note.go.buildid") ||
		    str_is(e, &names, s.name, ".go.buildinfo"))
			return true;
	}
	for (i = 1; i < e->shnum; i++)
		if (!sect_at(e, i, &s) && s.type == SHT_SYMTAB &&
		    has_symbol(e, &s, "runtime.main"))
			return true;
	return false;
}

int doc_elf_classify(const void *buf, size_t len, bool *is_static,
		     bool *go)
{
	struct elf_view e = { .p = buf, .len = len };
	int interp;

	if (load_header(&e) || (interp = has_interp(&e)) < 0) {
		errno = ENOEXEC;
		return -1;
	}
	*is_static = !interp;
	*go = is_go(&e);
	return 0;
}

int doc_elf_file(const char *path, bool *is_static, bool *go)
{
	struct stat st;
	void *p;
	int fd, r, err;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) || st.st_size <= 0) {
		err = errno ? errno : ENOEXEC;
		close(fd);
		errno = err;
		return -1;
	}
	p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	err = errno;
	close(fd);
	if (p == MAP_FAILED) {
		errno = err;
		return -1;
	}
	r = doc_elf_classify(p, (size_t)st.st_size, is_static, go);
	err = errno;
	munmap(p, (size_t)st.st_size);
	errno = err;
	return r;
}
