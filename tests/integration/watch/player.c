// SPDX-License-Identifier: MIT
/*
 * player.c - the "kernel" side of advshim-watch's integration tests.
 *
 * usage: watch_player DIR TIMELINE STEP_MS [KERNEL]
 *
 * Builds a fixture tree under DIR (debugfs/lru_gen and lru_gen_full,
 * sys/.../enabled, cg/<path>/memory.stat, a cgroup2 marker) and plays
 * TIMELINE into it, one step every STEP_MS.  It renders lru_gen and
 * lru_gen_full with the kernel's format strings (16-bit IDs before KERNEL
 * 7.0, u64 after; lru_gen_full's tier rows carry the file type's
 * refaulted and evicted counters on its min_seq row, reset when it moves)
 * and acts on what the watcher
 * writes: commands appended to debugfs/lru_gen are checked the way
 * run_aging() checks them (unknown ID or node or seq > max_seq: rejected;
 * seq < max_seq: a silent no-op on 6.x; seq == max_seq: max_seq + 1) and
 * logged to DIR/commands.log as "ACCEPT cmd" / "REJECT cmd".  Like
 * lru_gen_seq_write(), one write may carry several commands separated by
 * ',' or ';'; the first rejected one ends that write.
 *
 * Every memcg has four generations max_seq - 3 .. max_seq; their file
 * pages start at 10000, 2000, 2000, 10000 (a quarter of them in max_seq,
 * aging could move them behind the rest) and each aging step folds the
 * oldest into the next one, as inc_min_seq() does; a memcg the kernel
 * ages itself finds that layout again after each step (its working set is
 * in use).
 *
 * Timeline lines: "STEP ACTION ARGS", STEP counted from 0:
 *   add ID PATH...            new memcg (max_seq 7, youngest age 0)
 *   thrash ID EVI REF RECOVER pages evicted from the oldest generation and
 *                             refaulted per second, max_seq stuck;
 *                             RECOVER accepted agings end it (0: never)
 *   healthy ID EVI REF        the kernel ages it every step
 *   idle ID                   nothing moves but the ages
 *   remove ID                 memcg and its memory.stat disappear
 *   enabled VALUE             kernel/mm/lru_gen/enabled
 *   garble                    this step's lru_gen is cut mid-line
 *   immutable 0|1             chattr +i lru_gen between rewrites (EPERM)
 *   end                       stop playing and exit 0
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MAXM 16

enum mode { IDLE, THRASH, HEALTHY };

struct memcg {
	bool alive;
	unsigned long long id;
	char path[256];
	unsigned long max_seq;
	double birth_ms;		/* youngest generation's birth */
	double evicted, refaulted;	/* F's counters */
	double refaults;		/* memory.stat's, never reset */
	double evi_rate, ref_rate;	/* per second */
	unsigned long file[4];		/* file pages, F .. max_seq */
	enum mode mode;
	int recover;			/* accepted agings left to recover */
};

static struct memcg m[MAXM];
/* the file pages of F .. max_seq of a new memcg */
static const unsigned long layout[4] = { 10000, 2000, 2000, 10000 };
static char dir[4096];
static int step_ms;
static bool u64_ids;
static bool garble, immutable;
static off_t written;			/* bytes of lru_gen we wrote */
static FILE *cmdlog;

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000.0 + ts.tv_nsec / 1e6;
}

static void die(const char *what)
{
	fprintf(stderr, "watch_player: %s: %s\n", what, strerror(errno));
	exit(2);
}

static void path_of(char *out, size_t size, const char *rel)
{
	if (snprintf(out, size, "%s/%s", dir, rel) >= (int)size)
		die("path too long");
}

static void mkdirs(const char *path)
{
	char tmp[4096], *p;

	snprintf(tmp, sizeof(tmp), "%s", path);
	for (p = tmp + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		mkdir(tmp, 0755);
		*p = '/';
	}
	mkdir(tmp, 0755);
}

/* Replace a small file atomically (the watcher opens these per read). */
static void put_file(const char *rel, const char *text)
{
	char path[4096], tmp[4200];
	FILE *f;

	path_of(path, sizeof(path), rel);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	if (!f || fputs(text, f) < 0 || fclose(f))
		die(tmp);
	if (rename(tmp, path))
		die(path);
}

static void set_immutable(int fd, bool on)
{
	int flags;

	if (ioctl(fd, FS_IOC_GETFLAGS, &flags))
		die("FS_IOC_GETFLAGS");
	flags = on ? flags | FS_IMMUTABLE_FL : flags & ~FS_IMMUTABLE_FL;
	if (ioctl(fd, FS_IOC_SETFLAGS, &flags))
		die("FS_IOC_SETFLAGS");
}

/* tier_rows - lru_gen_full's rows under generation @k of @c. */
static size_t tier_rows(const struct memcg *c, unsigned int k, char *out,
			size_t size)
{
	size_t off = 0;
	int t;

	for (t = 0; t < 4; t++)
		off += (size_t)snprintf(out + off, size - off,
			"            %10d %10lur %10lue %10lup %10lur %10lue %10lup\n",
			t, 0ul, 0ul, 0ul,
			!k && !t ? (unsigned long)c->refaulted : 0ul,
			!k && !t ? (unsigned long)c->evicted : 0ul, 0ul);
	return off;
}

static size_t render(char *out, size_t size, bool full)
{
	double t = now_ms();
	size_t off = 0;
	int i;

	for (i = 0; i < MAXM; i++) {
		unsigned long s;

		if (!m[i].alive)
			continue;
		off += (size_t)snprintf(out + off, size - off,
					u64_ids ? "memcg %llu %s\n" :
					"memcg %5llu %s\n", m[i].id, m[i].path);
		off += (size_t)snprintf(out + off, size - off, " node %5d\n", 0);
		for (s = m[i].max_seq - 3; s <= m[i].max_seq; s++) {
			unsigned int k = (unsigned int)(s - (m[i].max_seq - 3));
			unsigned int age = (unsigned int)(t - m[i].birth_ms) +
				(unsigned int)(m[i].max_seq - s) * 5000;

			off += (size_t)snprintf(out + off, size - off,
						" %10lu %10u %10lu  %10lu \n", s,
						age, 10ul, m[i].file[k]);
			if (full)
				off += tier_rows(&m[i], k, out + off,
						 size - off);
		}
	}
	return off;
}

/* rewrite - debugfs file @rel in place: @len bytes of @buf. */
static void rewrite(const char *rel, const char *buf, size_t len, bool imm)
{
	char path[4096];
	int fd;

	path_of(path, sizeof(path), rel);
	fd = open(path, O_RDONLY);
	if (fd >= 0 && imm)
		set_immutable(fd, false);
	if (fd >= 0)
		close(fd);
	fd = open(path, O_WRONLY | O_CREAT, 0644);
	if (fd < 0 || ftruncate(fd, 0) || pwrite(fd, buf, len, 0) != (ssize_t)len)
		die(path);
	if (imm)
		set_immutable(fd, true);
	close(fd);
}

/*
 * Rewrite lru_gen and lru_gen_full in place: the watcher keeps them open
 * and re-reads from 0, as it does with the real debugfs files.
 */
static void write_lrugen(void)
{
	static char buf[1 << 17];
	size_t len = render(buf, sizeof(buf), true);

	if (garble && len > 40)
		len = 40;	/* cut mid-line */
	rewrite("debugfs/lru_gen_full", buf, len, false);
	len = render(buf, sizeof(buf), false);
	if (garble && len > 40)
		len = 40;
	rewrite("debugfs/lru_gen", buf, len, immutable);
	written = (off_t)len;
}

static void write_stats(void)
{
	char rel[600], text[256];
	int i;

	for (i = 0; i < MAXM; i++) {
		if (!m[i].alive)
			continue;
		snprintf(rel, sizeof(rel), "cg%s", m[i].path);
		path_of(text, sizeof(text), rel);
		mkdirs(text);
		snprintf(rel, sizeof(rel), "cg%s/memory.stat", m[i].path);
		snprintf(text, sizeof(text),
			 "anon 4096\nfile 8192\nworkingset_refault_anon 0\n"
			 "workingset_refault_file %.0f\n"
			 "workingset_activate_anon 0\n"
			 "workingset_activate_file 0\npgmajfault 7\n",
			 m[i].refaults);
		put_file(rel, text);
	}
}

/* One aging step: F folds into F + 1, F's counters restart. */
static void inc_max_seq(struct memcg *c)
{
	c->file[1] += c->file[0];
	memmove(c->file, c->file + 1, 3 * sizeof(c->file[0]));
	c->file[3] = 0;
	c->max_seq++;
	c->birth_ms = now_ms();
	c->evicted = c->refaulted = 0;
}

static struct memcg *find(unsigned long long id)
{
	int i;

	for (i = 0; i < MAXM; i++)
		if (m[i].alive && m[i].id == id)
			return &m[i];
	return NULL;
}

/*
 * run_aging() as 6.1-6.13 and 6.14+ both agree for a 4-field command.
 * Returns false when the command is rejected.
 */
static bool command(const char *cmd)
{
	unsigned long long id;
	unsigned long seq;
	struct memcg *c;
	int nid, n = 0;

	if (sscanf(cmd, "+ %llu %d %lu%n", &id, &nid, &seq, &n) != 3 ||
	    cmd[n] != '\0' || !(c = find(id)) || nid != 0 || seq > c->max_seq) {
		fprintf(cmdlog, "REJECT %s\n", cmd);
		return false;
	}
	fprintf(cmdlog, "ACCEPT %s\n", cmd);
	if (seq < c->max_seq)
		return true;
	inc_max_seq(c);
	if (c->mode == THRASH && c->recover > 0 && --c->recover == 0) {
		c->mode = IDLE;
		c->evi_rate = c->ref_rate = 0;
	}
	return true;
}

/* One write's commands, in order, up to the first rejected one. */
static void commands(char *line)
{
	char *cmd, *save;

	for (cmd = strtok_r(line, ",;", &save); cmd;
	     cmd = strtok_r(NULL, ",;", &save))
		if (!command(cmd))
			return;
}

/* Commands the watcher appended since our last rewrite. */
static bool take_commands(void)
{
	char path[4096], buf[4096], *line, *save;
	struct stat st;
	ssize_t n;
	int fd;

	path_of(path, sizeof(path), "debugfs/lru_gen");
	if (stat(path, &st) || st.st_size <= written)
		return false;
	fd = open(path, O_RDONLY);
	if (fd < 0)
		die(path);
	n = pread(fd, buf, sizeof(buf) - 1, written);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		commands(line);
	fflush(cmdlog);
	return true;
}

static void advance(double dt_ms)
{
	int i;

	for (i = 0; i < MAXM; i++) {
		if (!m[i].alive)
			continue;
		if (m[i].mode == HEALTHY) {
			/* its aging walks find the working set in use */
			inc_max_seq(&m[i]);
			memcpy(m[i].file, layout, sizeof(layout));
		}
		m[i].evicted += m[i].evi_rate * dt_ms / 1000.0;
		m[i].refaulted += m[i].ref_rate * dt_ms / 1000.0;
		m[i].refaults += m[i].ref_rate * dt_ms / 1000.0;
	}
}

static void action(char *line)
{
	char verb[32], rest[512] = "";
	unsigned long long id = 0;
	double a = 0, b = 0;
	int r = 0, i;
	struct memcg *c;

	if (sscanf(line, "%31s %llu", verb, &id) < 1)
		return;
	if (!strcmp(verb, "add")) {
		if (sscanf(line, "%*s %llu %511[^\n]", &id, rest) != 2)
			die("bad add");
		for (i = 0; i < MAXM && m[i].alive; i++)
			;
		m[i] = (struct memcg){ .alive = true, .id = id,
				       .max_seq = 7, .birth_ms = now_ms() };
		memcpy(m[i].file, layout, sizeof(layout));
		snprintf(m[i].path, sizeof(m[i].path), "%s", rest);
		return;
	}
	if (!strcmp(verb, "enabled")) {
		snprintf(rest, sizeof(rest), "%s\n", line + 8);
		put_file("sys/kernel/mm/lru_gen/enabled", rest);
		return;
	}
	if (!strcmp(verb, "garble")) {
		garble = true;
		return;
	}
	if (!strcmp(verb, "immutable")) {
		immutable = id != 0;
		return;
	}
	c = find(id);
	if (!c) {
		fprintf(stderr, "watch_player: no memcg %llu\n", id);
		exit(2);
	}
	sscanf(line, "%*s %*u %lf %lf %d", &a, &b, &r);
	if (!strcmp(verb, "thrash")) {
		c->mode = THRASH;
		c->evi_rate = a;
		c->ref_rate = b;
		c->recover = r;
	} else if (!strcmp(verb, "healthy")) {
		c->mode = HEALTHY;
		c->evi_rate = a;
		c->ref_rate = b;
	} else if (!strcmp(verb, "idle")) {
		c->mode = IDLE;
		c->evi_rate = c->ref_rate = 0;
	} else if (!strcmp(verb, "remove")) {
		char rel[600], path[4096];

		snprintf(rel, sizeof(rel), "cg%s/memory.stat", c->path);
		path_of(path, sizeof(path), rel);
		unlink(path);
		c->alive = false;
	}
}

int main(int argc, char **argv)
{
	char path[4096], line[600];
	double next, last;
	int step = 0, at;
	bool done = false;
	FILE *tl;

	if (argc < 4) {
		fprintf(stderr, "usage: watch_player DIR TIMELINE STEP_MS "
			"[KERNEL]\n");
		return 2;
	}
	snprintf(dir, sizeof(dir), "%s", argv[1]);
	step_ms = atoi(argv[3]);
	u64_ids = argc > 4 && atoi(argv[4]) >= 7;
	tl = fopen(argv[2], "r");
	if (!tl || step_ms <= 0)
		die(argv[2]);
	path_of(path, sizeof(path), "debugfs");
	mkdirs(path);
	path_of(path, sizeof(path), "sys/kernel/mm/lru_gen");
	mkdirs(path);
	path_of(path, sizeof(path), "cg");
	mkdirs(path);
	put_file("cg/cgroup.controllers", "cpu memory\n");
	put_file("sys/kernel/mm/lru_gen/enabled", "0x0007\n");
	path_of(path, sizeof(path), "commands.log");
	cmdlog = fopen(path, "w");
	if (!cmdlog)
		die(path);
	last = next = now_ms();
	while (!done) {
		long pos = ftell(tl);

		/* this step's actions */
		while (fgets(line, sizeof(line), tl)) {
			line[strcspn(line, "\n")] = '\0';
			if (line[0] == '#' || !line[0])
				continue;
			if (sscanf(line, "%d", &at) != 1)
				die("bad timeline line");
			if (at > step) {
				fseek(tl, pos, SEEK_SET);
				break;
			}
			if (strstr(line, " end"))
				done = true;
			else
				action(strchr(line, ' ') + 1);
			pos = ftell(tl);
		}
		advance(now_ms() - last);
		last = now_ms();
		take_commands();
		write_stats();
		write_lrugen();
		garble = false;
		if (step == 0) {
			path_of(path, sizeof(path), "ready");
			put_file("ready", "1\n");
		}
		next += step_ms;
		/* between steps: answer commands quickly, like a write(2) */
		while (!done && now_ms() < next) {
			usleep(2000);
			if (take_commands())
				write_lrugen();
		}
		step++;
	}
	take_commands();
	fclose(cmdlog);
	return 0;
}
