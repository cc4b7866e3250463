/*
 * sqlite_select: the C client of SQLite's point select, beside bench/floor's
 * Go loop and dbgauge: N threads, each with its own connection (opened as
 * go-sqlite3 opens one: SQLITE_OPEN_FULLMUTEX, busy_timeout 5000, WAL),
 * pgbench -S's statement (SELECT abalance FROM pgbench_accounts WHERE aid = ?)
 * prepared once, then bound, stepped and reset, aid uniform in 1..100000·scale.
 * bench/vs-floor.sh compiles it against go-sqlite3's own amalgamation, with
 * its compile options, so that the engine is the same code in all three.
 *
 *   sqlite_select FILE SCALE CLIENTS SECONDS
 *
 * Prints one JSON line: transactions, seconds, transactions/s.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "sqlite3-binding.h"

static const char *path;
static long accounts;
static volatile int stopped;

struct client {
	pthread_t t;
	sqlite3 *db;
	sqlite3_stmt *st;
	uint64_t rng;
	long n;
	int err;
};

/* splitmix64: uniform enough for a key draw, one stream per thread. */
static uint64_t next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static void *run(void *arg)
{
	struct client *c = arg;
	while (!stopped) {
		sqlite3_bind_int64(c->st, 1, 1 + (long)(next(&c->rng) % (uint64_t)accounts));
		if (sqlite3_step(c->st) != SQLITE_ROW) {
			c->err = 1;
			stopped = 1;
			break;
		}
		(void)sqlite3_column_int64(c->st, 0);
		sqlite3_reset(c->st);
		c->n++;
	}
	return NULL;
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	if (argc != 5) {
		fprintf(stderr, "usage: sqlite_select FILE SCALE CLIENTS SECONDS\n");
		return 2;
	}
	path = argv[1];
	accounts = 100000L * atol(argv[2]);
	int clients = atoi(argv[3]);
	double seconds = atof(argv[4]);
	if (accounts < 1 || clients < 1 || seconds <= 0) {
		fprintf(stderr, "sqlite_select: SCALE, CLIENTS and SECONDS must be positive\n");
		return 2;
	}
	struct client *cs = calloc(clients, sizeof *cs);
	for (int i = 0; i < clients; i++) {
		struct client *c = &cs[i];
		c->rng = (uint64_t)i + 1;
		if (sqlite3_open_v2(path, &c->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_FULLMUTEX, NULL) != SQLITE_OK ||
		    sqlite3_exec(c->db, "PRAGMA busy_timeout = 5000; PRAGMA journal_mode = WAL", NULL, NULL, NULL) != SQLITE_OK ||
		    sqlite3_prepare_v2(c->db, "SELECT abalance FROM pgbench_accounts WHERE aid = ?", -1, &c->st, NULL) != SQLITE_OK) {
			fprintf(stderr, "sqlite_select: %s: %s\n", path, sqlite3_errmsg(c->db));
			return 1;
		}
	}
	double t0 = now();
	for (int i = 0; i < clients; i++)
		pthread_create(&cs[i].t, NULL, run, &cs[i]);
	usleep((useconds_t)(seconds * 1e6));
	stopped = 1;
	long n = 0;
	int err = 0;
	for (int i = 0; i < clients; i++) {
		pthread_join(cs[i].t, NULL);
		n += cs[i].n;
		err |= cs[i].err;
	}
	double secs = now() - t0;
	if (err) {
		fprintf(stderr, "sqlite_select: a point select found no row\n");
		return 1;
	}
	printf("{\"transactions\":%ld,\"seconds\":%.6f,\"tps\":%.1f}\n", n, secs, n / secs);
	for (int i = 0; i < clients; i++) {
		sqlite3_finalize(cs[i].st);
		sqlite3_close(cs[i].db);
	}
	return 0;
}
