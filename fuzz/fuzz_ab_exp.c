// SPDX-License-Identifier: MIT
/*
 * fuzz_ab_exp.c - any bytes as an advshim-ab experiment file.
 *
 * exp_parse_buffer() (tools/ab/exp_parse.c) must accept or refuse with a
 * terminated message and a sane line.  An accepted experiment is used the
 * way advshim-ab uses it: every workload is found by name, and every
 * argument, path and environment string of every arm is expanded with
 * exp_expand() (parse-time checks promise that never fails with EINVAL).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/ab/exp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void expect(int cond, const char *what)
{
	if (!cond) {
		fprintf(stderr, "fuzz_ab_exp: broken: %s\n", what);
		abort();
	}
}

static void expand(const struct experiment *e, const struct exp_vars *v,
		   const char *s)
{
	char *out = NULL;

	if (!s)
		return;
	if (exp_expand(e, v, s, &out) == 0) {
		expect(out != NULL, "exp_expand success without output");
		free(out);
	} else {
		expect(errno == ENOMEM, "exp_expand refused a string the parser accepted");
	}
}

static void use(const struct experiment *e)
{
	struct exp_vars v = { "/b", "/d", "/o", "arm", "/sys/fs/cgroup/x" };

	for (size_t i = 0; i < e->nwl; i++) {
		expect(exp_find_workload(e, e->wl[i].name) >= 0,
		       "workload not found by its name");
		for (size_t a = 0; a < e->wl[i].argc; a++)
			expand(e, &v, e->wl[i].argv[a]);
	}
	for (size_t i = 0; i < e->nfiles; i++)
		expand(e, &v, e->files[i].path);
	for (size_t i = 0; i < e->narms; i++) {
		const struct exp_arm *a = &e->arms[i];

		v.arm = a->name;
		expand(e, &v, a->shim.policy);
		expand(e, &v, a->shim.policy_text);
		for (size_t j = 0; j < a->nenv; j++)
			expand(e, &v, a->env[j]);
		for (size_t j = 0; j < a->watch.nargs; j++)
			expand(e, &v, a->watch.args[j]);
		for (size_t j = 0; j < a->watch.ncommand; j++)
			expand(e, &v, a->watch.command[j]);
		for (size_t j = 0; j < a->nov; j++) {
			expect(a->ov[j].wl >= 0 && (size_t)a->ov[j].wl < e->nwl,
			       "override names a workload out of range");
			for (size_t k = 0; k < a->ov[j].nenv; k++)
				expand(e, &v, a->ov[j].env[k]);
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct experiment *e = NULL;
	struct exp_error err;
	char *buf = malloc(size + 1);

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	buf[size] = '\0';
	memset(&err, 0x5a, sizeof(err));
	if (exp_parse_buffer(buf, "fuzz.exp", &e, &err) == 0) {
		expect(e != NULL, "success without an experiment");
		use(e);
		exp_free(e);
	} else {
		expect(memchr(err.msg, 0, sizeof(err.msg)) != NULL,
		       "error message not terminated");
		expect(err.line >= 0, "negative error line");
	}
	free(buf);
	return 0;
}
