// SPDX-License-Identifier: MIT
/*
 * watch_doc.c - the manual pages' lists of settings, in roff, from the
 * settings table (see watch_doc.h).
 */
#include "tools/watch/watch_doc.h"

#include <string.h>

#include "tools/watch/watch_settings.h"

/*
 * roff_text - @text for a filled paragraph: '-' and '\' escaped, `x` in
 * bold, one sentence a line (after ".  ").
 */
static void roff_text(FILE *f, const char *text)
{
	bool bold = false;
	const char *p;

	for (p = text; *p; p++) {
		if (*p == '-') {
			fputs("\\-", f);
		} else if (*p == '\\') {
			fputs("\\e", f);
		} else if (*p == '`') {
			bold = !bold;
			fputs(bold ? "\\fB" : "\\fR", f);
		} else if (*p == '.' && p[1] == ' ' && p[2] == ' ') {
			fputs(".\n", f);
			p += 2;
		} else {
			fputc(*p, f);
		}
	}
	fputc('\n', f);
}

/* roff_name - @name with '-' escaped (option and key names). */
static void roff_name(FILE *f, const char *name)
{
	for (; *name; name++) {
		if (*name == '-')
			fputc('\\', f);
		fputc(*name, f);
	}
}

/* range - "10 to 3600000 ms" for UINT and NUM settings. */
static char *range(const struct watch_setting *s, char *buf, size_t size)
{
	const char *sep = s->unit && (s->unit[0] == '%' || s->unit[0] == '/') ?
			  "" : " ";

	/* integers as such up to 1e9, larger bounds as 1e+12 */
	snprintf(buf, size, s->hi < 1e9 ? "%.15g to %.15g%s%s" :
		 "%.15g to %g%s%s", s->lo, s->hi, s->unit ? sep : "",
		 s->unit ? s->unit : "");
	return buf;
}

/* values - "a, b" for an ENUM setting. */
static char *values(const struct watch_setting *s, char *buf, size_t size)
{
	size_t i, len;

	buf[0] = '\0';
	for (i = 0; s->names[i]; i++) {
		len = strlen(buf);
		snprintf(buf + len, size - len, "%s%s", i ? ", " : "",
			 s->names[i]);
	}
	return buf;
}

static void option(FILE *f, const struct watch_setting *s)
{
	char opt[40], meta[128], def[64], rng[96];

	fputs(".TP\n", f);
	fputs(s->type == WSET_BOOL ? ".B \\-\\-" : ".BI \\-\\-", f);
	roff_name(f, wset_opt_name(s, opt, sizeof(opt)));
	if (s->type != WSET_BOOL)
		fprintf(f, " \" %s\"", s->type == WSET_ENUM ? "NAME" :
			wset_metavar(s, meta, sizeof(meta)));
	fputc('\n', f);
	roff_text(f, s->doc);
	wset_format_default(s, def, sizeof(def));
	if (s->type == WSET_UINT || s->type == WSET_NUM)
		fprintf(f, "Default %s; %s.\n", def,
			range(s, rng, sizeof(rng)));
	else if (s->type == WSET_ENUM)
		fprintf(f, "One of %s; default %s.\n",
			values(s, meta, sizeof(meta)), def);
	else if (s->type == WSET_PATHS)
		fputs("Repeatable; replaces the configuration file's list.\n",
		      f);
}

void watch_doc_options(FILE *f)
{
	size_t i;

	for (i = 0; i < watch_nr_settings; i++)
		option(f, &watch_settings[i]);
}

static void key(FILE *f, const struct watch_setting *s)
{
	char def[64], rng[96], vals[128];

	fputs(".TP\n.B ", f);
	roff_name(f, s->key);
	fputc('\n', f);
	wset_format_default(s, def, sizeof(def));
	switch (s->type) {
	case WSET_UINT:
	case WSET_NUM:
		fprintf(f, "%s, %s; default %s.\n", s->type == WSET_UINT ?
			"Integer" : "Number", range(s, rng, sizeof(rng)), def);
		break;
	case WSET_BOOL:
		fprintf(f, "\\fBtrue\\fR or \\fBfalse\\fR; "
			"default \\fB%s\\fR.\n", def);
		break;
	case WSET_ENUM:
		fprintf(f, "A string, one of %s; default %s.\n",
			values(s, vals, sizeof(vals)), def);
		break;
	case WSET_PATHS:
		fputs("A list of strings; default: none.\n", f);
		break;
	}
	roff_text(f, s->doc);
}

void watch_doc_keys(FILE *f)
{
	size_t i;

	for (i = 0; i < watch_nr_settings; i++)
		key(f, &watch_settings[i]);
}

void watch_doc_example(FILE *f)
{
	struct watch_conf c;
	char buf[256];
	size_t i;

	watch_conf_defaults(&c);
	fputs("watch = {\n", f);
	for (i = 0; i < watch_nr_settings; i++)
		fprintf(f, "  %s = %s;\n", watch_settings[i].key,
			wset_format(&watch_settings[i], &c, buf, sizeof(buf)));
	fputs("};\n", f);
}

int watch_doc_region(const char *name, FILE *f)
{
	if (!strcmp(name, "watch-options"))
		watch_doc_options(f);
	else if (!strcmp(name, "watch-keys"))
		watch_doc_keys(f);
	else if (!strcmp(name, "watch-example"))
		watch_doc_example(f);
	else
		return -1;
	return 0;
}
