// SPDX-License-Identifier: MIT
/*
 * proc.c - spawning workloads and following their output.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tools/ab/proc.h"

extern char **environ;

int envv_set(struct envv *e, const char *kv)
{
	const char *eq = strchr(kv, '=');
	size_t klen = eq ? (size_t)(eq - kv) : strlen(kv);
	char *copy = strdup(kv);

	if (!copy)
		return -1;
	for (size_t i = 0; i < e->n; i++) {
		if (!strncmp(e->v[i], kv, klen) && e->v[i][klen] == '=') {
			free(e->v[i]);
			e->v[i] = copy;
			return 0;
		}
	}
	if (e->n + 2 > e->cap) {
		size_t cap = e->cap ? e->cap * 2 : 64;
		char **nv = realloc(e->v, cap * sizeof(*nv));

		if (!nv) {
			free(copy);
			return -1;
		}
		e->v = nv;
		e->cap = cap;
	}
	e->v[e->n++] = copy;
	e->v[e->n] = NULL;
	return 0;
}

void envv_unset(struct envv *e, const char *name)
{
	size_t len = strlen(name);

	for (size_t i = 0; i < e->n; i++) {
		if (!strncmp(e->v[i], name, len) && e->v[i][len] == '=') {
			free(e->v[i]);
			memmove(&e->v[i], &e->v[i + 1], (e->n - i) * sizeof(char *));
			e->n--;
			return;
		}
	}
}

int envv_from_environ(struct envv *e)
{
	memset(e, 0, sizeof(*e));
	if (envv_set(e, "ADVSHIM_AB=1"))
		return -1;
	for (char **p = environ; *p; p++)
		if (strchr(*p, '=') && envv_set(e, *p))
			return -1;
	return 0;
}

void envv_free(struct envv *e)
{
	for (size_t i = 0; i < e->n; i++)
		free(e->v[i]);
	free(e->v);
	memset(e, 0, sizeof(*e));
}

/* In the child: report @what + errno through @fd and exit. */
static void child_fail(int fd, const char *what)
{
	char msg[256];
	int n = snprintf(msg, sizeof(msg), "%s: %s", what, strerror(errno));

	if (write(fd, msg, (size_t)n) < 0)
		_exit(126);
	_exit(127);
}

static void child(char *const argv[], char *const envp[], const char *out,
		  const char *err, const struct memcg *mc, int fd)
{
	int o, e;
	sigset_t none;

	setpgid(0, 0);
	/* ab blocks nothing, but undo any inherited mask and dispositions. */
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGPIPE, SIG_DFL);
	o = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (o < 0)
		child_fail(fd, out);
	e = strcmp(out, err) ? open(err, O_WRONLY | O_CREAT | O_TRUNC, 0644) : dup(o);
	if (e < 0)
		child_fail(fd, err);
	if (dup2(o, 1) < 0 || dup2(e, 2) < 0)
		child_fail(fd, "dup2");
	close(o);
	close(e);
	o = open("/dev/null", O_RDONLY);
	if (o >= 0) {
		dup2(o, 0);
		close(o);
	}
	if (mc && memcg_attach_self(mc))
		child_fail(fd, "joining the memcg (cgroup.procs)");
	execvpe(argv[0], argv, envp);
	child_fail(fd, argv[0]);
}

pid_t spawn(char *const argv[], char *const envp[], const char *out_path,
	    const char *err_path, const struct memcg *mc, char *why,
	    size_t size)
{
	int pfd[2];
	char msg[256];
	ssize_t n;
	pid_t pid;

	if (pipe2(pfd, O_CLOEXEC)) {
		snprintf(why, size, "pipe: %s", strerror(errno));
		return -1;
	}
	pid = fork();
	if (pid < 0) {
		snprintf(why, size, "fork: %s", strerror(errno));
		close(pfd[0]);
		close(pfd[1]);
		return -1;
	}
	if (pid == 0) {
		close(pfd[0]);
		child(argv, envp, out_path, err_path, mc, pfd[1]);
	}
	setpgid(pid, pid);	/* both sides: no race with kill(-pgid) */
	close(pfd[1]);
	do
		n = read(pfd[0], msg, sizeof(msg) - 1);
	while (n < 0 && errno == EINTR);
	close(pfd[0]);
	if (n > 0) {
		msg[n] = '\0';
		snprintf(why, size, "cannot start %s: %s", argv[0], msg);
		waitpid(pid, NULL, 0);
		return -1;
	}
	return pid;
}

int tail_open(struct tail *t, const char *path)
{
	t->len = 0;
	t->fd = open(path, O_RDONLY | O_CLOEXEC);
	return t->fd < 0 ? -1 : 0;
}

int tail_line(struct tail *t, char *line, size_t size)
{
	for (;;) {
		char *nl = memchr(t->buf, '\n', t->len);
		ssize_t n;

		if (nl || t->len == sizeof(t->buf)) {
			size_t len = nl ? (size_t)(nl - t->buf) + 1 : t->len;
			size_t cp = len < size - 1 ? len : size - 1;

			memcpy(line, t->buf, cp);
			line[cp] = '\0';
			memmove(t->buf, t->buf + len, t->len - len);
			t->len -= len;
			return 1;
		}
		if (t->fd < 0)
			return 0;
		n = read(t->fd, t->buf + t->len, sizeof(t->buf) - t->len);
		if (n <= 0)
			return 0;
		t->len += (size_t)n;
	}
}

void tail_close(struct tail *t)
{
	if (t->fd >= 0)
		close(t->fd);
	t->fd = -1;
	t->len = 0;
}
