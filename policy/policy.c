// SPDX-License-Identifier: MIT
/*
 * policy.c - the loaded policy: lookups, decisions, loading and freeing.
 *
 * Everything after loading only reads the immutable struct policy, so any
 * number of threads may call these at once; policy_match() allocates
 * nothing (the shim calls it while registering mappings).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "policy/policy.h"

/* Keep in step with docs/policy.md and examples/advshim.conf. */
const char policy_default_text[] =
	"version = 1;\n"
	"rules = (\n"
	"  { name = \"default\"; match = [ \"**\" ]; random = \"normal\"; }\n"
	");\n";

/* Policies larger than this are certainly a mistake (a wrong file). */
#define POLICY_MAX_BYTES (1u << 20)

static void free_strv(char **v, size_t n)
{
	size_t i;

	if (!v)
		return;
	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

void policy_free(struct policy *p)
{
	size_t i;

	if (!p)
		return;
	for (i = 0; i < p->nr_rules; i++) {
		free(p->rules[i].name);
		free_strv(p->rules[i].globs, p->rules[i].nr_globs);
	}
	free(p->rules);
	free_strv(p->processes, p->nr_processes);
	free(p->log.target);
	free(p->source);
	free(p);
}

const struct policy_rule *policy_match_glob(const struct policy *p,
					    const char *path, size_t *glob)
{
	const struct policy_rule *r;
	size_t i, j;

	if (!p || !path)
		return NULL;
	for (i = 0; i < p->nr_rules; i++) {
		r = &p->rules[i];
		for (j = 0; j < r->nr_globs; j++) {
			if (glob_match(r->globs[j], path)) {
				if (glob)
					*glob = j;
				return r;
			}
		}
	}
	return NULL;
}

const struct policy_rule *policy_match(const struct policy *p,
				       const char *path)
{
	return policy_match_glob(p, path, NULL);
}

struct adv_action policy_decide(const struct policy_rule *rule,
				enum adv_family family, enum adv_kind kind)
{
	struct adv_action keep = { .act = ADV_ACT_KEEP, .to = kind };

	if (!rule || (unsigned int)family >= ADV_NR_FAMILIES ||
	    (unsigned int)kind >= ADV_NR_KINDS)
		return keep;
	return rule->action[family][kind];
}

bool policy_selects_process(const struct policy *p, const char *exe)
{
	size_t i;

	if (!p)
		return false;
	if (!p->nr_processes)
		return true;
	if (!exe)
		return false;
	for (i = 0; i < p->nr_processes; i++)
		if (!strcmp(p->processes[i], exe))
			return true;
	return false;
}

static int io_error(struct policy_error *err, const char *path,
		    const char *what, int e)
{
	memset(err, 0, sizeof(*err));
	snprintf(err->file, sizeof(err->file), "%s", path);
	snprintf(err->msg, sizeof(err->msg), "%s: %s", what, strerror(e));
	errno = e;
	return -1;
}

/*
 * read_policy - the whole of @path, NUL-terminated, in a malloc'd buffer.
 * Plain open/read rather than stdio: the shim calls this from its
 * constructor.  Reads to EOF instead of trusting st_size (the file may be
 * rewritten meanwhile), growing the buffer up to POLICY_MAX_BYTES.
 */
static int read_policy(const char *path, char **out, struct policy_error *err)
{
	size_t len = 0, cap;
	struct stat st;
	char *buf, *nbuf;
	ssize_t n;
	int fd, e;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return io_error(err, path, "cannot open", errno);
	if (fstat(fd, &st) < 0) {
		e = errno;
		goto fail;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return io_error(err, path, S_ISDIR(st.st_mode) ?
				"cannot read" : "not a regular file",
				S_ISDIR(st.st_mode) ? EISDIR : EINVAL);
	}
	cap = (size_t)st.st_size + 1;
	if (cap > POLICY_MAX_BYTES + 1)
		cap = POLICY_MAX_BYTES + 1;
	buf = malloc(cap);
	if (!buf) {
		e = ENOMEM;
		goto fail;
	}
	for (;;) {
		if (len + 1 == cap) {
			if (cap > POLICY_MAX_BYTES) {
				free(buf);
				close(fd);
				return io_error(err, path, "larger than 1 MiB",
						EFBIG);
			}
			cap = cap * 2 > POLICY_MAX_BYTES + 1 ?
				POLICY_MAX_BYTES + 1 : cap * 2;
			nbuf = realloc(buf, cap);
			if (!nbuf) {
				free(buf);
				e = ENOMEM;
				goto fail;
			}
			buf = nbuf;
		}
		n = read(fd, buf + len, cap - 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			e = errno;
			free(buf);
			goto fail;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	if (memchr(buf, '\0', len)) {
		free(buf);
		return io_error(err, path, "not a text file (contains NUL "
				"bytes)", EINVAL);
	}
	buf[len] = '\0';
	*out = buf;
	return 0;
fail:
	close(fd);
	return io_error(err, path, "cannot read", e);
}

int policy_load_file(const char *path, struct policy **out,
		     struct policy_error *err)
{
	struct policy_error dummy;
	char *buf = NULL;
	int ret;

	if (!err)
		err = &dummy;
	if (!path || !out)
		return io_error(err, path ? path : "", "no file", EINVAL);
	if (read_policy(path, &buf, err))
		return -1;
	ret = policy_parse_buffer(buf, path, out, err);
	free(buf);
	return ret;
}

int policy_load_default(struct policy **out, struct policy_error *err)
{
	return policy_parse_buffer(policy_default_text, "<default>", out, err);
}
