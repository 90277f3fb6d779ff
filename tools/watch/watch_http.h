/* SPDX-License-Identifier: MIT */
/*
 * watch_http.h - advshim-watch's Prometheus endpoint (--metrics-listen):
 * HTTP/1.0-style GET /metrics on one listening TCP socket, served from the
 * poll loop's sleep.  Single-threaded: every socket is non-blocking, a
 * request is answered from the state at that moment and its connection
 * closed; at most WHTTP_CLIENTS connections at a time, each dropped after
 * WHTTP_IDLE_MS.  Nothing here locks.
 */
#ifndef ADVSHIM_WATCH_HTTP_H
#define ADVSHIM_WATCH_HTTP_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define WHTTP_CLIENTS		8
#define WHTTP_IDLE_MS		5000
#define WHTTP_REQ_MAX		2048
#define WHTTP_DEFAULT_HOST	"127.0.0.1"

struct whttp;

/* The body of GET /metrics: write it to @f; 0, or -1 (a 500 is sent). */
typedef int (*whttp_render)(void *ctx, FILE *f);

/*
 * whttp_open - listen on @spec: "ADDR:PORT", "[V6ADDR]:PORT", ":PORT" or
 * "PORT" (the address then WHTTP_DEFAULT_HOST: localhost only), ADDR
 * numeric or "localhost"; PORT 0 takes a free one (whttp_addr says
 * which).  Returns the endpoint, or NULL with errno set and a sentence in
 * @why (EINVAL: a bad @spec; else socket, bind or listen's errno).
 */
struct whttp *whttp_open(const char *spec, char *why, size_t size);

/* whttp_addr - "ADDR:PORT" actually bound (static to @h). */
const char *whttp_addr(const struct whttp *h);

/*
 * whttp_serve - accept, read and answer until CLOCK_MONOTONIC reaches
 * @deadline_ms (common/clock.h's mono_ms) or a signal interrupts poll(2);
 * GET (or HEAD) /metrics is answered with @render's text, / with a line
 * naming /metrics, any other path 404, any other method 405.  Errors on
 * a connection close it; never fails.
 */
void whttp_serve(struct whttp *h, uint64_t deadline_ms, whttp_render render,
		 void *ctx);

/* whttp_close - close every socket and free @h (NULL: nothing). */
void whttp_close(struct whttp *h);

#endif /* ADVSHIM_WATCH_HTTP_H */
