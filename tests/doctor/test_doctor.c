// SPDX-License-Identifier: MIT
/*
 * test_doctor.c - the pure parts of `advshim doctor`: ELF classification
 * (real executables of this build and a minimal Go-like image), the
 * series rule against the lab's captured kernel versions, the kernel
 * facts read below a root built from tests/fixtures/kernels, the
 * verdict and remedy for each kind of process, and the shim's counters
 * read from a region in this process (shimstats.c), current and older.
 */
#include <criterion/criterion.h>
#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/readfile.h"
#include "shim/stats_layout.h"
#include "tools/cli/doctor.h"
#include "tools/cli/shimstats.h"

#define FIXDIR "tests/fixtures/kernels"

static const char *build_dir(void)
{
	const char *b = getenv("DOCTOR_BUILD");

	return b && *b ? b : "build";
}

Test(elf, this_test_is_dynamic_and_not_go)
{
	bool st = true, go = true;

	cr_assert_eq(doc_elf_file("/proc/self/exe", &st, &go), 0, "%s", strerror(errno));
	cr_assert_not(st);
	cr_assert_not(go);
}

Test(elf, the_static_test_program_is_static)
{
	char path[512];
	bool st = false, go = true;

	snprintf(path, sizeof(path), "%s/tests/doctor/rrprog-static", build_dir());
	cr_assert_eq(doc_elf_file(path, &st, &go), 0, "%s: %s", path, strerror(errno));
	cr_assert(st, "%s has no PT_INTERP: static", path);
	cr_assert_not(go);
}

Test(elf, not_elf_and_truncated_are_enoexec)
{
	char junk[256];
	bool st, go;
	char *img;
	size_t len;

	memset(junk, 'x', sizeof(junk));
	errno = 0;
	cr_assert_eq(doc_elf_classify(junk, sizeof(junk), &st, &go), -1);
	cr_assert_eq(errno, ENOEXEC);
	cr_assert_eq(read_file("/proc/self/exe", &img, &len, 0), 0);
	/* The header survives, the program headers do not. */
	errno = 0;
	cr_assert_eq(doc_elf_classify(img, sizeof(Elf64_Ehdr) + 8, &st, &go), -1);
	cr_assert_eq(errno, ENOEXEC);
	free(img);
}

/* A minimal ELF64: no program headers, sections null, .shstrtab, @name. */
static size_t mini_elf(unsigned char *buf, size_t size, const char *name)
{
	Elf64_Ehdr *h = (void *)buf;
	Elf64_Shdr *sh;
	char strtab[64];
	size_t slen, off;

	memset(buf, 0, size);
	slen = (size_t)snprintf(strtab, sizeof(strtab), "%c.shstrtab%c%s", 0, 0, name) + 1;
	memcpy(h->e_ident, ELFMAG, SELFMAG);
	h->e_ident[EI_CLASS] = ELFCLASS64;
	h->e_ident[EI_DATA] = ELFDATA2LSB;
	off = sizeof(*h);
	memcpy(buf + off, strtab, slen);
	h->e_shoff = (off + slen + 7) & ~7UL;
	h->e_shentsize = sizeof(Elf64_Shdr);
	h->e_shnum = 3;
	h->e_shstrndx = 1;
	sh = (void *)(buf + h->e_shoff);
	sh[1].sh_name = 1;
	sh[1].sh_type = SHT_STRTAB;
	sh[1].sh_offset = off;
	sh[1].sh_size = slen;
	sh[2].sh_name = 11;
	sh[2].sh_type = SHT_NOTE;
	sh[2].sh_offset = off;
	sh[2].sh_size = 0;
	return h->e_shoff + 3 * sizeof(Elf64_Shdr);
}

Test(elf, go_sections_are_go)
{
	static unsigned char buf[1024] __attribute__((aligned(8)));
	bool st = false, go = false;
	size_t n;

	n = mini_elf(buf, sizeof(buf), ".note.go.buildid");
	cr_assert_eq(doc_elf_classify(buf, n, &st, &go), 0);
	cr_assert(go);
	cr_assert(st, "no PT_INTERP: static");
	n = mini_elf(buf, sizeof(buf), ".go.buildinfo");
	cr_assert_eq(doc_elf_classify(buf, n, &st, &go), 0);
	cr_assert(go);
	n = mini_elf(buf, sizeof(buf), ".note.gnu.build");
	cr_assert_eq(doc_elf_classify(buf, n, &st, &go), 0);
	cr_assert_not(go);
	/* a section table cut short is not trusted */
	n = mini_elf(buf, sizeof(buf), ".note.go.buildid");
	cr_assert_eq(doc_elf_classify(buf, n - 10, &st, &go), 0);
	cr_assert_not(go);
}

Test(series, the_lab_rule)
{
	static const struct { int ma, mi; enum doc_series s; } t[] = {
		{ 5, 15, DOC_SER_OLD }, { 6, 0, DOC_SER_OLD },
		{ 6, 1, DOC_SER_AGES }, { 6, 2, DOC_SER_AGES },
		{ 6, 3, DOC_SER_STALLS }, { 6, 12, DOC_SER_STALLS },
		{ 6, 19, DOC_SER_STALLS }, { 7, 0, DOC_SER_SOMETIMES },
		{ 7, 3, DOC_SER_SOMETIMES },
	};
	struct kver v;
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		v.major = t[i].ma;
		v.minor = t[i].mi;
		cr_assert_eq(doc_series_of(&v), t[i].s, "%d.%d", t[i].ma, t[i].mi);
	}
}

/* A root with one series' captured kernel files; its path in @root. */
static void make_root(char *root, size_t size, const char *ser, bool mglru)
{
	static const char *const dirs[] = {
		"/proc", "/proc/sys", "/proc/sys/kernel", "/sys", "/sys/kernel",
		"/sys/kernel/mm", "/sys/kernel/mm/lru_gen", "/sys/kernel/debug",
	};
	char path[1024], rel[128], *buf;
	size_t i, len, n = mglru ? sizeof(dirs) / sizeof(dirs[0]) : 3;

	snprintf(root, size, "/tmp/advshim-doctor-unit.XXXXXX");
	cr_assert_not_null(mkdtemp(root));
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s%s", root, dirs[i]);
		cr_assert_eq(mkdir(path, 0755), 0, "%s", path);
	}
	snprintf(rel, sizeof(rel), "%s/version", ser);
	cr_assert_eq(read_file_at(FIXDIR, rel, &buf, &len, 0), 0);
	cr_assert_eq(write_file_at(root, "/proc/sys/kernel/osrelease", buf, len, 1), 0);
	free(buf);
	if (!mglru)
		return;
	snprintf(rel, sizeof(rel), "%s/enabled", ser);
	cr_assert_eq(read_file_at(FIXDIR, rel, &buf, &len, 0), 0);
	cr_assert_eq(write_file_at(root, "/sys/kernel/mm/lru_gen/enabled", buf, len, 1), 0);
	free(buf);
	cr_assert_eq(write_file_at(root, "/sys/kernel/mm/lru_gen/min_ttl_ms", "0\n", 2, 1), 0);
	cr_assert_eq(write_file_at(root, "/sys/kernel/debug/lru_gen", "", 0, 1), 0);
}

Test(kernel, facts_from_the_captures)
{
	static const struct { const char *ser; enum doc_series s; } t[] = {
		{ "6.1", DOC_SER_AGES }, { "6.12", DOC_SER_STALLS },
		{ "7.2", DOC_SER_SOMETIMES }, { "7.3", DOC_SER_SOMETIMES },
	};
	struct doc_kernel k;
	char root[64], cmd[128];
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		make_root(root, sizeof(root), t[i].ser, true);
		doc_kernel_read(root, &k);
		cr_assert(k.mglru && k.have_v, "%s", t[i].ser);
		cr_assert_eq(k.enabled, 7, "%s: enabled %d", t[i].ser, k.enabled);
		cr_assert_eq(k.min_ttl_ms, 0);
		cr_assert_eq(k.series, t[i].s, "%s", t[i].ser);
		cr_assert_eq(k.lrugen_errno, 0);
		cr_assert_not(k.full, "only lru_gen in this tree");
		cr_assert(doc_kernel_exposed(&k) == (t[i].s != DOC_SER_AGES));
		snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
		cr_assert_eq(system(cmd), 0);
	}
	make_root(root, sizeof(root), "6.12", false);
	doc_kernel_read(root, &k);
	cr_assert_not(k.mglru);
	cr_assert_eq(k.enabled, -1);
	cr_assert_eq(k.lrugen_errno, ENOENT);
	cr_assert_not(doc_kernel_exposed(&k));
	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	cr_assert_eq(system(cmd), 0);
}

/* ---- verdicts and remedies ---- */

static struct doc_file file1 = { .path = "/srv/idx/_0.vec", .inode = 12,
				 .size = 100 << 20, .vmas = 2, .rr_vmas = 2 };

static void host(struct doctor *d, struct doc_memcg *m, struct doc_proc *p,
		 int minor)
{
	memset(d, 0, sizeof(*d));
	memset(m, 0, sizeof(*m));
	memset(p, 0, sizeof(*p));
	d->k.mglru = true;
	d->k.enabled = 7;
	d->k.v.major = 6;
	d->k.v.minor = minor;
	d->k.have_v = true;
	d->k.series = doc_series_of(&d->k.v);
	d->shim_lib = "/usr/lib/x86_64-linux-gnu/libadvshim.so";
	m->w.version = CG_V2;
	snprintf(m->w.path, sizeof(m->w.path), "/system.slice/opensearch.service");
	m->av.reason = ADAPT_R_FITS;
	p->pid = 42;
	snprintf(p->exe, sizeof(p->exe), "/usr/bin/java");
	p->cg = m->w;
	p->mc = m;
	p->files = &file1;
	p->nr_files = 1;
	p->shim_state = -1;
	p->reach = DOC_REACH_PRELOAD;
}

static char *remedy(const struct doctor *d, const struct doc_proc *p)
{
	char *text = NULL;
	size_t len;
	FILE *f = open_memstream(&text, &len);

	cr_assert_not_null(f);
	doc_remedy(d, p, "", false, f);
	fclose(f);
	return text;
}

Test(verdict, each_kind_of_process)
{
	struct doctor d;
	struct doc_memcg m;
	struct doc_proc p;

	host(&d, &m, &p, 12);
	cr_assert_eq(doc_verdict(&d, &p), DOC_V_EXPOSED);
	m.stall.sampled = true;
	m.stall.out.thrashing = true;
	m.stall.out.verdict = DET_AGE;
	cr_assert_eq(doc_verdict(&d, &p), DOC_V_STALLED);
	m.watched = true;	/* a watcher on a memcg stalled now: not covered */
	cr_assert_eq(doc_verdict(&d, &p), DOC_V_STALLED);
	m.watched = false;
	m.stall.out.verdict = DET_NOTHING_EXPOSED;	/* does not fit: no fold helps */
	cr_assert_eq(doc_verdict(&d, &p), DOC_V_EXPOSED);
	m.watched = true;
	cr_assert_eq(doc_verdict(&d, &p), DOC_V_WATCHER);

	host(&d, &m, &p, 1);
	cr_assert_eq(doc_verdict(&d, &p), DOC_V_NOT_AFFECTED, "6.1 ages by itself");
	host(&d, &m, &p, 12);
	d.k.enabled = 0;
	cr_assert_eq(doc_verdict(&d, &p), DOC_V_NOT_AFFECTED, "MGLRU off");
	host(&d, &m, &p, 12);
	d.k.mglru = false;
	cr_assert_eq(doc_verdict(&d, &p), DOC_V_NOT_AFFECTED, "no MGLRU");

	host(&d, &m, &p, 12);
	p.nr_files = 0;
	p.shim_mapped = true;
	p.shim_state = ADVSHIM_STATE_ACTIVE;
	cr_assert_eq(doc_verdict(&d, &p), DOC_V_SHIM);
	cr_assert_null(doc_shim_why_not(&p));
	p.shim_disabled = true;		/* the kill switch: not the shim's cover */
	cr_assert_eq(doc_verdict(&d, &p), DOC_V_NOT_AFFECTED);
	cr_assert_not_null(strstr(doc_shim_why_not(&p), "kill switch"));
	p.shim_disabled = false;
	p.shim_state = ADVSHIM_STATE_CONFIG_ERROR;
	cr_assert_eq(doc_verdict(&d, &p), DOC_V_NOT_AFFECTED);
	cr_assert_not_null(strstr(doc_shim_why_not(&p), "did not parse"));

	/* A Go process under advshim run --seccomp, no rr left: covered. */
	host(&d, &m, &p, 12);
	p.nr_files = 0;
	p.reach = DOC_REACH_GO;
	cr_assert_eq(doc_verdict(&d, &p), DOC_V_NOT_AFFECTED);
	p.seccomp = 4242;
	cr_assert_eq(doc_verdict(&d, &p), DOC_V_SECCOMP);
	cr_assert_not_null(strstr(doc_shim_why_not(&p), "advshim run --seccomp"));
	p.nr_files = 1;		/* rr left (a keep rule): affected */
	cr_assert_eq(doc_verdict(&d, &p), DOC_V_EXPOSED);
}

Test(remedy, the_shim_for_a_service_that_fits)
{
	struct doctor d;
	struct doc_memcg m;
	struct doc_proc p;
	char *r;

	host(&d, &m, &p, 12);
	r = remedy(&d, &p);
	cr_assert_not_null(strstr(r, "/etc/systemd/system/opensearch.service.d/advshim.conf"), "%s", r);
	cr_assert_not_null(strstr(r, "Environment=LD_PRELOAD=/usr/lib/x86_64-linux-gnu/libadvshim.so"), "%s", r);
	cr_assert_not_null(strstr(r, "systemctl restart opensearch.service"), "%s", r);
	cr_assert_not_null(strstr(r, "ADVSHIM_WATCH_ARGS=--cgroup /system.slice/opensearch.service"), "%s", r);
	free(r);

	snprintf(p.cg.path, sizeof(p.cg.path), "/user.slice/session-3.scope");
	r = remedy(&d, &p);
	cr_assert_not_null(strstr(r, "LD_PRELOAD=/usr/lib/x86_64-linux-gnu/libadvshim.so /usr/bin/java"), "%s", r);
	free(r);
}

Test(remedy, the_watcher_when_the_shim_cannot_help)
{
	static const enum doc_reach reach[] = {
		DOC_REACH_STATIC, DOC_REACH_GO, DOC_REACH_SECURE,
	};
	struct doctor d;
	struct doc_memcg m;
	struct doc_proc p;
	size_t i;
	char *r;

	for (i = 0; i < 3; i++) {
		host(&d, &m, &p, 12);
		p.reach = reach[i];
		r = remedy(&d, &p);
		cr_assert_null(strstr(r, "LD_PRELOAD"), "%s", r);
		cr_assert_not_null(strstr(r, "advshim-watch.service.d"), "%s", r);
		free(r);
	}
	/* Static and Go whose files fit: --seccomp first, then the watcher. */
	for (i = 0; i < 2; i++) {
		host(&d, &m, &p, 12);
		p.reach = reach[i];
		r = remedy(&d, &p);
		cr_assert_not_null(strstr(r, "advshim run --seccomp -- /usr/bin/java"), "%s", r);
		cr_assert_not_null(strstr(r, "advshim-watch.service.d"), "%s", r);
		free(r);
		p.seccomp = 4242;	/* supervised and still rr: it keeps RANDOM */
		r = remedy(&d, &p);
		cr_assert_null(strstr(r, "advshim run --seccomp --"), "%s", r);
		cr_assert_not_null(strstr(r, "--seccomp keeps RANDOM here"), "%s", r);
		free(r);
	}
	host(&d, &m, &p, 12);
	p.reach = DOC_REACH_SECURE;	/* no_new_privs would break it */
	r = remedy(&d, &p);
	cr_assert_null(strstr(r, "--seccomp"), "%s", r);
	free(r);
	host(&d, &m, &p, 12);
	m.av.reason = ADAPT_R_NOFIT;	/* the shim would keep RANDOM */
	r = remedy(&d, &p);
	cr_assert_null(strstr(r, "LD_PRELOAD="), "%s", r);
	cr_assert_not_null(strstr(r, "do not fit"), "%s", r);
	free(r);
	host(&d, &m, &p, 12);
	p.shim_mapped = true;		/* loaded, kill switch on */
	p.shim_state = ADVSHIM_STATE_ACTIVE;
	p.shim_disabled = true;
	r = remedy(&d, &p);
	cr_assert_not_null(strstr(r, "kill switch is on"), "%s", r);
	cr_assert_null(strstr(r, "LD_PRELOAD="), "%s", r);
	free(r);
	host(&d, &m, &p, 12);
	m.watched = true;		/* covered: nothing to do */
	r = remedy(&d, &p);
	cr_assert_str_eq(r, "");
	free(r);
	m.stall.sampled = m.stall.out.thrashing = true;	/* ... unless stalled */
	m.stall.out.verdict = DET_AGE;
	r = remedy(&d, &p);
	cr_assert_not_null(strstr(r, "stalled now: read its log"), "%s", r);
	free(r);
}

/*
 * A region of @version and @size bytes at the start of two regions' worth
 * of 0xab (what lies past an older library's region: other mappings);
 * passed[0][4] (madvise DONTNEED) 7.
 */
static struct advshim_stats *fake_region(uint32_t version, size_t size)
{
	struct advshim_stats *s;
	size_t len = 2 * sizeof(struct advshim_stats);

	s = mmap(NULL, len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	cr_assert_neq(s, MAP_FAILED);
	memset(s, 0xab, len);
	memset(s, 0, size);
	s->magic = ADVSHIM_STATS_MAGIC;
	s->version = version;
	s->size = (uint32_t)size;
	s->passed[0][4] = 7;
	return s;
}

Test(shimstats, the_slots_are_added_to_the_counters)
{
	struct advshim_stats *s = fake_region(ADVSHIM_STATS_VERSION,
					      sizeof(*s)), st;
	const char *why = NULL;
	bool adapt = false;

	s->slots[3].owner = 1234;
	s->slots[3].passed[0][4] = 5;
	s->slots[9].passed[0][4] = 2;	/* free, counts kept */
	s->slots[9].kept = 4;
	cr_assert_eq(shimstats_read(NULL, getpid(), (uintptr_t)s, &st, &adapt,
				    &why), 0, "%s", why);
	cr_assert(adapt);
	cr_assert_eq(st.passed[0][4], 14);
	cr_assert_eq(st.kept, 4);
}

Test(shimstats, an_older_page_reads_as_far_as_its_size)
{
	size_t v2 = offsetof(struct advshim_stats, slots);
	struct advshim_stats *s = fake_region(2, v2), st;
	const char *why = NULL;
	bool adapt = false;

	cr_assert_eq(shimstats_read(NULL, getpid(), (uintptr_t)s, &st, &adapt,
				    &why), 0, "%s", why);
	cr_assert(adapt);
	cr_assert_eq(st.passed[0][4], 7);
	cr_assert_eq(st.slots[0].owner, 0);
	cr_assert_eq(st.kept, 0);

	s = fake_region(1, ADVSHIM_STATS_V1_SIZE);
	cr_assert_eq(shimstats_read(NULL, getpid(), (uintptr_t)s, &st, &adapt,
				    &why), 0, "%s", why);
	cr_assert_not(adapt);
	cr_assert_eq(st.passed[0][4], 7);
	cr_assert_eq(st.adapt.seq, 0);
}
