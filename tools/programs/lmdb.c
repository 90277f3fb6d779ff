// SPDX-License-Identifier: MIT
/*
 * advshim-lmdb - an LMDB (Debian's liblmdb) reader and loader for the
 * MGLRU lab (make lab-programs).
 *
 *   advshim-lmdb load DIR SIZE_MIB     build the DB in DIR: keys 0..n-1
 *                                      (8 bytes, big endian), values of
 *                                      VALUE_BYTES, appended until the
 *                                      data file holds SIZE_MIB MiB
 *   advshim-lmdb read [-t N] [-z THETA] [-d SECONDS] DIR
 *                                      N threads read keys drawn at
 *                                      zipf(THETA) (ranks scattered over
 *                                      the keys), one read-only
 *                                      transaction per read; a row a second
 *
 * The reader opens the environment MDB_RDONLY | MDB_NORDAHEAD with a
 * MAP_MiB map: liblmdb then calls madvise(MADV_RANDOM) on the whole map
 * (mdb_env_map), through libc, where an LD_PRELOAD shim sees it.  Rows are
 * advshim-load random's TSV (tools/lab/README.md, "Workloads"), latency
 * columns "-" (not measured).
 */
#include <errno.h>
#include <inttypes.h>
#include <lmdb.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "tools/load/zipf.h"

#define VALUE_BYTES	1000
#define MAP_MIB		1024
#define MAX_THREADS	64

struct reader {
	MDB_env *env;
	MDB_dbi dbi;
	const struct zipf *z;
	uint64_t seed;
	atomic_uint_fast64_t *reads;
	int err;			/* an LMDB error code, 0 if none */
	pthread_t tid;
};

static atomic_int stop;

static void on_signal(int sig)
{
	(void)sig;
	atomic_store(&stop, 1);
}

static uint64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static uint64_t majflt(void)
{
	struct rusage ru;

	return getrusage(RUSAGE_SELF, &ru) ? 0 : (uint64_t)ru.ru_majflt;
}

static void put_be64(unsigned char *k, uint64_t v)
{
	for (int i = 7; i >= 0; i--, v >>= 8)
		k[i] = (unsigned char)v;
}

/* A bijection of 0..n-1 for n below the prime: hot ranks spread out. */
static uint64_t scatter(uint64_t rank, uint64_t n)
{
	return (rank * 2654435761u) % n;
}

static int fail(const char *what, int rc)
{
	fprintf(stderr, "advshim-lmdb: %s: %s\n", what, mdb_strerror(rc));
	return 1;
}

/* env_open - an environment on DIR with the lab's map size and @flags. */
static int env_open(MDB_env **env, const char *dir, unsigned int flags)
{
	int rc = mdb_env_create(env);

	if (rc)
		return rc;
	rc = mdb_env_set_mapsize(*env, (size_t)MAP_MIB << 20);
	if (!rc)
		rc = mdb_env_open(*env, dir, flags, 0644);
	if (rc) {
		mdb_env_close(*env);
		*env = NULL;
	}
	return rc;
}

/* put_batch - @n sequential keys from *key on, in one write transaction. */
static int put_batch(MDB_env *env, uint64_t *key, unsigned int n)
{
	static unsigned char val[VALUE_BYTES];
	unsigned char k[8];
	MDB_txn *txn;
	MDB_dbi dbi;
	int rc = mdb_txn_begin(env, NULL, 0, &txn);

	if (rc)
		return rc;
	for (size_t i = 0; i < sizeof(val); i++)
		val[i] = (unsigned char)('a' + i % 26);
	rc = mdb_dbi_open(txn, NULL, 0, &dbi);
	for (unsigned int i = 0; !rc && i < n; i++, (*key)++) {
		MDB_val mk = { sizeof(k), k }, mv = { sizeof(val), val };

		put_be64(k, *key);
		rc = mdb_put(txn, dbi, &mk, &mv, MDB_APPEND);
	}
	if (rc) {
		mdb_txn_abort(txn);
		return rc;
	}
	return mdb_txn_commit(txn);
}

static int cmd_load(const char *dir, const char *size)
{
	char path[4096];
	unsigned long mib = strtoul(size, NULL, 10);
	uint64_t key = 0;
	struct stat st;
	MDB_env *env;
	int rc;

	if (mib == 0 || mib >= MAP_MIB) {
		fprintf(stderr, "advshim-lmdb: size %s: want 1..%d MiB\n", size, MAP_MIB - 1);
		return 2;
	}
	if (mkdir(dir, 0755) && errno != EEXIST) {
		perror(dir);
		return 1;
	}
	rc = env_open(&env, dir, MDB_NOSYNC);
	if (rc)
		return fail(dir, rc);
	snprintf(path, sizeof(path), "%s/data.mdb", dir);
	/* The file grows with the pages written (no MDB_WRITEMAP). */
	for (;;) {
		MDB_envinfo info;

		if (mdb_env_info(env, &info) || stat(path, &st))
			break;
		if ((uint64_t)(info.me_last_pgno + 1) * 4096 >= (uint64_t)mib << 20)
			break;
		rc = put_batch(env, &key, 4096);
		if (rc) {
			mdb_env_close(env);
			return fail("put", rc);
		}
	}
	rc = mdb_env_sync(env, 1);
	mdb_env_close(env);
	if (rc)
		return fail("sync", rc);
	printf("keys=%" PRIu64 "\n", key);
	return 0;
}

static void *read_loop(void *arg)
{
	struct reader *r = arg;
	unsigned char k[8];
	struct rng rng;
	unsigned char sink = 0;

	rng_seed(&rng, r->seed);
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		MDB_val mk = { sizeof(k), k }, mv;
		MDB_txn *txn;
		int rc;

		put_be64(k, scatter(zipf_next(r->z, &rng) - 1, r->z->n));
		rc = mdb_txn_begin(r->env, NULL, MDB_RDONLY, &txn);
		if (!rc) {
			rc = mdb_get(txn, r->dbi, &mk, &mv);
			if (!rc && mv.mv_size)
				sink ^= ((unsigned char *)mv.mv_data)[mv.mv_size / 2];
			mdb_txn_abort(txn);
		}
		if (rc && rc != MDB_NOTFOUND) {
			r->err = rc;
			atomic_store(&stop, 1);
			break;
		}
		atomic_fetch_add_explicit(r->reads, 1, memory_order_relaxed);
	}
	return (void *)(uintptr_t)sink;
}

/* report - a row a second until @dur_s have passed (0: never) or stop. */
static void report(double dur_s, atomic_uint_fast64_t *reads)
{
	uint64_t t0 = mono_ms(), last_t = t0, last = 0, last_f = majflt();
	uint64_t next = t0 + 1000;

	while (!atomic_load(&stop)) {
		uint64_t now = mono_ms(), n, f;
		double dt;

		if (now < next) {
			usleep((useconds_t)(next - now) * 1000);
			continue;
		}
		next += 1000;
		n = atomic_load(reads);
		f = majflt();
		dt = (double)(now - last_t) / 1000.0;
		printf("%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%.1f\t%.1f\t-\t-\t-\t%" PRIu64 "\t%.1f\n",
		       now - t0, now, n - last, (double)(n - last) / dt, (double)(n - last) / dt,
		       f - last_f, (double)(f - last_f) / dt);
		fflush(stdout);
		last = n, last_t = now, last_f = f;
		if (dur_s > 0 && (double)(now - t0) >= dur_s * 1000.0)
			break;
	}
	atomic_store(&stop, 1);
}

/* db_open - the read-only environment, its main DB and its key count. */
static int db_open(const char *dir, MDB_env **env, MDB_dbi *dbi, uint64_t *nkeys)
{
	MDB_txn *txn;
	MDB_stat st;
	int rc = env_open(env, dir, MDB_RDONLY | MDB_NORDAHEAD | MDB_NOTLS);

	if (rc)
		return rc;
	rc = mdb_txn_begin(*env, NULL, MDB_RDONLY, &txn);
	if (!rc) {
		rc = mdb_dbi_open(txn, NULL, 0, dbi);
		if (!rc)
			rc = mdb_stat(txn, *dbi, &st);
		mdb_txn_abort(txn);
	}
	if (!rc && st.ms_entries == 0)
		rc = MDB_NOTFOUND;
	if (rc)
		mdb_env_close(*env);
	else
		*nkeys = st.ms_entries;
	return rc;
}

static int run_readers(MDB_env *env, MDB_dbi dbi, const struct zipf *z,
		       unsigned int threads, double dur_s)
{
	static struct reader rd[MAX_THREADS];
	static atomic_uint_fast64_t reads;
	unsigned int started = 0;
	int err = 0;

	for (; started < threads; started++) {
		rd[started] = (struct reader){ env, dbi, z, started + 1, &reads, 0, 0 };
		if (pthread_create(&rd[started].tid, NULL, read_loop, &rd[started])) {
			fprintf(stderr, "advshim-lmdb: pthread_create failed\n");
			atomic_store(&stop, 1);
			break;
		}
	}
	if (started == threads)
		report(dur_s, &reads);
	for (unsigned int i = 0; i < started; i++) {
		pthread_join(rd[i].tid, NULL);
		if (rd[i].err)
			err = fail("read", rd[i].err);
	}
	return err || started < threads;
}

static int cmd_read(int argc, char **argv)
{
	unsigned int threads = 4;
	double theta = 0.8, dur_s = 0;
	uint64_t nkeys;
	struct zipf z;
	MDB_env *env;
	MDB_dbi dbi;
	int c, rc;

	while ((c = getopt(argc, argv, "t:z:d:")) != -1) {
		switch (c) {
		case 't': threads = (unsigned int)strtoul(optarg, NULL, 10); break;
		case 'z': theta = strtod(optarg, NULL); break;
		case 'd': dur_s = strtod(optarg, NULL); break;
		default: return 2;
		}
	}
	if (optind != argc - 1 || threads < 1 || threads > MAX_THREADS) {
		fprintf(stderr, "advshim-lmdb: read [-t 1..%d] [-z THETA] [-d SECONDS] DIR\n", MAX_THREADS);
		return 2;
	}
	rc = db_open(argv[optind], &env, &dbi, &nkeys);
	if (rc)
		return fail(argv[optind], rc);
	if (zipf_init(&z, nkeys, theta)) {
		fprintf(stderr, "advshim-lmdb: zipf %g: %s\n", theta, strerror(errno));
		mdb_env_close(env);
		return 2;
	}
	printf("# advshim-lmdb read file=%s keys=%" PRIu64 " threads=%u theta=%g pid=%d mono_ms=%" PRIu64 "\n",
	       argv[optind], nkeys, threads, theta, (int)getpid(), mono_ms());
	printf("elapsed_ms\tmono_ms\tqueries\tqps\treads_s\tp50_us\tp90_us\tp99_us\tmajflt\tmajflt_s\n");
	fflush(stdout);
	rc = run_readers(env, dbi, &z, threads, dur_s);
	mdb_env_close(env);
	return rc;
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal };

	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	if (argc == 4 && !strcmp(argv[1], "load"))
		return cmd_load(argv[2], argv[3]);
	if (argc >= 2 && !strcmp(argv[1], "read"))
		return cmd_read(argc - 1, argv + 1);
	fprintf(stderr, "usage: advshim-lmdb load DIR SIZE_MIB | read [-t N] [-z THETA] [-d SECONDS] DIR\n");
	return 2;
}
