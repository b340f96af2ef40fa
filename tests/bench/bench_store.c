/*
 * Append throughput of one partition log in a temporary directory:
 * 100-byte records in 16 KiB batches, several batches per plog_append as
 * the writer does, first into the page cache only, then with plog_sync
 * every N appends.  Prints figures; never fails on speed.
 *
 * Usage: bench_store [total MiB (default 256)]
 */
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "proto/batch.h"
#include "store/plog.h"

#define RECORD_BYTES	100
#define BATCH_BYTES	(16 * 1024)
#define BATCHES_PER_APPEND 8

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int
rm_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb; (void)flag; (void)ftw;
	return remove(path);
}

static void
rmdir_log(const char *dir)
{
	if (nftw(dir, rm_one, 8, FTW_DEPTH | FTW_PHYS) != 0)
		fprintf(stderr, "bench_store: could not remove %s\n", dir);
}

/*
 * Append total bytes of copies of one batch; sync_every 0 means never.
 * Returns 0 and prints a line, or -1.
 */
static int
run(const char *label, const uint8_t *batch, size_t blen, int32_t recs,
    uint64_t total, int sync_every)
{
	struct plog_config cfg = { 128u << 20, 4096, -1, -1, 0, 0 };
	struct plog *l;
	uint8_t *buf;
	char dir[] = "/tmp/flume-bench-store-XXXXXX";
	const char *tmp = getenv("TMPDIR");
	char path[4096];
	uint64_t appended = 0, batches = 0;
	int64_t base;
	double t0, dt;
	int i, appends = 0, syncs = 0;

	if (tmp != NULL && *tmp != '\0')
		snprintf(path, sizeof(path), "%s/flume-bench-store-XXXXXX", tmp);
	else
		snprintf(path, sizeof(path), "%s", dir);
	if (mkdtemp(path) == NULL) {
		perror("bench_store: mkdtemp");
		return -1;
	}
	if ((buf = malloc(blen * BATCHES_PER_APPEND)) == NULL) {
		rmdir_log(path);
		return -1;
	}
	if (plog_open(&l, path, &cfg, NULL) == -1) {
		perror("bench_store: plog_open");
		free(buf);
		rmdir_log(path);
		return -1;
	}
	for (i = 0; i < BATCHES_PER_APPEND; i++)
		memcpy(buf + (size_t)i * blen, batch, blen);
	t0 = now_s();
	while (appended < total) {
		if (plog_append(l, buf, blen * BATCHES_PER_APPEND, &base) == -1) {
			perror("bench_store: plog_append");
			break;
		}
		appended += blen * BATCHES_PER_APPEND;
		batches += BATCHES_PER_APPEND;
		if (sync_every > 0 && ++appends % sync_every == 0) {
			if (plog_sync(l) == -1) {
				perror("bench_store: plog_sync");
				break;
			}
			syncs++;
		}
	}
	if (sync_every > 0 && plog_sync(l) == 0)
		syncs++;
	dt = now_s() - t0;
	if (dt <= 0)
		dt = 1e-9;
	printf("store append %-28s %8.1f MB/s %10.0f batches/s %12.0f records/s"
	    "  (%llu MiB, %d segments, %d syncs, %.2f s)\n", label,
	    (double)appended / 1e6 / dt, (double)batches / dt,
	    (double)batches * recs / dt, (unsigned long long)(appended >> 20),
	    plog_segment_count(l), syncs, dt);
	plog_close(l);
	free(buf);
	rmdir_log(path);
	return 0;
}

int
main(int argc, char **argv)
{
	struct batch_builder b;
	const uint8_t *out;
	uint8_t value[RECORD_BYTES];
	char key[16], label[64];
	size_t outlen, one;
	uint64_t total = 256u << 20;
	int32_t recs = 0;
	int klen, every[] = { 1, 8, 64 };
	size_t i;

	if (argc > 1 && atoi(argv[1]) > 0)
		total = (uint64_t)atoi(argv[1]) << 20;
	memset(value, 'v', sizeof(value));
	batch_builder_init(&b);
	one = batch_builder_record_size(8, RECORD_BYTES, NULL, 0);
	while (batch_builder_size(&b) + one <= BATCH_BYTES) {
		klen = snprintf(key, sizeof(key), "key%05d", (int)recs);
		if (batch_builder_add(&b, 1700000000000LL, key, klen, value,
		    RECORD_BYTES, NULL, 0) == -1)
			return 0;
		recs++;
	}
	if (batch_builder_close(&b, &out, &outlen) == -1)
		return 0;
	printf("store: %d records of %d bytes per batch, %zu-byte batches, "
	    "%d batches per append\n", (int)recs, RECORD_BYTES, outlen,
	    BATCHES_PER_APPEND);
	run("page cache, no fsync", out, outlen, recs, total, 0);
	for (i = 0; i < sizeof(every) / sizeof(every[0]); i++) {
		snprintf(label, sizeof(label), "fdatasync every %d append%s",
		    every[i], every[i] == 1 ? "" : "s");
		/* Syncing is slow on real disks: a smaller total suffices. */
		run(label, out, outlen, recs, total / 8, every[i]);
	}
	batch_builder_free(&b);
	return 0;
}
