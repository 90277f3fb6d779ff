// SPDX-License-Identifier: MIT
/*
 * watchfault.c - libadvshim-watchfault.so: the kernel misbehaving under
 * advshim-watch, preloaded into the real daemon.
 *
 * It only touches reads and writes of files named lru_gen / lru_gen_full
 * (the fixture tree that tests/integration/watch/player.c plays), and is
 * driven by the environment:
 *   WATCHFAULT_LOG=FILE         every write to lru_gen: "WRITE cmd -> ok|ERR"
 *   WATCHFAULT_WRITE_ERRNO=E[:N] the first N writes (all without :N) fail
 *                               with E (EINVAL, ERANGE, EEXIST, EPERM) and
 *                               do not reach the file, as when the kernel
 *                               rejects the command
 *   WATCHFAULT_AFTER_WRITE=hide:ID | reuse:ID:PATH
 *                               from the first write attempt on, reads no
 *                               longer show memcg ID (deleted between the
 *                               daemon's re-read and its write), or show
 *                               ID under PATH (the ID reused by a new
 *                               cgroup in that window)
 *   WATCHFAULT_READ=nonl | truncate | nul | dup:ID
 *                               every read: no final newline; cut after the
 *                               last node line (a node without generations);
 *                               a NUL byte in the middle; the block of ID
 *                               printed again under another ID (a dying
 *                               memcg next to its successor, same path)
 * Everything else passes straight to the kernel (raw syscalls).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define BUF (1 << 20)

static char raw[BUF], out[BUF];
static size_t out_len, out_pos;
static int out_fd = -1;
static int writes;
static int after_write;		/* the first write was attempted */

static int is_lrugen(int fd)
{
	char link[64], path[512];
	ssize_t n;
	const char *b;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = syscall(SYS_readlink, link, path, sizeof(path) - 1);
	if (n <= 0)
		return 0;
	path[n] = '\0';
	b = strrchr(path, '/');
	b = b ? b + 1 : path;
	return !strcmp(b, "lru_gen") || !strcmp(b, "lru_gen_full");
}

static int errno_of(const char *s)
{
	if (!strncmp(s, "EINVAL", 6)) return EINVAL;
	if (!strncmp(s, "ERANGE", 6)) return ERANGE;
	if (!strncmp(s, "EEXIST", 6)) return EEXIST;
	if (!strncmp(s, "EPERM", 5)) return EPERM;
	return EIO;
}

static void logf_(const char *cmd, size_t len, int err)
{
	const char *f = getenv("WATCHFAULT_LOG");
	char line[512];
	FILE *fp;
	int n;

	if (!f)
		return;
	while (len && cmd[len - 1] == '\n')
		len--;
	n = snprintf(line, sizeof(line), "WRITE %.*s -> %s\n", (int)len, cmd,
		     err ? strerror(err) : "ok");
	fp = fopen(f, "a");
	if (fp) {
		fwrite(line, 1, (size_t)n, fp);
		fclose(fp);
	}
}

ssize_t write(int fd, const void *buf, size_t len)
{
	const char *e = getenv("WATCHFAULT_WRITE_ERRNO");

	if (fd > 2 && is_lrugen(fd)) {
		int err = 0;

		after_write = 1;
		writes++;
		if (e) {
			const char *colon = strchr(e, ':');

			if (!colon || writes <= atoi(colon + 1))
				err = errno_of(e);
		}
		logf_(buf, len, err);
		if (err) {
			errno = err;
			return -1;
		}
	}
	return syscall(SYS_write, fd, buf, len);
}

/* Copy @in to @o, applying the configured faults. */
static size_t transform(const char *in, size_t len, char *o)
{
	const char *rd = getenv("WATCHFAULT_READ");
	const char *aw = after_write ? getenv("WATCHFAULT_AFTER_WRITE") : NULL;
	char hide_id[32] = "", reuse_path[256] = "", dup_id[32] = "";
	const char *p = in, *end = in + len, *last_node = NULL;
	size_t n = 0, dup_start = 0, dup_len = 0;
	int skipping = 0, in_dup = 0;

	if (aw && !strncmp(aw, "hide:", 5))
		snprintf(hide_id, sizeof(hide_id), "%s", aw + 5);
	if (aw && !strncmp(aw, "reuse:", 6)) {
		const char *c = strchr(aw + 6, ':');

		if (c) {
			snprintf(hide_id, sizeof(hide_id), "%.*s", (int)(c - aw - 6), aw + 6);
			snprintf(reuse_path, sizeof(reuse_path), "%s", c + 1);
		}
	}
	if (rd && !strncmp(rd, "dup:", 4))
		snprintf(dup_id, sizeof(dup_id), "%s", rd + 4);
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t l = nl ? (size_t)(nl - p) + 1 : (size_t)(end - p);
		char id[32] = "";

		if (!strncmp(p, "memcg ", 6)) {
			sscanf(p + 6, "%31s", id);
			skipping = hide_id[0] && !strcmp(id, hide_id);
			in_dup = dup_id[0] && !strcmp(id, dup_id);
			if (in_dup)
				dup_start = n;
			if (skipping && reuse_path[0]) {
				n += (size_t)sprintf(o + n, "memcg %s %s\n", id, reuse_path);
				p += l;
				skipping = 2;	/* keep its node lines */
				continue;
			}
		}
		if (!strncmp(p, " node ", 6))
			last_node = o + n + l;
		if (skipping != 1) {
			memcpy(o + n, p, l);
			n += l;
			if (in_dup)
				dup_len = n - dup_start;
		}
		p += l;
	}
	if (dup_len && n + dup_len + 32 < BUF) {
		/* The same block again, under another ID. */
		const char *b = o + dup_start, *sp = b + 6;

		while (*sp == ' ')		/* "memcg %5hu": padded */
			sp++;
		while (*sp >= '0' && *sp <= '9')
			sp++;

		n += (size_t)sprintf(o + n, "memcg 4%s%.*s", dup_id,
				     (int)(dup_len - (size_t)(sp - b)), sp);
	}
	if (rd && !strcmp(rd, "nonl") && n && o[n - 1] == '\n')
		n--;
	if (rd && !strcmp(rd, "truncate") && last_node)
		n = (size_t)(last_node - o);
	if (rd && !strcmp(rd, "nul") && n > 8)
		o[n / 2] = '\0';
	return n;
}

ssize_t read(int fd, void *buf, size_t len)
{
	size_t got = 0;
	ssize_t r;

	if (fd <= 2 || !is_lrugen(fd) ||
	    (!getenv("WATCHFAULT_READ") && !(after_write && getenv("WATCHFAULT_AFTER_WRITE"))))
		return syscall(SYS_read, fd, buf, len);
	if (syscall(SYS_lseek, fd, 0, SEEK_CUR) == 0 || fd != out_fd) {
		while ((r = syscall(SYS_pread64, fd, raw + got, BUF / 2 - got, (off_t)got)) > 0)
			got += (size_t)r;
		out_len = transform(raw, got, out);
		out_pos = 0;
		out_fd = fd;
	}
	if (len > out_len - out_pos)
		len = out_len - out_pos;
	memcpy(buf, out + out_pos, len);
	out_pos += len;
	syscall(SYS_lseek, fd, (off_t)len ? (off_t)len : 1, SEEK_CUR);
	return (ssize_t)len;
}
