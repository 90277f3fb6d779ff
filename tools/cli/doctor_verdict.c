// SPDX-License-Identifier: MIT
/*
 * doctor_verdict.c - per process: is it affected, is it covered, and the
 * exact remedy.  Pure: it reads only what the scans recorded.
 *
 * Affected = MGLRU on, a kernel series that stalls, and file mappings
 * with rr or sr in force.  Covered = the shim is active and left no
 * rr/sr, `advshim run --seccomp` supervises it and left none, or a live
 * advshim-watch that can write lru_gen (not --dry-run, not under
 * lockdown, debugfs mounted) ages its memcg and the memcg is not stalled
 * now (a stalled memcg is never reported covered).  Static and Go binaries
 * whose files fit are offered --seccomp first.  The remedy is the shim
 * (a systemd drop-in for a service, else an environment line) when
 * LD_PRELOAD can reach the process and its files fit in its memcg (the
 * adaptive default then gives normal advice); otherwise the watcher on its
 * memcg (static and Go binaries, AT_SECURE, files that do not fit: there
 * the shim keeps RANDOM on purpose and only aging ends a stall).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "common/json.h"
#include "shim/stats_layout.h"
#include "tools/cli/doctor.h"

/* Loaded, its policy in force, and its kill switch off. */
static bool shim_active(const struct doc_proc *p)
{
	return p->shim_mapped && p->shim_state == ADVSHIM_STATE_ACTIVE &&
	       !p->shim_disabled;
}

enum doc_verdict doc_verdict(const struct doctor *d, const struct doc_proc *p)
{
	if (!d->k.mglru || d->k.enabled == 0 ||
	    (d->k.enabled > 0 && !(d->k.enabled & 1)))
		return DOC_V_NOT_AFFECTED;
	if (d->k.series == DOC_SER_AGES || d->k.series == DOC_SER_OLD)
		return DOC_V_NOT_AFFECTED;
	if (!p->nr_files)
		return shim_active(p) ? DOC_V_SHIM :
		       p->seccomp ? DOC_V_SECCOMP : DOC_V_NOT_AFFECTED;
	if (p->mc && doc_stalled(p->mc))
		return DOC_V_STALLED;
	if (p->mc && p->mc->watched)
		return DOC_V_WATCHER;
	return DOC_V_EXPOSED;
}

const char *doc_verdict_name(enum doc_verdict v)
{
	switch (v) {
	case DOC_V_NOT_AFFECTED: return "not affected";
	case DOC_V_SHIM: return "covered by the shim";
	case DOC_V_WATCHER: return "covered by advshim-watch";
	case DOC_V_SECCOMP: return "covered by advshim run --seccomp";
	case DOC_V_EXPOSED: return "affected, not covered";
	case DOC_V_STALLED: return "affected, stalled now";
	case DOC_V_UNKNOWN: break;
	}
	return "unknown";
}

const char *doc_shim_why_not(const struct doc_proc *p)
{
	if (shim_active(p))
		return NULL;
	if (p->shim_mapped) {
		if (p->shim_state == ADVSHIM_STATE_ACTIVE && p->shim_disabled)
			return "loaded, but its kill switch is on (ADVSHIM_DISABLE_FILE, default /run/advshim/disable, exists): passing everything through";
		if (p->shim_state == ADVSHIM_STATE_CONFIG_ERROR)
			return "loaded, but its policy did not parse: passing everything through";
		if (p->shim_state == ADVSHIM_STATE_NOT_SELECTED)
			return "loaded, but the policy's processes list does not select this executable";
		if (p->shim_state == ADVSHIM_STATE_STARTING)
			return "loaded, still starting";
		return p->stats_error ? p->stats_error : "loaded, no stats page (not initialised)";
	}
	if (p->seccomp)
		return "under advshim run --seccomp: its supervisor applies the policy to madvise(MADV_RANDOM) instead";
	switch (p->reach) {
	case DOC_REACH_GO:
		return "Go binary: its runtime makes mmap/madvise as raw syscalls, LD_PRELOAD cannot intercept them";
	case DOC_REACH_STATIC:
		return "static binary: no dynamic loader runs, LD_PRELOAD is ignored";
	case DOC_REACH_SECURE:
		return "AT_SECURE (setuid/setgid/capabilities): the loader ignores LD_PRELOAD paths and the shim its environment";
	case DOC_REACH_UNKNOWN:
		return "not loaded (its executable is unreadable: run as root to see why)";
	case DOC_REACH_PRELOAD:
		break;
	}
	if (p->preload == 1)
		return "LD_PRELOAD names libadvshim.so but it is not mapped (a wrong path?)";
	if (p->preload < 0)
		return "not loaded (its environment is unreadable: run as root to see why)";
	return "not in LD_PRELOAD";
}

static double mib(uint64_t b)
{
	return (double)b / (1024.0 * 1024.0);
}

static uint64_t mapped_bytes(const struct doc_proc *p)
{
	uint64_t n = 0;
	size_t i;

	for (i = 0; i < p->nr_files; i++)
		if (p->files[i].size > 0)
			n += (uint64_t)p->files[i].size;
	return n;
}

static void not_affected_reason(const struct doctor *d,
				const struct doc_proc *p, char *buf,
				size_t size)
{
	if (!d->k.mglru)
		snprintf(buf, size, "MGLRU not available (no /sys/kernel/mm/lru_gen)");
	else if (d->k.enabled >= 0 && !(d->k.enabled & 1))
		snprintf(buf, size, "MGLRU is off (lru_gen/enabled 0x%04x)",
			 (unsigned int)d->k.enabled);
	else if (d->k.series == DOC_SER_AGES || d->k.series == DOC_SER_OLD)
		snprintf(buf, size, "%s", doc_series_text(d->k.series));
	else if (!p->nr_files)
		snprintf(buf, size, "no RANDOM/SEQUENTIAL advice in force on its file mappings");
}

/* What the watchers do for @m, appended to a verdict's reason. */
static const char *watch_suffix(const struct doc_memcg *m, char *buf,
				size_t size)
{
	if (!m)
		return "";
	if (m->watched)
		snprintf(buf, size, "; a live advshim-watch ages it, yet it is stalled now");
	else if (m->watch_note)
		snprintf(buf, size, "; advshim-watch cannot age it: %s", m->watch_note);
	else
		return "";
	return buf;
}

void doc_reason(const struct doctor *d, const struct doc_proc *p,
		enum doc_verdict v, char *buf, size_t size)
{
	const struct doc_stall *s = p->mc ? &p->mc->stall : NULL;
	char note[160];

	buf[0] = '\0';
	switch (v) {
	case DOC_V_NOT_AFFECTED:
		not_affected_reason(d, p, buf, size);
		break;
	case DOC_V_SHIM:
		snprintf(buf, size, "libadvshim.so active, no RANDOM/SEQUENTIAL advice left in force (%" PRIu64 " calls rewritten)",
			 p->rewritten);
		break;
	case DOC_V_WATCHER:
		snprintf(buf, size, "a live advshim-watch ages memcg %s (not dry run, lru_gen writable) and it is not stalled now",
			 p->mc->w.path);
		break;
	case DOC_V_SECCOMP:
		snprintf(buf, size, "advshim run --seccomp (supervisor pid %d), no RANDOM/SEQUENTIAL advice left in force",
			 p->seccomp);
		break;
	case DOC_V_STALLED:
		snprintf(buf, size, "%.0f file refaults/s, max_seq %lu -> %lu in %.1f s, %lu of %lu file pages in generations above the oldest (%s)%s",
			 s->refaults_per_s, s->max_seq0, s->max_seq1,
			 (double)s->dt_ms / 1000, s->stuck_pages, s->file_pages,
			 s->out.why ? s->out.why : det_verdict_name(s->out.verdict),
			 watch_suffix(p->mc, note, sizeof(note)));
		break;
	case DOC_V_EXPOSED:
		snprintf(buf, size, "%zu file(s), %.1f MiB, mapped with RANDOM/SEQUENTIAL advice that MGLRU never ages; a cold read can stall them%s%s",
			 p->nr_files, mib(mapped_bytes(p)),
			 s && s->sampled && s->listed ? " (not stalled now)" : "",
			 watch_suffix(p->mc, note, sizeof(note)));
		break;
	case DOC_V_UNKNOWN:
		snprintf(buf, size, "could not tell");
		break;
	}
}

/* The systemd unit of a memcg path ".../NAME.service", into @unit. */
static bool unit_of(const struct doc_proc *p, char *unit, size_t size)
{
	const char *base;
	size_t n;

	if (p->cg_err)
		return false;
	base = strrchr(p->cg.path, '/');
	base = base ? base + 1 : p->cg.path;
	n = strlen(base);
	if (n < 9 || strcmp(base + n - 8, ".service") || n >= size)
		return false;
	memcpy(unit, base, n + 1);
	return true;
}

/* One remedy line, as text or as a JSON array element. */
static void line(FILE *f, const char *indent, bool json, bool *first,
		 const char *text)
{
	if (json) {
		fputs(*first ? "" : ",", f);
		json_put_string(f, text);
	} else {
		fprintf(f, "%s%s\n", indent, text);
	}
	*first = false;
}

static void shim_remedy(const struct doctor *d, const struct doc_proc *p,
			const char *indent, bool json, bool *first, FILE *f)
{
	char unit[256], buf[3 * DOC_PATH_MAX + 128];

	if (unit_of(p, unit, sizeof(unit))) {
		snprintf(buf, sizeof(buf), "preload the shim into %s: /etc/systemd/system/%s.d/advshim.conf with", unit, unit);
		line(f, indent, json, first, buf);
		line(f, indent, json, first, "  [Service]");
		snprintf(buf, sizeof(buf), "  Environment=LD_PRELOAD=%s", d->shim_lib);
		line(f, indent, json, first, buf);
		snprintf(buf, sizeof(buf), "then: systemctl daemon-reload && systemctl restart %s", unit);
		line(f, indent, json, first, buf);
		return;
	}
	snprintf(buf, sizeof(buf), "restart it with the shim: LD_PRELOAD=%s %s ... (or: advshim run -- %s ...)",
		 d->shim_lib, p->exe[0] ? p->exe : p->comm, p->exe[0] ? p->exe : p->comm);
	line(f, indent, json, first, buf);
}

static void seccomp_remedy(const struct doc_proc *p, const char *indent,
			   bool json, bool *first, FILE *f)
{
	char buf[2 * DOC_PATH_MAX + 128];
	const char *exe = p->exe[0] ? p->exe : p->comm;

	snprintf(buf, sizeof(buf), "restart it under the seccomp supervisor (its raw madvise calls): advshim run --seccomp -- %s ...",
		 exe);
	line(f, indent, json, first, buf);
}

static void watch_remedy(const struct doc_proc *p, const char *indent,
			 bool json, bool *first, FILE *f)
{
	char buf[DOC_PATH_MAX + 128];
	const char *cg = p->cg_err ? "MEMCG" : p->cg.path;

	snprintf(buf, sizeof(buf), "age its memcg with advshim-watch --cgroup %s: /etc/systemd/system/advshim-watch.service.d/doctor.conf with", cg);
	line(f, indent, json, first, buf);
	line(f, indent, json, first, "  [Service]");
	snprintf(buf, sizeof(buf), "  Environment=\"ADVSHIM_WATCH_ARGS=--cgroup %s\"", cg);
	line(f, indent, json, first, buf);
	line(f, indent, json, first, "then: systemctl daemon-reload && systemctl enable --now advshim-watch");
}

void doc_remedy(const struct doctor *d, const struct doc_proc *p,
		const char *indent, bool json, FILE *f)
{
	enum doc_verdict v = doc_verdict(d, p);
	bool first = true, fits;

	if (v != DOC_V_EXPOSED && v != DOC_V_STALLED)
		return;
	fits = p->mc && p->mc->av.reason == ADAPT_R_FITS && !p->mc->fig_err;
	if (p->shim_mapped && p->shim_disabled) {
		line(f, indent, json, &first, "the shim is loaded but its kill switch is on: remove the file (rm /run/advshim/disable, or the one ADVSHIM_DISABLE_FILE names) to put its policy back, or:");
	} else if (p->reach == DOC_REACH_PRELOAD && !shim_active(p) && fits) {
		shim_remedy(d, p, indent, json, &first, f);
		line(f, indent, json, &first, "or, keeping RANDOM:");
	} else if (p->reach == DOC_REACH_PRELOAD && !shim_active(p)) {
		line(f, indent, json, &first, "its files do not fit its memcg (or the figures are unknown): the shim would keep RANDOM, so age instead:");
	} else if (shim_active(p)) {
		line(f, indent, json, &first, "the shim is active but keeps RANDOM here (its policy or the adaptive rule): age the memcg:");
	} else if (p->seccomp) {
		line(f, indent, json, &first, "advshim run --seccomp keeps RANDOM here (its policy or the adaptive rule): age the memcg:");
	} else if ((p->reach == DOC_REACH_GO || p->reach == DOC_REACH_STATIC) && fits) {
		seccomp_remedy(p, indent, json, &first, f);
		line(f, indent, json, &first, "or, keeping RANDOM:");
	}
	if (p->mc && p->mc->watched) {
		line(f, indent, json, &first, "advshim-watch ages this memcg but it is stalled now: read its log (journalctl -u advshim-watch) and its metrics");
		return;
	}
	if (p->mc && p->mc->watch_note) {
		char buf[200];

		snprintf(buf, sizeof(buf), "advshim-watch cannot age it now (%s); once it can:",
			 p->mc->watch_note);
		line(f, indent, json, &first, buf);
	}
	watch_remedy(p, indent, json, &first, f);
}
