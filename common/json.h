/* SPDX-License-Identifier: MIT */
/*
 * json.h - JSON output helpers shared by the tools' JSON writers.
 */
#ifndef ADVSHIM_COMMON_JSON_H
#define ADVSHIM_COMMON_JSON_H

#include <stdio.h>

/*
 * json_put_string - write @s to @f as a JSON string literal, quotes
 * included: '"' and '\' escaped, '\n' as \n, other control characters and
 * DEL as \u00XX; other bytes (UTF-8 included) as they are.  Write errors
 * are left in @f's error flag.  Takes @f's stdio lock per character.
 */
void json_put_string(FILE *f, const char *s);

#endif /* ADVSHIM_COMMON_JSON_H */
