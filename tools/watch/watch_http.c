// SPDX-License-Identifier: MIT
/*
 * watch_http.c - GET /metrics for Prometheus (watch_http.h): a listening
 * socket and a fixed table of connections, all non-blocking, driven by
 * poll(2) from the watcher's sleep between ticks.  A connection reads its
 * request (up to WHTTP_REQ_MAX bytes, to the blank line), gets one
 * response built in memory, is written as far as the socket takes and
 * closed once written (Connection: close), or after WHTTP_IDLE_MS.
 */
#include "tools/watch/watch_http.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/clock.h"

struct conn {
	int fd;				/* -1: free slot */
	uint64_t since_ms;
	char req[WHTTP_REQ_MAX];
	size_t req_len;
	char *out;			/* the response, once built */
	size_t out_len, out_off;
};

struct whttp {
	int fd;
	char addr[INET6_ADDRSTRLEN + 8];
	struct conn c[WHTTP_CLIENTS];
};

/* Split @spec into a numeric host and a port; 0, or -1 (bad spec). */
static int parse_spec(const char *spec, char *host, size_t hsize,
		      unsigned int *port)
{
	const char *colon, *p;
	char *end;
	unsigned long v;
	size_t n;

	if (spec[0] == '[') {
		colon = strchr(spec, ']');
		if (!colon || colon[1] != ':')
			return -1;
		n = (size_t)(colon - spec - 1);
		p = colon + 2;
		spec++;
	} else if ((colon = strrchr(spec, ':'))) {
		n = (size_t)(colon - spec);
		p = colon + 1;
	} else {
		n = 0;
		p = spec;
	}
	if (n >= hsize)
		return -1;
	memcpy(host, spec, n);
	host[n] = '\0';
	if (!n || !strcmp(host, "localhost"))
		snprintf(host, hsize, "%s", WHTTP_DEFAULT_HOST);
	errno = 0;
	v = strtoul(p, &end, 10);
	if (!*p || *end || errno || v > 65535)
		return -1;
	*port = (unsigned int)v;
	return 0;
}

/* The address bound, as "ADDR:PORT" or "[ADDR]:PORT", into h->addr. */
static void name_bound(struct whttp *h)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	char a[INET6_ADDRSTRLEN];

	if (getsockname(h->fd, (struct sockaddr *)&ss, &len))
		return;
	if (ss.ss_family == AF_INET6) {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;

		inet_ntop(AF_INET6, &s6->sin6_addr, a, sizeof(a));
		snprintf(h->addr, sizeof(h->addr), "[%s]:%u", a,
			 ntohs(s6->sin6_port));
	} else {
		struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;

		inet_ntop(AF_INET, &s4->sin_addr, a, sizeof(a));
		snprintf(h->addr, sizeof(h->addr), "%s:%u", a,
			 ntohs(s4->sin_port));
	}
}

struct whttp *whttp_open(const char *spec, char *why, size_t size)
{
	struct sockaddr_storage ss = { 0 };
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;
	struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;
	char host[INET6_ADDRSTRLEN];
	unsigned int port;
	struct whttp *h;
	socklen_t len;
	int one = 1, e, i;

	if (parse_spec(spec, host, sizeof(host), &port)) {
		snprintf(why, size, "--metrics-listen '%s': want ADDR:PORT, [ADDR]:PORT or PORT (0-65535)", spec);
		errno = EINVAL;
		return NULL;
	}
	if (inet_pton(AF_INET, host, &s4->sin_addr) == 1) {
		s4->sin_family = AF_INET;
		s4->sin_port = htons((uint16_t)port);
		len = sizeof(*s4);
	} else if (inet_pton(AF_INET6, host, &s6->sin6_addr) == 1) {
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons((uint16_t)port);
		len = sizeof(*s6);
	} else {
		snprintf(why, size, "--metrics-listen '%s': '%s' is not a numeric address", spec, host);
		errno = EINVAL;
		return NULL;
	}
	if (!(h = calloc(1, sizeof(*h)))) {
		snprintf(why, size, "out of memory");
		return NULL;
	}
	for (i = 0; i < WHTTP_CLIENTS; i++)
		h->c[i].fd = -1;
	h->fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (h->fd < 0 ||
	    setsockopt(h->fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(h->fd, (struct sockaddr *)&ss, len) || listen(h->fd, 16)) {
		e = errno;
		snprintf(why, size, "--metrics-listen %s: %s", spec, strerror(e));
		if (h->fd >= 0)
			close(h->fd);
		free(h);
		errno = e;
		return NULL;
	}
	snprintf(h->addr, sizeof(h->addr), "%s", spec);
	name_bound(h);
	return h;
}

const char *whttp_addr(const struct whttp *h)
{
	return h->addr;
}

static void drop(struct conn *c)
{
	close(c->fd);
	free(c->out);
	c->fd = -1;
	c->out = NULL;
	c->req_len = c->out_len = c->out_off = 0;
}

/* One response: status line, headers, @body (@blen bytes) into c->out. */
static void respond(struct conn *c, const char *status, const char *type,
		    const char *body, size_t blen, bool head)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return;
	fprintf(f, "HTTP/1.1 %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n"
		"Connection: close\r\n\r\n", status, type, blen);
	if (!head && blen)
		fwrite(body, 1, blen, f);
	if (fclose(f)) {
		free(buf);
		return;
	}
	c->out = buf;
	c->out_len = len;
}

/* The request in c->req is complete: build the response for it. */
static void answer(struct conn *c, whttp_render render, void *ctx)
{
	static const char text[] = "text/plain; charset=utf-8";
	char method[8], path[256], *body = NULL;
	size_t blen = 0;
	bool head;
	FILE *f;
	int ok;

	c->req[c->req_len] = '\0';
	if (sscanf(c->req, "%7s %255s", method, path) != 2) {
		respond(c, "400 Bad Request", text, "bad request\n", 12, false);
		return;
	}
	head = !strcmp(method, "HEAD");
	if (!head && strcmp(method, "GET")) {
		respond(c, "405 Method Not Allowed", text, "GET only\n", 9, false);
		return;
	}
	path[strcspn(path, "?")] = '\0';
	if (!strcmp(path, "/")) {
		respond(c, "200 OK", text, "advshim-watch: metrics at /metrics\n",
			35, head);
		return;
	}
	if (strcmp(path, "/metrics")) {
		respond(c, "404 Not Found", text, "not found; try /metrics\n",
			24, head);
		return;
	}
	f = open_memstream(&body, &blen);
	if (!f)
		return;
	ok = !render(ctx, f);
	if (fclose(f))
		ok = 0;
	if (ok)
		respond(c, "200 OK", "text/plain; version=0.0.4; charset=utf-8",
			body, blen, head);
	else
		respond(c, "500 Internal Server Error", text,
			"cannot render the metrics\n", 26, head);
	free(body);
}

/* Readable: take what is there; answer once the blank line arrives. */
static void on_read(struct conn *c, whttp_render render, void *ctx)
{
	ssize_t n;

	for (;;) {
		if (c->req_len >= sizeof(c->req) - 1) {
			respond(c, "431 Request Header Fields Too Large",
				"text/plain; charset=utf-8", "too large\n", 10,
				false);
			return;
		}
		n = recv(c->fd, c->req + c->req_len,
			 sizeof(c->req) - 1 - c->req_len, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		if (n <= 0) {
			drop(c);	/* closed or failed before asking */
			return;
		}
		c->req_len += (size_t)n;
		c->req[c->req_len] = '\0';
		if (strstr(c->req, "\r\n\r\n") || strstr(c->req, "\n\n")) {
			answer(c, render, ctx);
			if (!c->out)
				drop(c);	/* out of memory: no answer */
			return;
		}
	}
}

/* Writable: send what the socket takes; close once all is sent. */
static void on_write(struct conn *c)
{
	ssize_t n;

	while (c->out_off < c->out_len) {
		n = send(c->fd, c->out + c->out_off, c->out_len - c->out_off,
			 MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		if (n < 0) {
			drop(c);
			return;
		}
		c->out_off += (size_t)n;
	}
	shutdown(c->fd, SHUT_WR);
	drop(c);
}

/* Accept while a slot is free and connections wait. */
static void on_accept(struct whttp *h, uint64_t now)
{
	int i, fd;

	for (i = 0; i < WHTTP_CLIENTS; i++) {
		if (h->c[i].fd >= 0)
			continue;
		fd = accept4(h->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0)
			return;
		h->c[i].fd = fd;
		h->c[i].since_ms = now;
	}
}

void whttp_serve(struct whttp *h, uint64_t deadline_ms, whttp_render render,
		 void *ctx)
{
	struct pollfd pfd[WHTTP_CLIENTS + 1];
	int idx[WHTTP_CLIENTS + 1], i, n, r;
	uint64_t now, wake;
	bool free_slot;

	for (;;) {
		now = mono_ms();
		if (now >= deadline_ms)
			return;
		wake = deadline_ms;
		n = 0;
		free_slot = false;
		for (i = 0; i < WHTTP_CLIENTS; i++) {
			struct conn *c = &h->c[i];

			if (c->fd < 0) {
				free_slot = true;
				continue;
			}
			if (now >= c->since_ms + WHTTP_IDLE_MS) {
				drop(c);
				free_slot = true;
				continue;
			}
			if (c->since_ms + WHTTP_IDLE_MS < wake)
				wake = c->since_ms + WHTTP_IDLE_MS;
			pfd[n] = (struct pollfd){ c->fd, c->out ? POLLOUT : POLLIN, 0 };
			idx[n++] = i;
		}
		if (free_slot) {
			pfd[n] = (struct pollfd){ h->fd, POLLIN, 0 };
			idx[n++] = -1;
		}
		r = poll(pfd, (nfds_t)n, (int)(wake - now));
		if (r < 0)
			return;		/* EINTR: a signal for the caller */
		for (i = 0; r > 0 && i < n; i++) {
			if (!pfd[i].revents)
				continue;
			if (idx[i] < 0)
				on_accept(h, mono_ms());
			else if (h->c[idx[i]].out)
				on_write(&h->c[idx[i]]);
			else
				on_read(&h->c[idx[i]], render, ctx);
			if (idx[i] >= 0 && h->c[idx[i]].fd >= 0 &&
			    h->c[idx[i]].out && h->c[idx[i]].out_off == 0)
				on_write(&h->c[idx[i]]);	/* at once */
		}
	}
}

void whttp_close(struct whttp *h)
{
	int i;

	if (!h)
		return;
	for (i = 0; i < WHTTP_CLIENTS; i++)
		if (h->c[i].fd >= 0)
			drop(&h->c[i]);
	close(h->fd);
	free(h);
}
