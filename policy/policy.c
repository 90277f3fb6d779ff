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

#include "common/confcheck.h"
#include "policy/policy.h"

/* Keep in step with docs/policy.md and examples/advshim.conf. */
const char policy_default_text[] =
	"version = 1;\n"
	"rules = (\n"
	"  { name = \"default\"; match = [ \"**\" ]; random = \"adaptive\"; }\n"
	");\n";

/* Policies larger than this are certainly a mistake (a wrong file). */
#define POLICY_MAX_BYTES (1u << 20)

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
 * open_policy - open @path for reading if it is a regular file, its size
 * in *size.  O_NONBLOCK: opening a FIFO would otherwise wait for a writer,
 * in the constructor of every process (it has no effect on the reads of a
 * regular file).  Returns the descriptor, or -1 with *err filled.
 */
static int open_policy(const char *path, size_t *size,
		       struct policy_error *err)
{
	struct stat st;
	int fd, e;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return io_error(err, path, "cannot open", errno);
	if (fstat(fd, &st) < 0) {
		e = errno;
		close(fd);
		return io_error(err, path, "cannot read", e);
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		if (S_ISDIR(st.st_mode))
			return io_error(err, path, "cannot read", EISDIR);
		return io_error(err, path, "not a regular file", EINVAL);
	}
	*size = (size_t)st.st_size;
	return fd;
}

/*
 * read_fd - @fd to EOF into a malloc'd NUL-terminated buffer of at first
 * @cap bytes, growing it as needed (st_size is only a hint: the file may
 * be rewritten meanwhile).  Returns 0 with *out and *len set, or an errno
 * value: EFBIG past POLICY_MAX_BYTES, ENOMEM, or read(2)'s.
 */
static int read_fd(int fd, size_t cap, char **out, size_t *len)
{
	/* room for one byte too many, and the NUL */
	const size_t max_cap = POLICY_MAX_BYTES + 2;
	char *buf, *nbuf;
	size_t used = 0;
	ssize_t n;
	int e;

	cap = cap < max_cap ? cap : max_cap;
	buf = malloc(cap);
	for (e = buf ? 0 : ENOMEM; !e; used += (size_t)n) {
		if (used + 1 == cap) {
			if (cap == max_cap) {
				e = EFBIG;
				break;
			}
			cap = cap * 2 < max_cap ? cap * 2 : max_cap;
			nbuf = realloc(buf, cap);
			if (!nbuf) {
				e = ENOMEM;
				break;
			}
			buf = nbuf;
		}
		do {
			n = read(fd, buf + used, cap - 1 - used);
		} while (n < 0 && errno == EINTR);
		if (n < 0)
			e = errno;
		if (n <= 0)
			break;
	}
	if (e) {
		free(buf);
		return e;
	}
	buf[used] = '\0';
	*out = buf;
	*len = used;
	return 0;
}

/*
 * read_policy - the whole of @path, NUL-terminated, in a malloc'd buffer.
 * Plain open/read rather than stdio: the shim calls this from its
 * constructor.  Returns 0, or -1 with *err filled and errno set.
 */
static int read_policy(const char *path, char **out, struct policy_error *err)
{
	size_t size = 0, len = 0;
	char *buf;
	int fd, e;

	fd = open_policy(path, &size, err);
	if (fd < 0)
		return -1;
	e = read_fd(fd, size + 1, &buf, &len);
	close(fd);
	if (e == EFBIG)
		return io_error(err, path, "larger than 1 MiB", EFBIG);
	if (e)
		return io_error(err, path, "cannot read", e);
	if (memchr(buf, '\0', len)) {
		free(buf);
		return io_error(err, path, "not a text file (contains NUL "
				"bytes)", EINVAL);
	}
	*out = buf;
	return 0;
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
