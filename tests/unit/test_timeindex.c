/*
 * The time index (store/timeindex.[ch], written by plog.c): its entries
 * follow the offset index, hold a running max, end a closed segment with
 * its max; a time lookup answers exactly what a brute-force walk of every
 * record answers (first batch whose maxTimestamp >= T, then its first
 * record >= T), with CreateTime going backwards inside batches and
 * between them; a missing, torn or garbage index is rebuilt at open to
 * the very bytes the appends wrote.
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proto/batch.h"
#include "proto/bytes.h"
#include "proto/compress.h"
#include "store/plog.h"
#include "store/segment.h"
#include "store/timeindex.h"
#include "tests/harness.h"

#define NBATCH		300
#define MAXREC		4
#define NSEG_MAX	256

/* What was appended: per record its offset and timestamp, per batch max. */
static int64_t	rec_off[NBATCH * MAXREC], rec_ts[NBATCH * MAXREC];
static int	rec_batch[NBATCH * MAXREC];
static int64_t	batch_max[NBATCH];
static int	nrec;

static int64_t
ts_of(int b, int r)
{
	int64_t t = 100000 + 10 * (int64_t)b + (r * 7) % 5;

	/* CreateTime going back now and then, across batches. */
	if (b % 13 == 5)
		t -= 700;
	return t;
}

static void
build_log(const char *dir, const struct plog_config *cfg)
{
	struct batch_builder bb;
	struct plog *l;
	const uint8_t *out;
	uint8_t *copy;
	size_t outlen;
	int64_t base;
	int b, r, n;
	char val[16];

	nrec = 0;
	batch_builder_init(&bb);
	CU_ASSERT_FATAL(plog_open(&l, dir, cfg, NULL) == 0);
	for (b = 0; b < NBATCH; b++) {
		batch_builder_reset(&bb);
		n = 1 + b % MAXREC;
		batch_max[b] = INT64_MIN;
		for (r = 0; r < n; r++) {
			snprintf(val, sizeof(val), "v%d.%d", b, r);
			CU_ASSERT_FATAL(batch_builder_add(&bb, ts_of(b, r), NULL,
			    -1, val, (int32_t)strlen(val), NULL, 0) == 0);
			if (ts_of(b, r) > batch_max[b])
				batch_max[b] = ts_of(b, r);
		}
		CU_ASSERT_FATAL(batch_builder_close(&bb, &out, &outlen) == 0);
		copy = malloc(outlen);
		CU_ASSERT_FATAL(copy != NULL);
		memcpy(copy, out, outlen);
		CU_ASSERT_FATAL(plog_append(l, copy, outlen, &base) == 0);
		free(copy);
		for (r = 0; r < n; r++) {
			rec_off[nrec] = base + r;
			rec_ts[nrec] = ts_of(b, r);
			rec_batch[nrec] = b;
			nrec++;
		}
	}
	CU_ASSERT_FATAL(plog_segment_count(l) >= 5);
	plog_close(l);
	batch_builder_free(&bb);
}

/* Kafka's answer by brute force: offset and timestamp, or -1 / -1. */
static void
brute(int64_t t, int64_t *off, int64_t *ts)
{
	int i, b = -1;

	*off = *ts = -1;
	for (i = 0; i < nrec; i++) {
		if (b == -1 && batch_max[rec_batch[i]] >= t)
			b = rec_batch[i];
		if (b != -1 && rec_batch[i] == b && rec_ts[i] >= t) {
			*off = rec_off[i];
			*ts = rec_ts[i];
			return;
		}
	}
}

static void
check_lookups(const char *dir)
{
	struct plog_reader *rd;
	int64_t t, off, ts, woff, wts, end = rec_off[nrec - 1] + 1;
	int bad = 0, n = 0;

	CU_ASSERT_FATAL(plog_reader_open(&rd, dir) == 0);
	for (t = 99000; t <= 100000 + 10 * NBATCH + 10; t += 3) {
		CU_ASSERT_FATAL(plog_reader_time_lookup(rd, t, end, &off,
		    &ts) == 0);
		brute(t, &woff, &wts);
		if (off != woff || ts != wts) {
			if (bad++ < 5)
				fprintf(stderr, "T %lld: got %lld/%lld want "
				    "%lld/%lld\n", (long long)t, (long long)off,
				    (long long)ts, (long long)woff,
				    (long long)wts);
		}
		n++;
	}
	CU_ASSERT(bad == 0);
	CU_ASSERT(n > 1000);
	/* Past the newest: none; the wrapper says visible_end. */
	CU_ASSERT_FATAL(plog_reader_offset_for_time(rd, 1LL << 50, end,
	    &off) == 0);
	CU_ASSERT(off == end);
	CU_ASSERT_FATAL(plog_reader_offset_for_time(rd, 0, end, &off) == 0);
	CU_ASSERT(off == 0);
	/* Only what is visible counts. */
	CU_ASSERT_FATAL(plog_reader_time_lookup(rd, 100000 + 10 * 200, 100,
	    &off, &ts) == 0);
	CU_ASSERT(off == -1 && ts == -1);
	plog_reader_close(rd);
}

static int
list_bases(const char *dir, int64_t *bases)
{
	int64_t *v;
	size_t n, i;

	CU_ASSERT_FATAL(seg_list(dir, &v, &n) == 0);
	CU_ASSERT_FATAL(n <= NSEG_MAX);
	for (i = 0; i < n; i++)
		bases[i] = v[i];
	free(v);
	return (int)n;
}

static char *
read_file(const char *dir, int64_t base, const char *ext, size_t *len)
{
	char path[4096], *buf;
	struct stat st;
	int fd;

	CU_ASSERT_FATAL(seg_path(path, sizeof(path), dir, base, ext) == 0);
	if ((fd = open(path, O_RDONLY)) == -1) {
		*len = 0;
		return NULL;
	}
	CU_ASSERT_FATAL(fstat(fd, &st) == 0);
	*len = (size_t)st.st_size;
	buf = malloc(*len + 1);
	CU_ASSERT_FATAL(buf != NULL);
	CU_ASSERT_FATAL(seg_pread_full(fd, buf, *len, 0) == (ssize_t)*len);
	close(fd);
	return buf;
}

/* Shape: one entry per offset index entry (+1 closing), running max. */
static void
test_entries(void)
{
	struct plog_config cfg = { 4096, 256, -1, -1, 0, 0 };
	int64_t bases[NSEG_MAX], segmax, prev;
	size_t tlen, ilen, i, nt, ni;
	char *t, *ix;
	int n, s, closing = 0;
	char *dir = test_mkdtemp("tidx");

	build_log(dir, &cfg);
	n = list_bases(dir, bases);
	for (s = 0; s < n; s++) {
		t = read_file(dir, bases[s], "timeindex", &tlen);
		ix = read_file(dir, bases[s], "index", &ilen);
		CU_ASSERT_FATAL(t != NULL && ix != NULL);
		CU_ASSERT_FATAL(tlen % TIDX_ENTRY == 0 && ilen % 8 == 0);
		nt = tlen / TIDX_ENTRY;
		ni = ilen / 8;
		CU_ASSERT(nt == ni || (s + 1 < n && nt == ni + 1));
		closing += nt == ni + 1;
		/* The segment's own max, from what was appended. */
		segmax = INT64_MIN;
		for (i = 0; i < (size_t)nrec; i++)
			if (rec_off[i] >= bases[s] &&
			    (s + 1 == n || rec_off[i] < bases[s + 1]) &&
			    rec_ts[i] > segmax)
				segmax = rec_ts[i];
		prev = INT64_MIN;
		for (i = 0; i < nt; i++) {
			int64_t ts = (int64_t)be64_get((uint8_t *)t + i * 12);
			uint32_t rel = be32_get((uint8_t *)t + i * 12 + 8);

			CU_ASSERT(ts >= prev);
			prev = ts;
			if (i < ni)
				CU_ASSERT(rel == be32_get((uint8_t *)ix + i * 8));
		}
		if (s + 1 < n) {
			CU_ASSERT(prev == segmax);
		} else {
			CU_ASSERT(prev <= segmax);
		}
		free(t);
		free(ix);
	}
	/* The data makes the last batches of some segment raise its max. */
	CU_ASSERT(closing > 0);
	check_lookups(dir);
	test_rmtree(dir);
	free(dir);
}

/* Missing, torn and garbage time indexes: rebuilt to the same bytes. */
static void
test_rebuild(void)
{
	struct plog_config cfg = { 4096, 256, -1, -1, 0, 0 };
	struct plog_recovery rec;
	struct plog *l;
	int64_t bases[NSEG_MAX];
	char *orig[NSEG_MAX], *now, path[4096];
	size_t olen[NSEG_MAX], nlen;
	int n, s, fd;
	char *dir = test_mkdtemp("tidxrebuild");

	build_log(dir, &cfg);
	n = list_bases(dir, bases);
	CU_ASSERT_FATAL(n >= 5);
	for (s = 0; s < n; s++)
		orig[s] = read_file(dir, bases[s], "timeindex", &olen[s]);

	/* A clean reopen rewrites nothing. */
	CU_ASSERT_FATAL(plog_open(&l, dir, &cfg, &rec) == 0);
	CU_ASSERT(rec.timeindex_rebuilt == 0);
	plog_close(l);

	/* 0 missing, 1 torn mid-entry, the active one torn, 2 garbage. */
	CU_ASSERT_FATAL(seg_path(path, sizeof(path), dir, bases[0],
	    "timeindex") == 0);
	CU_ASSERT_FATAL(unlink(path) == 0);
	CU_ASSERT_FATAL(seg_path(path, sizeof(path), dir, bases[1],
	    "timeindex") == 0);
	CU_ASSERT_FATAL(truncate(path, (off_t)olen[1] - 5) == 0);
	CU_ASSERT_FATAL(seg_path(path, sizeof(path), dir, bases[n - 1],
	    "timeindex") == 0);
	CU_ASSERT_FATAL(truncate(path, (off_t)olen[n - 1] - 12) == 0);

	/*
	 * Lookups are right before the writer repairs a missing or torn one
	 * (garbage, readers trust the writer's start-up recovery to fix).
	 */
	check_lookups(dir);
	CU_ASSERT_FATAL(seg_path(path, sizeof(path), dir, bases[2],
	    "timeindex") == 0);
	CU_ASSERT_FATAL((fd = open(path, O_WRONLY)) != -1);
	CU_ASSERT_FATAL(pwrite(fd, "\x7f\xff\xff\xff\xff\xff\xff\xff", 8, 0) == 8);
	close(fd);

	CU_ASSERT_FATAL(plog_open(&l, dir, &cfg, &rec) == 0);
	CU_ASSERT(rec.timeindex_rebuilt == 1);
	plog_close(l);
	for (s = 0; s < n; s++) {
		now = read_file(dir, bases[s], "timeindex", &nlen);
		CU_ASSERT(now != NULL && nlen == olen[s] &&
		    memcmp(now, orig[s], nlen) == 0);
		free(now);
		free(orig[s]);
	}
	check_lookups(dir);
	test_rmtree(dir);
	free(dir);
}

/* tidx_find on a hand-made file: first entry >= T, and the one before. */
static void
test_find(void)
{
	static const int64_t ts[] = { 10, 20, 20, 30, 50 };
	struct tidx_entry prev, e;
	uint8_t buf[5 * TIDX_ENTRY];
	char *dir = test_mkdtemp("tidxfind"), path[4096];
	int fd, i;

	for (i = 0; i < 5; i++)
		tidx_put(buf + i * TIDX_ENTRY, ts[i], (uint32_t)(i * 10));
	snprintf(path, sizeof(path), "%s/t", dir);
	CU_ASSERT_FATAL((fd = open(path, O_RDWR | O_CREAT, 0644)) != -1);
	CU_ASSERT_FATAL(write(fd, buf, sizeof(buf)) == (ssize_t)sizeof(buf));
	CU_ASSERT(tidx_find(fd, 5, &prev, &e) == 1);
	CU_ASSERT(e.rel == 0 && prev.ts == TIDX_NONE && prev.rel == 0);
	CU_ASSERT(tidx_find(fd, 20, &prev, &e) == 1);
	CU_ASSERT(e.rel == 10 && e.ts == 20 && prev.rel == 0 && prev.ts == 10);
	CU_ASSERT(tidx_find(fd, 21, &prev, &e) == 1);
	CU_ASSERT(e.rel == 30 && prev.rel == 20);
	CU_ASSERT(tidx_find(fd, 50, &prev, &e) == 1);
	CU_ASSERT(e.rel == 40 && prev.rel == 30);
	CU_ASSERT(tidx_find(fd, 51, &prev, &e) == 0);
	CU_ASSERT(prev.rel == 40 && prev.ts == 50);
	CU_ASSERT(tidx_last(fd, &e) == 1 && e.ts == 50 && e.rel == 40);
	/* A torn last entry is not read. */
	CU_ASSERT_FATAL(ftruncate(fd, sizeof(buf) - 3) == 0);
	CU_ASSERT(tidx_find(fd, 51, &prev, &e) == 0);
	CU_ASSERT(prev.rel == 30 && prev.ts == 30);
	close(fd);
	test_rmtree(dir);
	free(dir);
}

/*
 * Kafka's MAX_TIMESTAMP, by brute force: the first record at or after
 * first and below end with the largest timestamp; -1 / -1 when none.
 */
static void
brute_max(int64_t first, int64_t end, int64_t *off, int64_t *ts)
{
	int i;

	*off = *ts = -1;
	for (i = 0; i < nrec; i++)
		if (rec_off[i] >= first && rec_off[i] < end && rec_ts[i] >= 0 &&
		    (*off == -1 || rec_ts[i] > *ts)) {
			*off = rec_off[i];
			*ts = rec_ts[i];
		}
}

/*
 * A log whose newest times are out of order across segments: the largest
 * timestamp first appears inside a middle batch (not its first record),
 * then again later, and a larger one hides below a later log start; some
 * batches gzip'd, some LogAppendTime-free CreateTime going back.  Every
 * (first, end) of a grid, mid-batch and mid-segment ones included,
 * answers as the brute force does.
 */
#define MT_NBATCH	120
static int64_t
mt_ts(int b, int r)
{
	uint32_t x = (uint32_t)(b * 7919 + r * 104729) * 2654435761u;

	if (b == 42 && r == 2)
		return 900000;		/* the max, mid-batch, segment ~4 */
	if (b == 101 && r == 1)
		return 900000;		/* again, later */
	if (b == 5 && r == 0)
		return 950000;		/* above it, below a later start */
	return 100000 + (int64_t)(x % 500000);
}

static void
test_max_time(void)
{
	struct plog_config cfg = { 4096, 256, -1, -1, 0, 0 };
	struct batch_builder bb;
	struct plog_reader *rd;
	struct plog *l;
	const uint8_t *out;
	uint8_t *copy;
	size_t outlen;
	int64_t base, first, end, off, ts, woff, wts;
	int b, r, n, bad = 0, checks = 0;
	char val[200];
	char *dir = test_mkdtemp("tidxmax");

	nrec = 0;
	batch_builder_init(&bb);
	CU_ASSERT_FATAL(plog_open(&l, dir, &cfg, NULL) == 0);
	for (b = 0; b < MT_NBATCH; b++) {
		batch_builder_reset(&bb);
		n = 1 + b % MAXREC;
		for (r = 0; r < n; r++) {
			memset(val, 'a' + b % 26, sizeof(val));
			CU_ASSERT_FATAL(batch_builder_add(&bb, mt_ts(b, r), NULL,
			    -1, val, 60 + (b * 13) % 140, NULL, 0) == 0);
		}
		CU_ASSERT_FATAL(batch_builder_close_codec(&bb, b % 3 == 1 ?
		    COMPRESS_GZIP : COMPRESS_NONE, &out, &outlen) == 0);
		CU_ASSERT_FATAL((copy = malloc(outlen)) != NULL);
		memcpy(copy, out, outlen);
		CU_ASSERT_FATAL(plog_append(l, copy, outlen, &base) == 0);
		free(copy);
		for (r = 0; r < n; r++) {
			rec_off[nrec] = base + r;
			rec_ts[nrec] = mt_ts(b, r);
			rec_batch[nrec] = b;
			nrec++;
		}
	}
	CU_ASSERT_FATAL(plog_segment_count(l) >= 8);
	CU_ASSERT_FATAL(plog_reader_open(&rd, dir) == 0);
	end = rec_off[nrec - 1] + 1;
	for (first = 0; first < end; first += 2) {
		for (r = 0; r < 3; r++) {
			/* A visible end is where a batch ends. */
			int64_t e = r == 0 ? end : r == 1 ? first + 17 :
			    first + 150;
			int i;

			for (i = 0; i < nrec && rec_off[i] < e; i++)
				;
			while (i < nrec && i > 0 &&
			    rec_batch[i] == rec_batch[i - 1])
				i++;
			e = i < nrec ? rec_off[i] : end;
			CU_ASSERT_FATAL(plog_reader_max_time(rd, first, e,
			    &off, &ts) == 0);
			brute_max(first, e, &woff, &wts);
			checks++;
			if ((off != woff || ts != wts) && bad++ < 5)
				fprintf(stderr, "first %lld end %lld: got "
				    "%lld/%lld want %lld/%lld\n",
				    (long long)first, (long long)e,
				    (long long)off, (long long)ts,
				    (long long)woff, (long long)wts);
		}
	}
	CU_ASSERT(bad == 0);
	CU_ASSERT(checks > 300);
	/* From the start: the hidden 950000 at batch 5's first record. */
	CU_ASSERT(plog_reader_max_time(rd, 0, end, &off, &ts) == 0);
	CU_ASSERT(ts == 950000 && off == rec_off[0 + 1 + 2 + 3 + 4 + 1]);
	/* Past it: 900000, first in batch 42 (its third record). */
	CU_ASSERT(plog_reader_max_time(rd, rec_off[20], end, &off, &ts) == 0);
	CU_ASSERT(ts == 900000);
	for (b = 0; b < nrec; b++)
		if (rec_batch[b] == 42 && rec_ts[b] == 900000)
			CU_ASSERT(off == rec_off[b]);
	/* Nothing visible, an empty span. */
	CU_ASSERT(plog_reader_max_time(rd, 5, 5, &off, &ts) == 0);
	CU_ASSERT(off == -1 && ts == -1);
	plog_reader_close(rd);
	plog_close(l);
	batch_builder_free(&bb);
	test_rmtree(dir);
	free(dir);
}

TEST_SUITE("timeindex", NULL, NULL,
    { "max timestamp: first record with the largest, from any start",
      test_max_time },
    { "entries follow the offset index", test_entries },
    { "rebuilt when missing or torn", test_rebuild },
    { "binary search", test_find });
