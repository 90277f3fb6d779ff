/* SPDX-License-Identifier: MIT */
/*
 * confcheck.h - checking libconfig settings, with one error style.
 *
 * The policy parser, advshim-watch's `watch` group and advshim-ab's
 * experiments all report what is wrong the same way:
 *
 *   FILE:LINE: NAME: expected an integer, got a string
 *   FILE:LINE: NAME: 0 is out of range (expected 1 to 1000)
 *   FILE:LINE: PREFIX: unknown key "persit" (expected interval_ms, ...)
 *
 * NAME is the setting as the user wrote it ("watch.persist", "log.level",
 * `rule "x": random`, "arms[1]: watcher: persist"); PREFIX is NAME's
 * context with its ": " ("log: ", "" at the top level).  Messages go into
 * the caller's own error struct through a struct conf_ctx, so each parser
 * keeps its public error type.
 *
 * LINE is never 0 for a setting: libconfig has no line for the root
 * setting (and its 16-bit counter wraps on huge files), so the nearest
 * enclosing setting's line is used, and line 1 when there is none.  Line 0
 * is left to errors no line applies to (a file that cannot be read).
 *
 * Each parser keeps its own state struct (the object it fills and a
 * struct conf_ctx member named cc); perr() reports through any of them.
 *
 * Nothing here allocates, locks, or exits (free_strv() only frees what a
 * parser allocated); every function works on the caller's objects only
 * and may run in any thread that owns them.
 */
#ifndef ADVSHIM_CONFCHECK_H
#define ADVSHIM_CONFCHECK_H

#include <libconfig.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

/* Where errors go: the file, line and message fields of an error struct. */
struct conf_ctx {
	const char *name;	/* source name when libconfig knows no file */
	char *file;
	size_t file_size;
	int *line;
	char *msg;
	size_t msg_size;
};

/*
 * CONF_CTX - a struct conf_ctx initialiser for source @nm and an error
 * struct pointer @err with char arrays file[] and msg[] and an int line.
 */
#define CONF_CTX(nm, err) {						\
	.name = (nm), .file = (err)->file, .file_size = sizeof((err)->file), \
	.line = &(err)->line, .msg = (err)->msg,			\
	.msg_size = sizeof((err)->msg) }

/*
 * conf_error_text - "FILE:LINE: MSG", or "FILE: MSG" when @line is 0 (no
 * line applies), into @buf (@size bytes, truncated).  Returns @buf.
 */
char *conf_error_text(char *buf, size_t size, const char *file, int line,
		      const char *msg);

/*
 * conf_line - the source line of @s, or of its nearest enclosing setting
 * that has one; 1 when none has (or @s is NULL).  Never 0.
 */
int conf_line(const config_setting_t *s);

/*
 * conf_type_name - what @s holds, for messages: "an integer", "a string",
 * "a group { ... }", ...; "nothing" for NULL.
 */
const char *conf_type_name(const config_setting_t *s);

/*
 * conf_err - report at @s (NULL: line 1 of the source): file (libconfig's,
 * else cc->name), conf_line(@s) and the formatted message.  Returns -1 so
 * that callers can `return conf_err(...)`.
 */
__attribute__((format(printf, 3, 4)))
int conf_err(struct conf_ctx *cc, const config_setting_t *s,
	     const char *fmt, ...);

/* conf_verr - conf_err() with a va_list. */
__attribute__((format(printf, 3, 0)))
int conf_verr(struct conf_ctx *cc, const config_setting_t *s,
	      const char *fmt, va_list ap);

/*
 * conf_err_line - report at line @line of cc->name; 0 (or less) means no
 * line applies and is stored as 0 (I/O errors).  Returns -1.
 */
__attribute__((format(printf, 3, 4)))
int conf_err_line(struct conf_ctx *cc, int line, const char *fmt, ...);

/*
 * conf_syntax_err - report why config_read_string() failed on @cfg (its
 * line, at least 1).  Returns -1.
 */
int conf_syntax_err(struct conf_ctx *cc, const config_t *cfg);

/*
 * conf_find_include - line number of the first `@include` directive in
 * @buf, or 0: callers refuse it before libconfig, whose scanner exit()s
 * on an include it cannot read.
 */
int conf_find_include(const char *buf);

/*
 * conf_type_err - "NAME: expected EXPECTED, got <what @s holds>" at @s.
 * Returns -1.
 */
int conf_type_err(struct conf_ctx *cc, const config_setting_t *s,
		  const char *name, const char *expected);

/*
 * conf_range_text - "NAME: V is out of range (expected LO to HI)" into
 * @buf (@size bytes, truncated); integers print as such.  For checks of
 * values that do not come from libconfig (command lines).  Returns @buf.
 */
char *conf_range_text(char *buf, size_t size, const char *name, double v,
		      double lo, double hi);

/*
 * conf_unknown_key - "PREFIX" "unknown key "KEY" (expected KEYS)" at @s,
 * KEY being @s's name and @keys a ", " separated list.  Returns -1.
 */
int conf_unknown_key(struct conf_ctx *cc, const config_setting_t *s,
		     const char *prefix, const char *keys);

/*
 * conf_check_keys - every member of group @g must be one of @keys (a ", "
 * separated list); else conf_unknown_key() for the first that is not.
 * Returns 0 or -1.
 */
int conf_check_keys(struct conf_ctx *cc, const config_setting_t *g,
		    const char *prefix, const char *keys);

/*
 * Typed reads of setting @s, named @name in messages.  Each returns 0 and
 * stores the value, or -1 after reporting a type mismatch or a value
 * outside [@lo, @hi] (*out untouched).  conf_get_num() takes integers and
 * floats and refuses NaN and infinities.
 */
int conf_get_int(struct conf_ctx *cc, const config_setting_t *s,
		 const char *name, long long lo, long long hi, long long *out);
int conf_get_num(struct conf_ctx *cc, const config_setting_t *s,
		 const char *name, double lo, double hi, double *out);
int conf_get_bool(struct conf_ctx *cc, const config_setting_t *s,
		  const char *name, bool *out);

/*
 * conf_get_string - the string value of @s (owned by libconfig), or NULL
 * after reporting "NAME: expected a string, got ...".
 */
const char *conf_get_string(struct conf_ctx *cc, const config_setting_t *s,
			    const char *name);

/*
 * perr - conf_err() through the `cc` member of parser state @ps: report at
 * setting @s (NULL: line 1) and evaluate to -1.
 */
#define perr(ps, s, ...) conf_err(&(ps)->cc, (s), __VA_ARGS__)

/*
 * free_strv - free the @n strings of @v and @v itself (NULL is fine): the
 * string lists the parsers copy out of libconfig.  Cannot fail.
 */
void free_strv(char **v, size_t n);

#endif /* ADVSHIM_CONFCHECK_H */
