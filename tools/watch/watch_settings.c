// SPDX-License-Identifier: MIT
/*
 * watch_settings.c - the table of advshim-watch settings and the typed
 * access every reader of it shares (see watch_settings.h).
 */
#include "tools/watch/watch_settings.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/confcheck.h"
#include "tools/watch/detector.h"

/*
 * A detector threshold in percent: its key is its struct det_params
 * field's name, its option the key's.
 */
#define DET_PCT(field, min, max, dflt, h, d)				\
	{ #field, NULL, WSET_NUM, WSET_FIELD(det.field),		\
	  .lo = (min), .hi = (max), .def = (dflt), .unit = "%",		\
	  .help = h, .doc = d }

const struct watch_setting watch_settings[] = {
	{ "interval_ms", NULL, WSET_UINT, WSET_FIELD(interval_ms),
	  .lo = 10, .hi = 3600000, .def = 1000, .unit = "ms",
	  .help = "poll period",
	  .doc = "Poll period: how often lru_gen is read.  A burst comes "
		 "one poll or more after a cold read ends, so a shorter "
		 "period ends a stall sooner; each poll reads lru_gen_full "
		 "once (about 1-2 ms of CPU for 1,000 memcgs)." },
	{ "dry_run", NULL, WSET_BOOL, WSET_FIELD(dry_run),
	  .def = 0,
	  .help = "log the command instead of writing it",
	  .doc = "Log the aging command as `would_age` instead of writing "
		 "it." },
	{ "log_decisions", NULL, WSET_BOOL, WSET_FIELD(log_decisions),
	  .def = 0,
	  .help = "log every verdict with its inputs, each interval",
	  .doc = "Log a `decision` event for every watched memcg and node "
		 "at every interval, with the detector's verdict and the "
		 "counters it was judged on (otherwise only `thrash` "
		 "intervals and their end are logged).  What `advshim-watch "
		 "--replay` prints." },
	{ "cgroups", "cgroup", WSET_PATHS, WSET_FIELD(cgroups),
	  .help = "watch this memcg, by the path lru_gen prints; none "
		  "given: every memcg",
	  .doc = "The memcgs to watch, named by the path lru_gen prints "
		 "(relative to the memory hierarchy's root and starting "
		 "with /, for example /system.slice/opensearch.service).  "
		 "None: every memcg." },
	DET_PCT(min_turnover_pct, 1, 1000, 50,
		"pages evicted from the oldest generation, % of its "
		"pages, before it counts as turned over",
		"Pages evicted from the file type's oldest generation "
		"since the window began (lru_gen_full's counters on its "
		"min_seq row), in percent of the pages it holds, before "
		"eviction counts as having gone round it.  The window "
		"restarts when that generation changes, when max_seq moves "
		"and after each burst; after a burst of the watcher's own "
		"the next one needs a whole turnover (100%), whatever this "
		"says."),
	DET_PCT(min_refault_pct, 0, 100, 50,
		"refaults per 100 evictions of the oldest generation "
		"that make it the working set",
		"Refaults of the pages evicted from the oldest generation, "
		"in percent of those evictions, from which what is "
		"evicted is taken to be the working set: over the window "
		"or over the last interval alone (a window's share lags "
		"the thrash by the working set's reuse distance: on "
		"6.1-6.13 the kernel counts a refault only for a page "
		"evicted since that generation took its number; after a "
		"burst of the watcher's own, until the kernel ages by "
		"itself, over the window alone), and they must have grown "
		"in the last interval."),
	DET_PCT(min_exposed_pct, 0.01, 100, 2,
		"a generation above the oldest must hold this % of the "
		"file pages, else aging cannot help",
		"Aging is asked for only when a generation above the file "
		"min_seq holds this percentage of the memcg and node's file "
		"pages (in the one right above it, less the pages the kernel "
		"protected there): a working set that does not fit thrashes "
		"with every page in the oldest generation, and aging it only "
		"costs."),
	DET_PCT(max_inflow_pct, 0, 1000, 10,
		"growth above the oldest generation per interval, % of "
		"that interval's evictions, above which a reader is still "
		"bringing pages in: do not age yet",
		"Growth in the last interval of the file pages above the "
		"oldest generation, in percent of the pages evicted from it "
		"in that interval, above which a reader is taken to be still "
		"faulting pages in through a normal mapping; aging then would "
		"promote what it is reading, so the watcher waits.  On 6.1-6.13 "
		"only the youngest generation's growth counts: only a reader's "
		"faults through a mapping with recency go there, while the "
		"working set's refaults through a RANDOM mapping go to the "
		"generation above the oldest once there are four."),
	{ "max_agings_per_min", NULL, WSET_UINT,
	  WSET_FIELD(det.max_agings_per_min),
	  .lo = 1, .hi = DET_MAX_PER_MIN, .def = 16, .unit = "/min",
	  .help = "aging steps per memcg x node and minute",
	  .doc = "Upper bound on the aging steps (max_seq moves) of one "
		 "memcg and node in a minute; a burst is written only when "
		 "all its steps fit (a safety cap: the rule itself waits for "
		 "a whole turnover after each burst).  16: four bursts of "
		 "four steps." },
};

const size_t watch_nr_settings =
	sizeof(watch_settings) / sizeof(watch_settings[0]);

const struct watch_setting *wset_find(const char *key)
{
	size_t i;

	for (i = 0; i < watch_nr_settings; i++)
		if (!strcmp(watch_settings[i].key, key))
			return &watch_settings[i];
	return NULL;
}

char *wset_opt_name(const struct watch_setting *s, char *buf, size_t size)
{
	char *p;

	snprintf(buf, size, "%s", s->opt ? s->opt : s->key);
	for (p = buf; *p; p++)
		if (*p == '_')
			*p = '-';
	return buf;
}

/* join_names - the values of ENUM @s with @sep between them into @buf. */
static char *join_names(const struct watch_setting *s, const char *sep,
			char *buf, size_t size)
{
	size_t i, len;

	buf[0] = '\0';
	for (i = 0; s->names && s->names[i]; i++) {
		len = strlen(buf);
		snprintf(buf + len, size - len, "%s%s", i ? sep : "",
			 s->names[i]);
	}
	return buf;
}

const char *wset_metavar(const struct watch_setting *s, char *buf,
			 size_t size)
{
	switch (s->type) {
	case WSET_UINT:
		return "N";
	case WSET_NUM:
		return "X";
	case WSET_PATHS:
		return "PATH";
	case WSET_ENUM:
		return join_names(s, "|", buf, size);
	default:
		return NULL;
	}
}

static const void *field(const struct watch_setting *s,
			 const struct watch_conf *c)
{
	return (const char *)c + s->off;
}

double wset_get(const struct watch_setting *s, const struct watch_conf *c)
{
	const void *f = field(s, c);

	switch (s->type) {
	case WSET_NUM:
		return *(const double *)f;
	case WSET_BOOL:
		return *(const bool *)f;
	case WSET_UINT:
	case WSET_ENUM:
		if (s->size == sizeof(uint64_t))
			return (double)*(const uint64_t *)f;
		return *(const unsigned int *)f;
	default:
		return 0;
	}
}

static size_t nr_names(const struct watch_setting *s)
{
	size_t n = 0;

	while (s->names && s->names[n])
		n++;
	return n;
}

int wset_set(const struct watch_setting *s, struct watch_conf *c, double v,
	     const char *name, char *why, size_t size)
{
	void *f = (char *)c + s->off;
	double lo = s->lo, hi = s->hi;

	if (s->type == WSET_BOOL || s->type == WSET_ENUM) {
		lo = 0;
		hi = s->type == WSET_BOOL ? 1 : (double)nr_names(s) - 1;
	}
	if (!(v >= lo && v <= hi)) {
		conf_range_text(why, size, name, v, lo, hi);
		return -1;
	}
	if (s->type != WSET_NUM && v != (double)(uint64_t)v) {
		snprintf(why, size, "%s: expected a whole number, got %g", name,
			 v);
		return -1;
	}
	if (s->type == WSET_NUM)
		*(double *)f = v;
	else if (s->type == WSET_BOOL)
		*(bool *)f = v != 0;
	else if (s->size == sizeof(uint64_t))
		*(uint64_t *)f = (uint64_t)v;
	else
		*(unsigned int *)f = (unsigned int)v;
	return 0;
}

/* enum_index - the index of @text among the values of ENUM @s, or -1. */
static int enum_index(const struct watch_setting *s, const char *text)
{
	size_t i;

	for (i = 0; s->names && s->names[i]; i++)
		if (!strcmp(s->names[i], text))
			return (int)i;
	return -1;
}

/* parse_number - all of @text as a number (@whole: digits only). */
static int parse_number(const char *text, bool whole, double *v)
{
	char *end;

	errno = 0;
	if (whole) {
		if (*text < '0' || *text > '9')
			return -1;
		*v = (double)strtoull(text, &end, 10);
		if (errno == ERANGE)
			*v = 1e300;	/* out of every range */
	} else {
		*v = strtod(text, &end);
	}
	return end == text || *end ? -1 : 0;
}

int wset_parse(const struct watch_setting *s, struct watch_conf *c,
	       const char *text, const char *name, char *why, size_t size)
{
	char list[256];
	double v;
	int i;

	switch (s->type) {
	case WSET_UINT:
	case WSET_NUM:
		if (!parse_number(text, s->type == WSET_UINT, &v))
			return wset_set(s, c, v, name, why, size);
		snprintf(why, size, "%s: expected %s, got \"%s\"", name,
			 s->type == WSET_UINT ? "an integer" : "a number",
			 text);
		return -1;
	case WSET_BOOL:
		if (!strcmp(text, "true") || !strcmp(text, "false"))
			return wset_set(s, c, !strcmp(text, "true"), name, why,
					size);
		snprintf(why, size, "%s: expected true or false, got \"%s\"",
			 name, text);
		return -1;
	case WSET_ENUM:
		i = enum_index(s, text);
		if (i >= 0)
			return wset_set(s, c, i, name, why, size);
		snprintf(why, size, "%s: unknown value \"%s\" (expected %s)",
			 name, text, join_names(s, ", ", list, sizeof(list)));
		return -1;
	default:
		snprintf(why, size, "%s: not a single value", name);
		return -1;
	}
}

int wset_check_path(const char *path, const char *name, char *why,
		    size_t size)
{
	if (path[0] == '/')
		return 0;
	snprintf(why, size, "%s: \"%s\" must start with '/' (the path as "
		 "lru_gen prints it)", name, path);
	return -1;
}

/* format_paths - "[ \"/a\", \"/b\" ]" ("[ ]" when empty) into @buf. */
static char *format_paths(const struct watch_conf *c, char *buf, size_t size)
{
	size_t i, len;

	snprintf(buf, size, "[");
	for (i = 0; i < c->nr_cgroups; i++) {
		len = strlen(buf);
		snprintf(buf + len, size - len, "%s \"%s\"", i ? "," : "",
			 c->cgroups[i]);
	}
	len = strlen(buf);
	snprintf(buf + len, size - len, " ]");
	return buf;
}

char *wset_format(const struct watch_setting *s, const struct watch_conf *c,
		  char *buf, size_t size)
{
	double v = wset_get(s, c);

	switch (s->type) {
	case WSET_UINT:
		snprintf(buf, size, "%.0f", v);
		break;
	case WSET_NUM:
		snprintf(buf, size, "%.15g", v);
		break;
	case WSET_BOOL:
		snprintf(buf, size, "%s", v ? "true" : "false");
		break;
	case WSET_ENUM:
		snprintf(buf, size, "\"%s\"", v < (double)nr_names(s) ?
			 s->names[(size_t)v] : "?");
		break;
	case WSET_PATHS:
		format_paths(c, buf, size);
		break;
	}
	return buf;
}

char *wset_format_default(const struct watch_setting *s, char *buf,
			  size_t size)
{
	const char *sep = s->unit && (s->unit[0] == '%' || s->unit[0] == '/') ?
			  "" : " ";

	switch (s->type) {
	case WSET_BOOL:
		snprintf(buf, size, "%s", s->def ? "true" : "false");
		break;
	case WSET_ENUM:
		snprintf(buf, size, "%s", s->names[(size_t)s->def]);
		break;
	case WSET_PATHS:
		snprintf(buf, size, "none");
		break;
	default:
		snprintf(buf, size, "%.15g%s%s", s->def, s->unit ? sep : "",
			 s->unit ? s->unit : "");
		break;
	}
	return buf;
}
