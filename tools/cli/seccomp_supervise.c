// SPDX-License-Identifier: MIT
/*
 * seccomp_supervise.c - the supervisor's loop: receive a notification,
 * decide (seccomp_decide.c), check that the notification is still valid
 * (SECCOMP_IOCTL_NOTIF_ID_VALID: the thread may have died and its pid
 * been reused while /proc was read), answer continue or 0.
 *
 * The log: level warn says nothing per call; info names the first drop
 * of each file per process and the counters at the end; debug names every
 * call.  Lines start "advshim-seccomp[TGID]:" (the program's pid).
 */
#include <errno.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "common/utc.h"
#include "tools/cli/seccomp.h"

#ifndef SECCOMP_USER_NOTIF_FLAG_CONTINUE
#define SECCOMP_USER_NOTIF_FLAG_CONTINUE	(1UL << 0)
#endif
#ifndef SECCOMP_IOCTL_NOTIF_ID_VALID
#define SECCOMP_IOCTL_NOTIF_ID_VALID	SECCOMP_IOW(2, __u64)
#endif

#ifndef SECCOMP_IOCTL_NOTIF_SET_FLAGS
#define SECCOMP_IOCTL_NOTIF_SET_FLAGS	SECCOMP_IOW(4, __u64)
#endif
#ifndef SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP
#define SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP	(1UL << 0)
#endif

/* Files whose first drop was logged: a small set of hashes. */
#define LOGGED_SLOTS	1024

struct sup {
	struct secd d;
	enum policy_log_level level;
	FILE *log;
	bool stamp;			/* lines after the UTC time */
	uint64_t logged[LOGGED_SLOTS];
	uint64_t decide_ns;		/* spent in secd_decide, summed */
};

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* A line's start: the UTC time to the millisecond, for a file target. */
static void line_head(const struct sup *s)
{
	char stamp[UTC_STAMP_LEN];

	if (s->stamp && utc_stamp_now(stamp, sizeof(stamp)) > 0)
		fprintf(s->log, "%s ", stamp);
}

static uint64_t hash_of(pid_t tgid, const char *path)
{
	uint64_t h = 1469598103934665603ULL ^ (uint64_t)tgid;

	while (*path)
		h = (h ^ (unsigned char)*path++) * 1099511628211ULL;
	return h | 1;
}

/* True the first time (@tgid, @path) is seen (or when the set is full). */
static bool first_seen(struct sup *s, pid_t tgid, const char *path)
{
	uint64_t h = hash_of(tgid, path);
	size_t i, slot = h % LOGGED_SLOTS;

	for (i = 0; i < LOGGED_SLOTS; i++, slot = (slot + 1) % LOGGED_SLOTS) {
		if (s->logged[slot] == h)
			return false;
		if (!s->logged[slot]) {
			s->logged[slot] = h;
			return true;
		}
	}
	return true;
}

static void log_call(struct sup *s, const struct secd_call *c,
		     const struct secd_result *r)
{
	const char *what = r->answer == SECD_DROP ? "dropped" : "continued";
	bool adaptive = r->why == SECD_W_ADAPT_NORMAL ||
			r->why == SECD_W_ADAPT_RANDOM;
	char call[96];

	if (s->level < POLICY_LOG_INFO)
		return;
	/*
	 * info: the first decision per file and process that the policy made:
	 * a drop, or an adaptive rule keeping RANDOM (with the figures why).
	 */
	if (s->level < POLICY_LOG_DEBUG &&
	    ((r->answer != SECD_DROP && r->why != SECD_W_ADAPT_RANDOM) ||
	     !first_seen(s, r->tgid, r->path)))
		return;
	if (c->nr == __NR_madvise)
		snprintf(call, sizeof(call), "madvise(%#llx, %llu, random)",
			 (unsigned long long)c->args[0],
			 (unsigned long long)c->args[1]);
	else
		snprintf(call, sizeof(call), "fadvise64(%d, %lld, %lld, random)",
			 (int)c->args[0], (long long)c->args[1],
			 (long long)c->args[2]);
	line_head(s);
	fprintf(s->log, "advshim-seccomp[%d]: %s %s: %s (%s%s%s%s%s)\n",
		(int)r->tgid, call, r->path[0] ? r->path : "-", what,
		r->rule ? r->rule : "no rule", r->rule ? ": " : "",
		r->rule ? secd_why_name(r->why) : "",
		adaptive ? "; " : "", adaptive ? s->d.last_desc : "");
	fflush(s->log);
	clearerr(s->log);	/* EAGAIN: a full pipe, the line is lost */
}

/* Answer @req: continue, or success with value 0. */
static int answer(int fd, const struct seccomp_notif *req,
		  struct seccomp_notif_resp *resp, size_t resp_size,
		  enum secd_answer a)
{
	memset(resp, 0, resp_size);
	resp->id = req->id;
	if (a == SECD_CONTINUE)
		resp->flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
	if (ioctl(fd, SECCOMP_IOCTL_NOTIF_SEND, resp))
		return -errno;
	return 0;
}

/* One notification: 0, or a negative errno that ends the loop. */
static int serve_one(struct sup *s, int fd, struct seccomp_notif *req,
		     size_t req_size, struct seccomp_notif_resp *resp,
		     size_t resp_size)
{
	struct secd_result r;
	struct secd_call c;
	uint64_t t0;
	int i, ret;

	memset(req, 0, req_size);
	if (ioctl(fd, SECCOMP_IOCTL_NOTIF_RECV, req)) {
		/* ENOENT: the caller died (or was signalled) meanwhile. */
		return errno == EINTR || errno == ENOENT ? 0 : -errno;
	}
	c.tid = (pid_t)req->pid;
	c.nr = req->data.nr;
	for (i = 0; i < 6; i++)
		c.args[i] = req->data.args[i];
	s->d.notified++;
	t0 = mono_ns();
	secd_decide(&s->d, &c, &r);
	s->decide_ns += mono_ns() - t0;
	if (ioctl(fd, SECCOMP_IOCTL_NOTIF_ID_VALID, &req->id)) {
		s->d.gone++;
		return 0;
	}
	ret = answer(fd, req, resp, resp_size, r.answer);
	if (ret == -ENOENT) {
		s->d.gone++;
		return 0;
	}
	if (ret)
		return ret;
	secd_count(&s->d, &r);
	log_call(s, &c, &r);
	return 0;
}

static void log_summary(const struct sup *s)
{
	int w;

	if (s->level < POLICY_LOG_INFO)
		return;
	line_head(s);
	fprintf(s->log, "advshim-seccomp: %llu calls trapped: %llu continued, "
		"%llu dropped, %llu gone before the answer; decided in "
		"%llu ns per call",
		(unsigned long long)s->d.notified,
		(unsigned long long)s->d.continued,
		(unsigned long long)s->d.dropped,
		(unsigned long long)s->d.gone,
		(unsigned long long)(s->d.notified ?
			s->decide_ns / s->d.notified : 0));
	for (w = 0; w < SECD_W_NR; w++)
		if (s->d.why[w])
			fprintf(s->log, "; %s %llu", secd_why_name(w),
				(unsigned long long)s->d.why[w]);
	fputc('\n', s->log);
	fflush(s->log);
}

int secs_serve(int listener, const struct policy *p,
	       enum policy_log_level level, FILE *log, bool stamp)
{
	struct seccomp_notif_sizes sz;
	struct seccomp_notif_resp *resp;
	struct seccomp_notif *req;
	struct pollfd pfd[2] = {
		{ .fd = listener, .events = POLLIN },
		{ .fd = -1, .events = POLLIN },
	};
	struct sup *s;
	int ret = 0;

	if (syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sz))
		return -errno;
	s = calloc(1, sizeof(*s));
	req = calloc(1, sz.seccomp_notif > sizeof(*req) ?
			sz.seccomp_notif : sizeof(*req));
	resp = calloc(1, sz.seccomp_notif_resp > sizeof(*resp) ?
			 sz.seccomp_notif_resp : sizeof(*resp));
	if (!s || !req || !resp) {
		ret = -ENOMEM;
		goto out;
	}
	secd_init(&s->d, p);
	/*
	 * 6.6+: wake the caller on the supervisor's CPU when answering
	 * (WF_CURRENT_CPU), as a synchronous round trip wants; older
	 * kernels refuse (EINVAL) and wake it as any task.
	 */
	ioctl(listener, SECCOMP_IOCTL_NOTIF_SET_FLAGS,
	      SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP, 0);
	s->level = level;
	s->log = log;
	s->stamp = stamp;
	pfd[1].fd = secc_listen();	/* no report without it: no matter */
	for (;;) {
		if (poll(pfd, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			ret = -errno;
			break;
		}
		if (pfd[1].revents & POLLIN)
			secc_answer(pfd[1].fd, &s->d);
		if (pfd[0].revents & POLLIN) {
			ret = serve_one(s, listener, req,
					sz.seccomp_notif > sizeof(*req) ?
					sz.seccomp_notif : sizeof(*req), resp,
					sz.seccomp_notif_resp > sizeof(*resp) ?
					sz.seccomp_notif_resp : sizeof(*resp));
			if (ret)
				break;
			continue;
		}
		if (pfd[0].revents & (POLLHUP | POLLERR))
			break;		/* no process uses the filter */
	}
	if (pfd[1].fd >= 0)
		close(pfd[1].fd);
	log_summary(s);
	secd_release(&s->d);
out:
	free(resp);
	free(req);
	free(s);
	return ret;
}
