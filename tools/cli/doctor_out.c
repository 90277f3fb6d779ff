// SPDX-License-Identifier: MIT
/*
 * doctor_out.c - `advshim doctor`'s report, as text for people and as
 * one JSON object per host for fleets (schema: docs/doctor.md and
 * advshim(1); keep the three in step).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "common/json.h"
#include "tools/cli/doctor.h"
#include "tools/cli/shimstats.h"

#define MIB	(1024.0 * 1024.0)

static const char *advice_of(const struct doc_file *f)
{
	if (f->rr_vmas == f->vmas)
		return "rr";
	if (f->sr_vmas == f->vmas)
		return "sr";
	return "mixed";
}

static const char *reach_name(enum doc_reach r)
{
	switch (r) {
	case DOC_REACH_PRELOAD: return "preload";
	case DOC_REACH_STATIC: return "static";
	case DOC_REACH_GO: return "go";
	case DOC_REACH_SECURE: return "secure";
	case DOC_REACH_UNKNOWN: break;
	}
	return "unknown";
}

/* What root would add, one phrase each; NULL when nothing. */
static const char *root_would_add(const struct doctor *d, int i)
{
	const char *const what[] = {
		d->unreadable ? "the processes of other users" : NULL,
		d->k.mglru && d->k.lrugen_errno ? "the stall signature (debugfs lru_gen is root's)" : NULL,
	};

	return i < 2 ? what[i] : NULL;
}

/* ---- text ---- */

static void kernel_text(const struct doctor *d, FILE *f)
{
	const struct doc_kernel *k = &d->k;

	fprintf(f, "host %s, kernel %s\n", d->hostname,
		k->release[0] ? k->release : "(unknown)");
	if (!k->mglru) {
		fprintf(f, "  MGLRU not available (no /sys/kernel/mm/lru_gen)\n");
		return;
	}
	fprintf(f, "  MGLRU: enabled ");
	if (k->enabled < 0)
		fprintf(f, "unknown");
	else
		fprintf(f, "0x%04x (core %s, mm walk %s, non-leaf young %s)",
			(unsigned int)k->enabled, k->enabled & 1 ? "on" : "off",
			k->enabled & 2 ? "on" : "off", k->enabled & 4 ? "on" : "off");
	fprintf(f, ", min_ttl_ms %ld, debugfs %s: %s, lockdown %s\n",
		k->min_ttl_ms, k->full ? "lru_gen_full" : "lru_gen",
		k->lrugen_errno ? strerror(k->lrugen_errno) : "readable",
		k->lockdown[0] ? k->lockdown : "unknown");
	fprintf(f, "  stall on this series: %s (%s)\n",
		doc_series_name(k->series), doc_series_text(k->series));
}

static void watchers_text(const struct doctor *d, FILE *f)
{
	size_t i, j;

	if (!d->nr_watchers)
		fprintf(f, "  advshim-watch: not running\n");
	for (i = 0; i < d->nr_watchers; i++) {
		fprintf(f, "  advshim-watch: pid %d%s, memcgs:", d->watchers[i].pid,
			d->watchers[i].dry_run ? " (dry run: ages nothing)" : "");
		if (!d->watchers[i].nr_cgroups)
			fprintf(f, " all");
		for (j = 0; j < d->watchers[i].nr_cgroups; j++)
			fprintf(f, " %s", d->watchers[i].cgroups[j]);
		fputc('\n', f);
	}
}

static void stall_text(const struct doc_memcg *m, FILE *f)
{
	const struct doc_stall *s = &m->stall;

	if (!s->sampled) {
		if (s->err)
			fprintf(f, "  stall signature: not sampled (%s: %s)\n",
				s->what, strerror(s->err));
		return;
	}
	if (!s->listed) {
		fprintf(f, "  stall signature: memcg not in lru_gen\n");
		return;
	}
	fprintf(f, "  stall signature over %.1f s: %s (%s: %s); max_seq %lu -> %lu, %.0f file refaults/s, %lu of %lu file pages in generations above the oldest\n",
		(double)s->dt_ms / 1000, doc_stalled(m) ? "STALLED" :
		s->out.thrashing ? "thrashing, nothing stuck" : "no stall",
		det_verdict_name(s->out.verdict), s->out.why ? s->out.why : "-",
		s->max_seq0, s->max_seq1, s->refaults_per_s, s->stuck_pages,
		s->file_pages);
}

/*
 * advshim-watch's mark on @m (common/guard.h): shown when there is one,
 * and its absence or an error when a live watcher ages the memcg (the
 * shim there then cannot know it: docs/adaptive.md, "Guarded").
 */
static void mark_text(const struct doc_memcg *m, FILE *f)
{
	if (!m->mark_err)
		fprintf(f, "  advshim-watch's mark: %" PRIu64 " s old, %s\n",
			m->mark_age_s, m->guarded ?
			"fresh: the shim's adaptive rule here is guarded" :
			"stale (no watcher refreshes it): not guarded");
	else if (m->watched && m->mark_err == -ENODATA)
		fprintf(f, "  advshim-watch's mark: none, though a live watcher ages this memcg: the shim here cannot see it (read the watcher's log; under systemd, ReadWritePaths= for this cgroup)\n");
	else if (m->watched)
		fprintf(f, "  advshim-watch's mark: unreadable (%s)\n",
			strerror(-m->mark_err));
}

static void memcg_text(const struct doc_memcg *m, FILE *f)
{
	fprintf(f, "memcg %s (cgroup v%d): ", m->w.path, m->w.version);
	if (m->fig_err) {
		fprintf(f, "figures unreadable (%s)\n", strerror(-m->fig_err));
	} else if (!m->has_rr) {
		fprintf(f, "no process here maps files with RANDOM/SEQUENTIAL advice\n");
	} else {
		if (m->fig.limit == CG_UNLIMITED)
			fprintf(f, "no limit");
		else
			fprintf(f, "limit %.1f MiB", (double)m->fig.limit / MIB);
		fprintf(f, ", room for page cache %.1f MiB, RANDOM/SEQUENTIAL files %.1f MiB (%u%%): %s\n",
			(double)m->av.capacity / MIB, (double)m->need / MIB,
			m->av.ratio_pct, doc_fit_name(m));
	}
	mark_text(m, f);
	stall_text(m, f);
}

/* What doctor says of one process, in either format. */
struct proc_said {
	enum doc_verdict v;
	const char *why;		/* the shim not active: why; or NULL */
	char reason[512];		/* doc_reason() of v */
};

static void proc_say(const struct doctor *d, const struct doc_proc *p,
		     struct proc_said *s)
{
	s->v = doc_verdict(d, p);
	s->why = doc_shim_why_not(p);
	doc_reason(d, p, s->v, s->reason, sizeof(s->reason));
}

static void proc_text(const struct doctor *d, const struct doc_proc *p,
		      FILE *f)
{
	struct proc_said s;
	size_t i;

	proc_say(d, p, &s);
	fprintf(f, "pid %d (%s) %s, memcg %s\n", p->pid, p->comm,
		p->exe[0] ? p->exe : "(executable unreadable)",
		p->cg_err ? "unknown" : p->cg.path);
	for (i = 0; i < p->nr_files; i++) {
		if (p->files[i].size >= 0)
			fprintf(f, "  %-5s %9.1f MiB  %s\n", advice_of(&p->files[i]),
				(double)p->files[i].size / MIB, p->files[i].path);
		else
			fprintf(f, "  %-5s %9s      %s\n", advice_of(&p->files[i]),
				"?", p->files[i].path);
	}
	fprintf(f, "  shim: %s%s\n", s.why ? "not active: " : "active",
		s.why ? s.why : "");
	fprintf(f, "  verdict: %s%s%s\n", doc_verdict_name(s.v),
		s.reason[0] ? ": " : "", s.reason);
	if (s.v == DOC_V_EXPOSED || s.v == DOC_V_STALLED) {
		fprintf(f, "  remedy:\n");
		doc_remedy(d, p, "    ", false, f);
	}
}

void doc_print_text(const struct doctor *d, int status, FILE *f)
{
	const char *w;
	size_t i;
	int k;

	kernel_text(d, f);
	watchers_text(d, f);
	for (i = 0; i < d->nr_memcgs; i++)
		memcg_text(d->memcgs[i], f);
	for (i = 0; i < d->nr_procs; i++)
		proc_text(d, &d->procs[i], f);
	if (!d->nr_procs)
		fprintf(f, "no process has file mappings with RANDOM/SEQUENTIAL advice in force, none has the shim loaded\n");
	if (d->unreadable)
		fprintf(f, "%u processes not readable (other users')\n", d->unreadable);
	for (k = 0; (w = root_would_add(d, k)) || k < 2; k++)
		if (w && !d->is_root)
			fprintf(f, "not root: running as root would add %s\n", w);
	if (!d->k.mglru)
		fprintf(f, "MGLRU not available: not affected\n");
	else
		fprintf(f, "%s\n", status ? "affected: some processes are not covered (see remedy)" :
			"not affected (or covered)");
}

/* ---- JSON ---- */

static void kernel_json(const struct doctor *d, FILE *f)
{
	const struct doc_kernel *k = &d->k;

	fprintf(f, "\"kernel\":{\"release\":");
	json_put_string(f, k->release);
	fprintf(f, ",\"mglru\":%s,\"enabled\":%d,\"min_ttl_ms\":%ld,\"debugfs\":",
		k->mglru ? "true" : "false", k->enabled, k->min_ttl_ms);
	json_put_string(f, k->lrugen_errno ? strerror(k->lrugen_errno) : "readable");
	fprintf(f, ",\"lockdown\":");
	json_put_string(f, k->lockdown[0] ? k->lockdown : "unknown");
	fprintf(f, ",\"stall_series\":\"%s\",\"stall_note\":", doc_series_name(k->series));
	json_put_string(f, doc_series_text(k->series));
	fputc('}', f);
}

static void watchers_json(const struct doctor *d, FILE *f)
{
	size_t i, j;

	fprintf(f, ",\"watchers\":[");
	for (i = 0; i < d->nr_watchers; i++) {
		fprintf(f, "%s{\"pid\":%d,\"dry_run\":%s,\"cgroups\":[", i ? "," : "",
			d->watchers[i].pid, d->watchers[i].dry_run ? "true" : "false");
		for (j = 0; j < d->watchers[i].nr_cgroups; j++) {
			fputs(j ? "," : "", f);
			json_put_string(f, d->watchers[i].cgroups[j]);
		}
		fprintf(f, "]}");
	}
	fputc(']', f);
}

static void stall_json(const struct doc_memcg *m, FILE *f)
{
	const struct doc_stall *s = &m->stall;

	fprintf(f, ",\"stall\":{\"sampled\":%s", s->sampled ? "true" : "false");
	if (s->err) {
		fprintf(f, ",\"error\":");
		json_put_string(f, strerror(s->err));
		fprintf(f, ",\"error_in\":");
		json_put_string(f, s->what);
	}
	if (s->sampled)
		fprintf(f, ",\"listed\":%s,\"sample_ms\":%" PRIu64
			",\"thrashing\":%s,\"stalled\":%s,\"detector\":\"%s\",\"max_seq\":[%lu,%lu],\"refaults_per_s\":%.1f,\"stuck_pages\":%lu,\"file_pages\":%lu",
			s->listed ? "true" : "false", s->dt_ms,
			s->out.thrashing ? "true" : "false",
			doc_stalled(m) ? "true" : "false",
			det_verdict_name(s->out.verdict), s->max_seq0, s->max_seq1,
			s->refaults_per_s, s->stuck_pages, s->file_pages);
	fputc('}', f);
}

static void memcg_json(const struct doc_memcg *m, FILE *f)
{
	fprintf(f, "{\"path\":");
	json_put_string(f, m->w.path);
	fprintf(f, ",\"cgroup_version\":%d,\"need_bytes\":%" PRIu64, m->w.version, m->need);
	if (!m->fig_err) {
		if (m->fig.limit == CG_UNLIMITED)
			fprintf(f, ",\"limit_bytes\":null");
		else
			fprintf(f, ",\"limit_bytes\":%" PRIu64, m->fig.limit);
		fprintf(f, ",\"usage_bytes\":%" PRIu64 ",\"file_bytes\":%" PRIu64
			",\"capacity_bytes\":%" PRIu64 ",\"ratio_pct\":%u",
			m->fig.usage, m->file_bytes, m->av.capacity, m->av.ratio_pct);
	}
	fprintf(f, ",\"fit\":\"%s\",\"watched\":%s", doc_fit_name(m),
		m->watched ? "true" : "false");
	if (!m->mark_err)
		fprintf(f, ",\"mark_age_s\":%" PRIu64, m->mark_age_s);
	else
		fprintf(f, ",\"mark_age_s\":null");
	fprintf(f, ",\"guarded\":%s", m->guarded ? "true" : "false");
	if (m->mark_err && m->mark_err != -ENODATA) {
		fprintf(f, ",\"mark_error\":");
		json_put_string(f, strerror(-m->mark_err));
	}
	stall_json(m, f);
	fputc('}', f);
}

static void proc_json(const struct doctor *d, const struct doc_proc *p,
		      FILE *f)
{
	struct proc_said s;
	size_t i;

	proc_say(d, p, &s);
	fprintf(f, "{\"pid\":%d,\"comm\":", p->pid);
	json_put_string(f, p->comm);
	fprintf(f, ",\"exe\":");
	json_put_string(f, p->exe);
	fprintf(f, ",\"memcg\":");
	if (p->cg_err)
		fprintf(f, "null");
	else
		json_put_string(f, p->cg.path);
	fprintf(f, ",\"files\":[");
	for (i = 0; i < p->nr_files; i++) {
		fprintf(f, "%s{\"path\":", i ? "," : "");
		json_put_string(f, p->files[i].path);
		fprintf(f, ",\"size_bytes\":%" PRId64 ",\"advice\":\"%s\",\"vmas\":%u}",
			p->files[i].size, advice_of(&p->files[i]), p->files[i].vmas);
	}
	fprintf(f, "],\"shim\":{\"loaded\":%s,\"active\":%s,\"state\":",
		p->shim_mapped ? "true" : "false", s.why ? "false" : "true");
	json_put_string(f, p->shim_state >= 0 ? shimstats_state_name(p->shim_state) : "none");
	if (s.why) {
		fprintf(f, ",\"why_not\":");
		json_put_string(f, s.why);
	}
	fprintf(f, "},\"reach\":\"%s\",\"seccomp_supervisor\":%d,\"verdict\":\"%s\",\"affected\":%s,\"covered\":%s,\"reason\":",
		reach_name(p->reach), p->seccomp, doc_verdict_name(s.v),
		s.v == DOC_V_EXPOSED || s.v == DOC_V_STALLED ? "true" : "false",
		s.v == DOC_V_SHIM || s.v == DOC_V_WATCHER ||
		s.v == DOC_V_SECCOMP ? "true" : "false");
	json_put_string(f, s.reason);
	fprintf(f, ",\"remedy\":[");
	doc_remedy(d, p, "", true, f);
	fprintf(f, "]}");
}

void doc_print_json(const struct doctor *d, int status, FILE *f)
{
	const char *w;
	size_t i;
	int k, n = 0;

	fprintf(f, "{\"schema\":1,\"host\":");
	json_put_string(f, d->hostname);
	fprintf(f, ",\"root\":%s,", d->is_root ? "true" : "false");
	kernel_json(d, f);
	watchers_json(d, f);
	fprintf(f, ",\"memcgs\":[");
	for (i = 0; i < d->nr_memcgs; i++) {
		fputs(i ? "," : "", f);
		memcg_json(d->memcgs[i], f);
	}
	fprintf(f, "],\"processes\":[");
	for (i = 0; i < d->nr_procs; i++) {
		fputs(i ? "," : "", f);
		proc_json(d, &d->procs[i], f);
	}
	fprintf(f, "],\"unreadable_processes\":%u,\"root_would_add\":[", d->unreadable);
	for (k = 0; k < 2; k++)
		if ((w = root_would_add(d, k)) && !d->is_root) {
			fputs(n++ ? "," : "", f);
			json_put_string(f, w);
		}
	fprintf(f, "],\"verdict\":\"%s\",\"exit\":%d}\n",
		!d->k.mglru ? "MGLRU not available: not affected" :
		status ? "affected" : "not affected", status);
}
