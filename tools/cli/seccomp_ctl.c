// SPDX-License-Identifier: MIT
/*
 * seccomp_ctl.c - the supervisor's report for `advshim inspect PID`: what
 * its trapped calls got, per process and per file, over an abstract unix
 * socket named by the supervisor's pid (seccomp.h has the format).
 *
 * The supervisor never waits for a client: it accepts only when poll says
 * one is there, writes with MSG_DONTWAIT and closes, so a client that
 * connects and never reads costs it one write.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "tools/cli/seccomp.h"

#define REPORT_MAX	(64u << 10)

/* "\0advshim-seccomp/PID" into @a; its length for bind/connect. */
static socklen_t name_of(struct sockaddr_un *a, pid_t sup)
{
	int n;

	memset(a, 0, sizeof(*a));
	a->sun_family = AF_UNIX;
	n = snprintf(a->sun_path + 1, sizeof(a->sun_path) - 1,
		     SECCOMP_SUPERVISOR_COMM "/%d", (int)sup);
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 +
			   (size_t)n);
}

int secc_listen(void)
{
	struct sockaddr_un a;
	socklen_t len = name_of(&a, getpid());
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -errno;
	if (bind(fd, (struct sockaddr *)&a, len) || listen(fd, 4)) {
		int e = -errno;

		close(fd);
		return e;
	}
	return fd;
}

/* Append printf output to @buf at *@len (cut at @size). */
static void __attribute__((format(printf, 4, 5)))
put(char *buf, size_t size, size_t *len, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (*len >= size)
		return;
	va_start(ap, fmt);
	n = vsnprintf(buf + *len, size - *len, fmt, ap);
	va_end(ap);
	if (n > 0)
		*len = *len + (size_t)n < size ? *len + (size_t)n : size;
}

/* The report of @d into @buf; its length. */
static size_t report(const struct secd *d, char *buf, size_t size)
{
	const struct secd_proc *e;
	const struct secd_seen *f;
	size_t len = 0, i, j;
	int w;

	put(buf, size, &len, "supervisor %d policy %s\n", (int)getpid(),
	    d->policy->source ? d->policy->source : "?");
	for (i = 0; i < SECD_PROCS; i++) {
		e = &d->procs[i];
		if (!e->used || !e->trapped)
			continue;
		put(buf, size, &len, "process %d trapped %llu continued %llu "
		    "dropped %llu exe %s\n", (int)e->tgid,
		    (unsigned long long)e->trapped,
		    (unsigned long long)e->continued,
		    (unsigned long long)e->dropped, e->exe);
		for (w = 0; w < SECD_W_NR; w++)
			if (e->why[w])
				put(buf, size, &len, "why %d %llu %s\n",
				    (int)e->tgid,
				    (unsigned long long)e->why[w],
				    secd_why_name(w));
		for (j = 0; j < e->nr_seen; j++) {
			f = &e->seen[j];
			put(buf, size, &len, "file %d %llu %llu | %s | %s | %s\n",
			    (int)e->tgid, (unsigned long long)f->dropped,
			    (unsigned long long)f->continued,
			    f->rule ? f->rule : "-", secd_why_name(f->why),
			    f->path);
		}
	}
	return len;
}

void secc_answer(int lsock, const struct secd *d)
{
	static char buf[REPORT_MAX];
	struct ucred cr;
	socklen_t cl = sizeof(cr);
	size_t len;
	int c = accept4(lsock, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);

	if (c < 0)
		return;
	if (!getsockopt(c, SOL_SOCKET, SO_PEERCRED, &cr, &cl) &&
	    (cr.uid == 0 || cr.uid == getuid())) {
		len = report(d, buf, sizeof(buf));
		if (send(c, buf, len, MSG_DONTWAIT | MSG_NOSIGNAL) < 0) {
			/* a client that cannot take it gets nothing */
		}
	}
	close(c);
}

ssize_t secc_query(pid_t sup, char *buf, size_t size)
{
	struct sockaddr_un a;
	socklen_t alen = name_of(&a, sup);
	size_t len = 0;
	ssize_t n;
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0), e;

	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&a, alen)) {
		e = -errno;
		close(fd);
		return e;
	}
	while (len + 1 < size) {
		n = read(fd, buf + len, size - 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	buf[len] = '\0';
	return (ssize_t)len;
}
