// SPDX-License-Identifier: MIT
/*
 * memstat.c - memory.stat parser (see memstat.h for which key is read on
 * which cgroup version, and why).
 */
#include "common/memstat.h"

#include <stddef.h>
#include <string.h>

#include "common/decimal.h"

enum field {
	F_PGMAJFAULT,
	F_REFAULT,
	F_ACTIVATE,
	F_FILE,
	F_ANON,
	F_ACTIVE_FILE,
	F_INACTIVE_FILE,
	NR_FIELDS
};

#define NOT_SEEN 0xff

/* Within one level (v1 total_ or not) the lower rank wins. */
static const struct key {
	const char *name;
	unsigned char len;
	unsigned char field;
	unsigned char v1;		/* hierarchical total_ copy of cgroup v1 */
	unsigned char rank;		/* 0 current name, 1 before 5.9 */
} keys[] = {
#define KEY(n, f, v, r) { n, sizeof(n) - 1, f, v, r }
	KEY("pgmajfault", F_PGMAJFAULT, 0, 0),
	KEY("workingset_refault_file", F_REFAULT, 0, 0),
	KEY("workingset_refault", F_REFAULT, 0, 1),
	KEY("workingset_activate_file", F_ACTIVATE, 0, 0),
	KEY("workingset_activate", F_ACTIVATE, 0, 1),
	KEY("file", F_FILE, 0, 0),
	KEY("anon", F_ANON, 0, 0),
	KEY("active_file", F_ACTIVE_FILE, 0, 0),
	KEY("inactive_file", F_INACTIVE_FILE, 0, 0),
	KEY("total_pgmajfault", F_PGMAJFAULT, 1, 0),
	KEY("total_workingset_refault_file", F_REFAULT, 1, 0),
	KEY("total_workingset_refault", F_REFAULT, 1, 1),
	KEY("total_workingset_activate_file", F_ACTIVATE, 1, 0),
	KEY("total_workingset_activate", F_ACTIVATE, 1, 1),
	KEY("total_cache", F_FILE, 1, 0),
	KEY("total_rss", F_ANON, 1, 0),
	KEY("total_active_file", F_ACTIVE_FILE, 1, 0),
	KEY("total_inactive_file", F_INACTIVE_FILE, 1, 0),
#undef KEY
};

#define NR_KEYS (sizeof(keys) / sizeof(keys[0]))

/* The best key seen so far for one field at one level. */
struct pick {
	uint64_t val;
	unsigned char rank;		/* NOT_SEEN, or keys[key].rank */
	unsigned char key;
};

static const struct key *find_key(const char *p, size_t klen)
{
	size_t i;

	for (i = 0; i < NR_KEYS; i++)
		if (keys[i].len == klen && !memcmp(keys[i].name, p, klen))
			return &keys[i];
	return NULL;
}

/* Record line "KEY VALUE" ([@p, @lend)); 0, or -1 if it is malformed. */
static int take_line(const char *p, const char *lend,
		     struct pick picks[NR_FIELDS][2], bool *v1)
{
	const char *sp = memchr(p, ' ', (size_t)(lend - p));
	const struct key *k;
	struct pick *pk;
	uint64_t v;

	if (!sp)
		return -1;
	if (sp - p > 6 && !memcmp(p, "total_", 6))
		*v1 = true;
	k = find_key(p, (size_t)(sp - p));
	if (!k)
		return 0;
	if (decimal_u64_all(sp + 1, lend, &v))
		return -1;
	pk = &picks[k->field][k->v1];
	if (pk->rank != NOT_SEEN && pk->rank <= k->rank)
		return 0;
	pk->val = v;
	pk->rank = k->rank;
	pk->key = (unsigned char)(k - keys);
	return 0;
}

/* Where each field's value and has_ flag live in struct memstat. */
static const struct {
	size_t val, has;
} slots[NR_FIELDS] = {
#define SLOT(f, v, h) [f] = { offsetof(struct memstat, v), \
			      offsetof(struct memstat, h) }
	SLOT(F_PGMAJFAULT, pgmajfault, has_pgmajfault),
	SLOT(F_REFAULT, refault_file, has_refault),
	SLOT(F_ACTIVATE, activate_file, has_activate),
	SLOT(F_FILE, file_bytes, has_file),
	SLOT(F_ANON, anon_bytes, has_anon),
	SLOT(F_ACTIVE_FILE, active_file_bytes, has_active_file),
	SLOT(F_INACTIVE_FILE, inactive_file_bytes, has_inactive_file),
#undef SLOT
};

static void store(struct memstat *out, int f, const struct pick *pk)
{
	char *base = (char *)out;

	*(uint64_t *)(base + slots[f].val) = pk->val;
	*(bool *)(base + slots[f].has) = true;
	if (f == F_REFAULT)
		out->refault_key = keys[pk->key].name;
}

int memstat_parse(const char *buf, size_t len, struct memstat *out)
{
	struct pick picks[NR_FIELDS][2];
	const char *p = buf, *end = buf + len;
	unsigned int line = 0;
	int f;

	memset(out, 0, sizeof(*out));
	memset(picks, NOT_SEEN, sizeof(picks));
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *lend = nl ? nl : end;

		line++;
		if (lend != p && take_line(p, lend, picks, &out->v1)) {
			out->bad_line = line;
			return -1;
		}
		p = lend + 1;
	}
	for (f = 0; f < NR_FIELDS; f++)
		if (picks[f][out->v1].rank != NOT_SEEN)
			store(out, f, &picks[f][out->v1]);
	return 0;
}
