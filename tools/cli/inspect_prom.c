// SPDX-License-Identifier: MIT
/*
 * inspect_prom.c - `advshim inspect --prometheus`: the shim's counters of
 * the processes found, in the Prometheus text exposition format (0.0.4),
 * for node-exporter's textfile collector.  Every family's HELP and TYPE
 * once, then its samples for every process (the format wants a family's
 * samples together), each labelled pid and comm.
 *
 * Per process with the shim loaded: whether it is active (policy in force,
 * kill switch off), its outcome counters (rewritten, kept, skipped, ...),
 * its calls per family and advice, and its adaptive group's state,
 * choice and reason with the figures the last sample used.  For every
 * process listed, loaded or not: the VMAs with RANDOM/SEQUENTIAL advice
 * still in force (smaps rr/sr), which is what a node that needs the shim
 * but lacks it shows.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "adapt/adapt.h"
#include "common/clock.h"
#include "common/prom.h"
#include "policy/policy.h"
#include "tools/cli/inspect.h"
#include "tools/cli/shimstats.h"

#define P "advshim_shim_"

static void family(FILE *f, const char *name, const char *type,
		   const char *help)
{
	fprintf(f, "# HELP " P "%s %s\n# TYPE " P "%s %s\n", name, help, name,
		type);
}

/* NAME{pid="..",comm=".." (no closing brace: the caller adds labels). */
static void sample(FILE *f, const char *name, const struct inspect_prom *p)
{
	fprintf(f, P "%s{pid=\"%d\",comm=\"", name, p->pid);
	prom_put_label(f, p->comm);
	fputc('"', f);
}

static bool active(const struct inspect_prom *p)
{
	return p->have_stats && p->st.state == ADVSHIM_STATE_ACTIVE &&
	       !p->st.disabled;
}

/* The outcome counters: field offset, family name, type, help. */
struct counter {
	size_t off;
	const char *name, *type, *help;
};

#define C(field, name, type, help) \
	{ offsetof(struct advshim_stats, field), name, type, help }

static const struct counter counters[] = {
	C(rewritten, "rewritten_total", "counter", "pieces issued with other advice"),
	C(kept, "kept_total", "counter", "pieces of known files kept as asked"),
	C(skipped, "skipped_total", "counter", "pieces not issued (skip rule)"),
	C(noreuse_applied, "noreuse_applied_total", "counter", "on_map noreuse at map time"),
	C(normal_applied, "normal_applied_total", "counter", "on_map normal at map time"),
	C(file_maps_live, "file_maps", "gauge", "file ranges in the mapping table"),
	C(file_maps_total, "file_maps_total", "counter", "file mappings registered"),
	C(files_known, "files_known", "gauge", "(dev, ino) decisions cached"),
	C(fallbacks, "kernel_view_lookups_total", "counter", "ranges resolved by the kernel's view"),
	C(errors, "errors_total", "counter", "internal failures (passed through)"),
};

static void put_counters(FILE *f, const struct inspect_prom *v, size_t n)
{
	size_t i, j;

	for (j = 0; j < sizeof(counters) / sizeof(counters[0]); j++) {
		family(f, counters[j].name, counters[j].type, counters[j].help);
		for (i = 0; i < n; i++) {
			if (!v[i].have_stats)
				continue;
			sample(f, counters[j].name, &v[i]);
			fprintf(f, "} %" PRIu64 "\n", *(const uint64_t *)
				((const char *)&v[i].st + counters[j].off));
		}
	}
}

static void put_calls(FILE *f, const struct inspect_prom *v, size_t n)
{
	size_t i;
	int fam, k;

	family(f, "calls_total", "counter",
	       "advice calls per family and advice (examined and passed on)");
	for (i = 0; i < n; i++) {
		if (!v[i].have_stats)
			continue;
		for (fam = 0; fam < ADV_NR_FAMILIES; fam++)
			for (k = 0; k < ADV_NR_KINDS; k++) {
				sample(f, "calls_total", &v[i]);
				fprintf(f, ",family=\"%s\",advice=\"%s\"} %" PRIu64 "\n",
					adv_family_name(fam), adv_kind_name(k),
					v[i].st.calls[fam][k] + v[i].st.passed[fam][k]);
			}
	}
}

/* One adaptive figure: its value for @a. */
struct afig {
	const char *name, *type, *help;
	double (*get)(const struct advshim_stats_adapt *a);
};

static double a_need(const struct advshim_stats_adapt *a) { return (double)a->need; }
static double a_cap(const struct advshim_stats_adapt *a) { return (double)a->capacity; }
static double a_ratio(const struct advshim_stats_adapt *a) { return a->ratio_pct / 100.0; }
static double a_sw(const struct advshim_stats_adapt *a) { return (double)a->switches; }
static double a_samples(const struct advshim_stats_adapt *a) { return (double)a->samples; }
static double a_serr(const struct advshim_stats_adapt *a) { return (double)a->sample_errors; }
static double a_aerr(const struct advshim_stats_adapt *a) { return (double)a->apply_errors; }
static double a_normal(const struct advshim_stats_adapt *a) { return a->choice == ADAPT_NORMAL; }
static double a_guarded(const struct advshim_stats_adapt *a) { return a->guarded != 0; }

static double a_age(const struct advshim_stats_adapt *a)
{
	uint64_t now = mono_ms();

	return a->t_ms && now > a->t_ms ? (double)(now - a->t_ms) / 1000 : 0;
}

static const struct afig afigs[] = {
	{ "adaptive_normal", "gauge", "1 while the adaptive choice is normal advice, 0 random", a_normal },
	{ "adaptive_need_bytes", "gauge", "bytes the group's files need in the page cache", a_need },
	{ "adaptive_capacity_bytes", "gauge", "page cache the memcg can give them", a_cap },
	{ "adaptive_need_ratio", "gauge", "need / capacity at the last sample", a_ratio },
	{ "adaptive_guarded", "gauge", "1 while advshim-watch's mark on the memcg is fresh (it ends RANDOM stalls there)", a_guarded },
	{ "adaptive_switches_total", "counter", "switches after the first decision", a_sw },
	{ "adaptive_samples_total", "counter", "samples taken", a_samples },
	{ "adaptive_sample_errors_total", "counter", "samples whose memcg figures were unreadable", a_serr },
	{ "adaptive_apply_errors_total", "counter", "re-advice calls that failed", a_aerr },
	{ "adaptive_sample_age_seconds", "gauge", "seconds since the last sample", a_age },
};

static void put_adaptive(FILE *f, const struct inspect_prom *v, size_t n)
{
	const struct advshim_stats_adapt *a;
	size_t i, j;

	family(f, "adaptive_info", "gauge",
	       "1 per process with an adaptive group: its state, choice and the last verdict's reason");
	for (i = 0; i < n; i++) {
		if (!v[i].have_adapt || v[i].st.adapt.state == ADVSHIM_ADAPT_UNUSED)
			continue;
		a = &v[i].st.adapt;
		sample(f, "adaptive_info", &v[i]);
		fprintf(f, ",state=\"%s\",choice=\"%s\",reason=\"%s\",memcg=\"",
			shimstats_adapt_state_name(a->state, true),
			adapt_choice_name((enum adapt_choice)a->choice),
			adapt_reason_name((enum adapt_reason)a->reason));
		prom_put_label(f, a->cgroup);
		fputs("\"} 1\n", f);
	}
	for (j = 0; j < sizeof(afigs) / sizeof(afigs[0]); j++) {
		family(f, afigs[j].name, afigs[j].type, afigs[j].help);
		for (i = 0; i < n; i++) {
			if (!v[i].have_adapt ||
			    v[i].st.adapt.state == ADVSHIM_ADAPT_UNUSED)
				continue;
			sample(f, afigs[j].name, &v[i]);
			fprintf(f, "} %.*f\n", strstr(afigs[j].name, "ratio") ||
				strstr(afigs[j].name, "seconds") ? 2 : 0,
				afigs[j].get(&v[i].st.adapt));
		}
	}
}

int inspect_prom_write(const struct inspect_prom *v, size_t n,
		       int mglru_enabled, FILE *f)
{
	size_t i;

	fprintf(f, "# HELP advshim_node_lru_gen_enabled lru_gen/enabled bits as advshim inspect read them (-1 no MGLRU or unreadable)\n"
		"# TYPE advshim_node_lru_gen_enabled gauge\n"
		"advshim_node_lru_gen_enabled %d\n", mglru_enabled);
	family(f, "loaded", "gauge", "1 when libadvshim.so is mapped in the process");
	for (i = 0; i < n; i++) {
		sample(f, "loaded", &v[i]);
		fprintf(f, "} %d\n", v[i].loaded);
	}
	family(f, "active", "gauge",
	       "1 when the shim's policy is in force (loaded, initialised, selected, kill switch off)");
	for (i = 0; i < n; i++) {
		sample(f, "active", &v[i]);
		fprintf(f, "} %d\n", active(&v[i]));
	}
	family(f, "disabled", "gauge", "1 while the kill switch file is present");
	for (i = 0; i < n; i++) {
		if (!v[i].have_stats)
			continue;
		sample(f, "disabled", &v[i]);
		fprintf(f, "} %d\n", v[i].st.disabled ? 1 : 0);
	}
	family(f, "info", "gauge", "1 per process with the shim's stats page: its state, policy and version");
	for (i = 0; i < n; i++) {
		if (!v[i].have_stats)
			continue;
		sample(f, "info", &v[i]);
		fprintf(f, ",state=\"%s\",policy=\"", shimstats_state_name(v[i].st.state));
		prom_put_label(f, v[i].st.policy_source);
		fputs("\",version=\"", f);
		prom_put_label(f, v[i].st.lib_version);
		fputs("\"} 1\n", f);
	}
	family(f, "random_vmas", "gauge",
	       "file VMAs with RANDOM or SEQUENTIAL advice in force (smaps rr/sr)");
	for (i = 0; i < n; i++) {
		sample(f, "random_vmas", &v[i]);
		fprintf(f, "} %u\n", v[i].rr_vmas);
	}
	put_counters(f, v, n);
	put_calls(f, v, n);
	put_adaptive(f, v, n);
	return ferror(f) ? -1 : 0;
}
