// SPDX-License-Identifier: MIT
/*
 * load_random.c - `advshim-load random`: HNSW-like queries over a mapping.
 *
 * Threads of ONE process, like a JVM search node: the MGLRU stall in the
 * seed needs that (with separate processes some evictions run below the
 * default priority and aging happens).  Each thread runs queries of K
 * dependent reads; the byte read is folded into the thread's RNG so a
 * read cannot start before the previous one finished (a graph hop).
 *
 * Counters and latency buckets are per thread and atomic: the reporter
 * drains them every interval with exchanges, so memory stays fixed.
 * Latencies are kept in nanoseconds and printed in microseconds.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "tools/load/lathist.h"
#include "tools/load/load.h"
#include "tools/load/zipf.h"

struct worker {
	pthread_t tid;
	const struct load_opts *o;
	const uint8_t *map;
	const uint32_t *perm;	/* rank - 1 -> record; NULL: identity */
	const struct zipf *z;
	uint64_t seed;
	_Atomic uint64_t queries;
	_Atomic uint64_t reads;
	_Atomic uint64_t hist[LATHIST_NR];
} __attribute__((aligned(64)));

static atomic_bool stop_flag;

/* One dependent read: touch every page of the record, return a byte. */
static uint64_t touch_record(const uint8_t *p, uint64_t len)
{
	uint64_t v = 0;
	long pg = sysconf(_SC_PAGESIZE);

	for (uint64_t off = 0; off < len; off += (uint64_t)pg)
		v += *(const volatile uint8_t *)(p + off);
	return v;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	const struct load_opts *o = w->o;
	struct rng r;

	rng_seed(&r, w->seed);
	while (!atomic_load_explicit(&stop_flag, memory_order_relaxed)) {
		uint64_t t0 = now_ns(), ns;

		for (unsigned int i = 0; i < o->reads; i++) {
			uint64_t rank = zipf_next(w->z, &r) - 1;
			uint64_t rec = w->perm ? w->perm[rank] : rank;

			/* Data dependency: the next hop depends on this read. */
			r.s[3] ^= touch_record(w->map + rec * o->record,
					       o->record) | 1;
		}
		ns = now_ns() - t0;
		atomic_fetch_add_explicit(&w->hist[lathist_index(ns)], 1,
					  memory_order_relaxed);
		atomic_fetch_add_explicit(&w->reads, o->reads,
					  memory_order_relaxed);
		atomic_fetch_add_explicit(&w->queries, 1, memory_order_relaxed);
	}
	return NULL;
}

/* A fixed pseudo-random permutation of the records (Fisher-Yates), so the
 * hottest records are spread over the whole file. */
static uint32_t *make_perm(uint64_t n, uint64_t seed)
{
	uint32_t *perm = malloc(n * sizeof(*perm));
	struct rng r;

	if (!perm)
		return NULL;
	for (uint64_t i = 0; i < n; i++)
		perm[i] = (uint32_t)i;
	rng_seed(&r, seed ^ 0x9e3779b97f4a7c15ULL);
	for (uint64_t i = n - 1; i > 0; i--) {
		uint64_t j = rng_below(&r, i + 1);
		uint32_t t = perm[i];

		perm[i] = perm[j];
		perm[j] = t;
	}
	return perm;
}

struct totals {
	uint64_t queries, reads, majflt, t_ns;
};

static void sample(struct worker *w, unsigned int nw, struct totals *t,
		   struct lathist *h)
{
	memset(h, 0, sizeof(*h));
	t->queries = t->reads = 0;
	for (unsigned int i = 0; i < nw; i++) {
		for (unsigned int b = 0; b < LATHIST_NR; b++) {
			uint64_t c = atomic_exchange_explicit(&w[i].hist[b], 0,
							       memory_order_relaxed);
			if (c)
				lathist_add(h, lathist_lower(b), c);
		}
		t->queries += atomic_load_explicit(&w[i].queries,
						   memory_order_relaxed);
		t->reads += atomic_load_explicit(&w[i].reads,
						 memory_order_relaxed);
	}
	t->majflt = majflt_self();
	t->t_ns = now_ns();
}

static void print_header(const struct load_opts *o, uint64_t size,
			 uint64_t nrec)
{
	if (o->json) {
		printf("{\"event\":\"start\",\"mode\":\"random\",\"file\":\"%s\",\"size\":%" PRIu64
		       ",\"records\":%" PRIu64 ",\"threads\":%u,\"reads_per_query\":%u,\"record\":%" PRIu64
		       ",\"theta\":%g,\"advice\":\"%s\",\"seed\":%" PRIu64 ",\"pid\":%d,\"mono_ms\":%" PRIu64 "}\n",
		       o->file, size, nrec, o->threads, o->reads, o->record,
		       o->theta, advice_name(o->advice), o->seed, (int)getpid(),
		       now_ns() / 1000000);
		return;
	}
	printf("# advshim-load random file=%s size=%" PRIu64 " records=%" PRIu64
	       " threads=%u reads_per_query=%u record=%" PRIu64
	       " theta=%g advice=%s seed=%" PRIu64 " pid=%d mono_ms=%" PRIu64 "\n",
	       o->file, size, nrec, o->threads, o->reads, o->record, o->theta,
	       advice_name(o->advice), o->seed, (int)getpid(),
	       now_ns() / 1000000);
	printf("elapsed_ms\tmono_ms\tqueries\tqps\treads_s\tp50_us\tp90_us\tp99_us\tmajflt\tmajflt_s\n");
}

/* A quantile of a nanosecond histogram, in microseconds. */
static double us_q(const struct lathist *h, double q)
{
	return (double)lathist_quantile(h, q) / 1000.0;
}

static void print_row(const struct load_opts *o, const char *event,
		      uint64_t t0, const struct totals *prev,
		      const struct totals *cur, const struct lathist *h)
{
	double dt = (double)(cur->t_ns - prev->t_ns) / 1e9;
	uint64_t dq = cur->queries - prev->queries;
	uint64_t dr = cur->reads - prev->reads;
	uint64_t df = cur->majflt - prev->majflt;
	uint64_t el = (cur->t_ns - t0) / 1000000;

	if (dt <= 0)
		dt = 1e-9;
	if (o->json) {
		printf("{\"event\":\"%s\",\"elapsed_ms\":%" PRIu64 ",\"mono_ms\":%" PRIu64
		       ",\"queries\":%" PRIu64 ",\"qps\":%.1f,\"reads_s\":%.1f,\"p50_us\":%.2f"
		       ",\"p90_us\":%.2f,\"p99_us\":%.2f,\"majflt\":%" PRIu64
		       ",\"majflt_s\":%.1f}\n", event, el, cur->t_ns / 1000000, dq,
		       dq / dt, dr / dt, us_q(h, 0.5),
		       us_q(h, 0.9), us_q(h, 0.99), df,
		       df / dt);
	} else if (!strcmp(event, "interval")) {
		printf("%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%.1f\t%.1f\t%.2f\t%.2f"
		       "\t%.2f\t%" PRIu64 "\t%.1f\n", el, cur->t_ns / 1000000, dq,
		       dq / dt, dr / dt, us_q(h, 0.5),
		       us_q(h, 0.9), us_q(h, 0.99), df,
		       df / dt);
	} else {
		printf("# summary elapsed_ms=%" PRIu64 " queries=%" PRIu64 " qps=%.1f reads_s=%.1f"
		       " p50_us=%.2f p90_us=%.2f p99_us=%.2f majflt=%" PRIu64 "\n",
		       el, dq, dq / dt, dr / dt, us_q(h, 0.5),
		       us_q(h, 0.9), us_q(h, 0.99), df);
	}
	fflush(stdout);
}

static int apply_advice(enum load_advice advice, void *map, uint64_t size)
{
	int adv, ret;

	switch (advice) {
	case ADVICE_NORMAL: adv = POSIX_MADV_NORMAL; break;
	case ADVICE_RANDOM: adv = POSIX_MADV_RANDOM; break;
	case ADVICE_SEQUENTIAL: adv = POSIX_MADV_SEQUENTIAL; break;
	default: return 0;
	}
	/* Like Lucene: posix_madvise, and a failure is an error. */
	ret = posix_madvise(map, size, adv);
	if (ret) {
		fprintf(stderr, "advshim-load: posix_madvise(%s): %s\n",
			advice_name(advice), strerror(ret));
		return -1;
	}
	return 0;
}

/* --switch-advice-at: apply the switches due by @now_ms (since start). */
static void switch_due(const struct load_opts *o, unsigned int *done,
		       void *map, uint64_t size, uint64_t now_ms, uint64_t mono_ms)
{
	while (*done < o->nr_switch && o->sw[*done].at_ms <= now_ms) {
		const char *to = advice_name(o->sw[*done].advice);
		int bad = apply_advice(o->sw[*done].advice, map, size);

		if (o->json)
			printf("{\"event\":\"switch\",\"elapsed_ms\":%" PRIu64
			       ",\"mono_ms\":%" PRIu64 ",\"advice\":\"%s\",\"ok\":%s}\n",
			       now_ms, mono_ms, to, bad ? "false" : "true");
		else
			printf("# switch elapsed_ms=%" PRIu64 " mono_ms=%" PRIu64
			       " advice=%s ok=%d\n", now_ms, mono_ms, to, !bad);
		(*done)++;
	}
}

/* Wait until @deadline_ns or a termination signal; true on a signal. */
static bool wait_until(const sigset_t *set, uint64_t deadline_ns)
{
	for (;;) {
		uint64_t now = now_ns();
		struct timespec ts;

		if (now >= deadline_ns)
			return false;
		ts.tv_sec = (time_t)((deadline_ns - now) / 1000000000ull);
		ts.tv_nsec = (long)((deadline_ns - now) % 1000000000ull);
		if (sigtimedwait(set, NULL, &ts) > 0)
			return true;
		if (errno != EAGAIN && errno != EINTR)
			return false;
	}
}

/* The reporting loop; returns after the duration or a signal. */
static void report_loop(const struct load_opts *o, struct worker *w,
			const sigset_t *set, uint64_t t0, void *map,
			uint64_t size)
{
	uint64_t step = (uint64_t)o->interval_ms * 1000000ull;
	uint64_t end = o->duration_s > 0 ?
		t0 + (uint64_t)(o->duration_s * 1e9) : UINT64_MAX;
	struct totals first = { 0, 0, majflt_self(), t0 }, prev = first, cur;
	struct lathist *h = calloc(2, sizeof(*h));
	uint64_t next = t0 + step;
	unsigned int switched = 0;
	bool sig = false;

	if (!h) {
		fprintf(stderr, "advshim-load: out of memory\n");
		return;
	}
	while (!sig) {
		uint64_t until = next < end ? next : end;

		sig = wait_until(set, until);
		sample(w, o->threads, &cur, &h[0]);
		lathist_merge(&h[1], &h[0]);
		if (cur.t_ns - prev.t_ns >= step / 2 || (!sig && until == end))
			print_row(o, "interval", t0, &prev, &cur, &h[0]);
		switch_due(o, &switched, map, size, (cur.t_ns - t0) / 1000000,
			   cur.t_ns / 1000000);
		prev = cur;
		if (until == end && !sig)
			break;
		while (next <= now_ns())
			next += step;
	}
	atomic_store(&stop_flag, true);
	print_row(o, "summary", t0, &first, &cur, &h[1]);
	free(h);
}

static int run_workers(const struct load_opts *o, uint8_t *map,
		       uint64_t size, uint64_t nrec, const uint32_t *perm)
{
	struct worker *w = NULL;
	struct zipf z;
	sigset_t set;
	unsigned int i;
	uint64_t t0;

	/* calloc() only promises 16-byte alignment; the workers are
	 * cache-line aligned so their counters do not share lines. */
	if (posix_memalign((void **)&w, 64, o->threads * sizeof(*w)))
		w = NULL;
	else
		memset(w, 0, o->threads * sizeof(*w));
	if (!w || zipf_init(&z, nrec, o->theta)) {
		fprintf(stderr, "advshim-load: cannot set up workers: %s\n",
			strerror(errno));
		free(w);
		return 1;
	}
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	print_header(o, size, nrec);
	fflush(stdout);
	t0 = now_ns();
	for (i = 0; i < o->threads; i++) {
		w[i].o = o;
		w[i].map = map;
		w[i].perm = perm;
		w[i].z = &z;
		w[i].seed = o->seed * 1000003ull + i;
		if (pthread_create(&w[i].tid, NULL, worker_main, &w[i])) {
			fprintf(stderr, "advshim-load: pthread_create failed\n");
			atomic_store(&stop_flag, true);
			break;
		}
	}
	if (i == o->threads)
		report_loop(o, w, &set, t0, map, size);
	while (i--)
		pthread_join(w[i].tid, NULL);
	free(w);
	return 0;
}

int load_random(const struct load_opts *o)
{
	uint64_t size, nrec;
	uint32_t *perm = NULL;
	void *map;
	int fd, ret;

	fd = load_open_file(o->file, o->size, o->seed, &size);
	if (fd < 0)
		return 1;
	nrec = size / o->record;
	if (nrec == 0 || nrec > UINT32_MAX) {
		fprintf(stderr, "advshim-load: %s: %llu bytes hold %llu records of %llu bytes (need 1..2^32)\n",
			o->file, (unsigned long long)size,
			(unsigned long long)nrec, (unsigned long long)o->record);
		close(fd);
		return 2;
	}
	map = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (map == MAP_FAILED) {
		fprintf(stderr, "advshim-load: mmap %s: %s\n", o->file,
			strerror(errno));
		return 1;
	}
	if (o->shuffle && !(perm = make_perm(nrec, o->seed))) {
		fprintf(stderr, "advshim-load: out of memory\n");
		munmap(map, size);
		return 1;
	}
	ret = apply_advice(o->advice, map, size) ? 1 :
		run_workers(o, map, size, nrec, perm);
	free(perm);
	munmap(map, size);
	return ret;
}
