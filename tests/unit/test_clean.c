/*
 * Log compaction in the store (store/clean.h) on hand-built logs: the
 * exact records that survive (offsets, keys, values), the tombstone
 * horizon, min.compaction.lag.ms, a producer's last batch kept (emptied:
 * a header alone), a compressed batch rewritten with its codec, the
 * indexes agreeing with the new segments, merging, and the swap
 * recovered from each state a crash can leave on disk.
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
#include "proto/ctrl.h"
#include "store/clean.h"
#include "store/plog.h"
#include "store/txnindex.h"
#include "tests/harness.h"

#define SEGB	1024

static struct plog_config cfg = { SEGB, 256, -1, -1, 0, 0 };

/* One record as read back. */
struct rr {
	int64_t	off;
	char	key[16];
	char	val[16];	/* "" with tomb */
	int	tomb;
	int	codec;		/* of its batch */
	int64_t	pid;
};

#define RMAX	512

/*
 * Append one batch of n records key[i]=val[i] (val NULL: tombstone) with
 * timestamp ts, producer pid (-1 none) and codec.
 */
static void
put(struct plog *l, int n, const char *const *keys, const char *const *vals,
    int64_t ts, int64_t pid, int codec)
{
	struct batch_builder b;
	const uint8_t *out;
	uint8_t *copy;
	size_t outlen;
	int64_t base;
	int i;

	batch_builder_init(&b);
	if (pid >= 0)
		batch_builder_set_producer(&b, pid, 0, (int32_t)(pid * 100));
	for (i = 0; i < n; i++)
		CU_ASSERT_FATAL(batch_builder_add(&b, ts, keys[i],
		    (int32_t)strlen(keys[i]), vals[i],
		    vals[i] ? (int32_t)strlen(vals[i]) : -1, NULL, 0) == 0);
	CU_ASSERT_FATAL(batch_builder_close_codec(&b, codec, &out, &outlen) == 0);
	CU_ASSERT_FATAL((copy = malloc(outlen)) != NULL);
	memcpy(copy, out, outlen);
	CU_ASSERT_FATAL(plog_append(l, copy, outlen, &base) == 0);
	free(copy);
	batch_builder_free(&b);
}

/* One record k=v of transactional producer pid. */
static void
put_txn(struct plog *l, const char *k, const char *v, int64_t pid)
{
	struct batch_builder b;
	const uint8_t *out;
	uint8_t *copy;
	size_t outlen;
	int64_t base;

	batch_builder_init(&b);
	batch_builder_set_producer(&b, pid, 0, 0);
	CU_ASSERT_FATAL(batch_builder_add(&b, 1000, k, (int32_t)strlen(k), v,
	    (int32_t)strlen(v), NULL, 0) == 0);
	CU_ASSERT_FATAL(batch_builder_close(&b, &out, &outlen) == 0);
	CU_ASSERT_FATAL((copy = malloc(outlen)) != NULL);
	memcpy(copy, out, outlen);
	test_batch_set_transactional(copy, outlen);
	CU_ASSERT_FATAL(plog_append(l, copy, outlen, &base) == 0);
	free(copy);
	batch_builder_free(&b);
}

static void
put_marker(struct plog *l, int64_t pid, int type)
{
	struct ctrl_marker m = { pid, 0, (int16_t)type, 0, 1000 };
	uint8_t b[CTRL_MARKER_SIZE];
	int64_t base;

	ctrl_marker_encode(b, &m);
	CU_ASSERT_FATAL(plog_append(l, b, sizeof(b), &base) == 0);
}

static void
put1(struct plog *l, const char *k, const char *v, int64_t ts)
{
	put(l, 1, &k, &v, ts, -1, COMPRESS_NONE);
}

/* Every record of the log at dir, in order; *nb gets the batch count. */
static int
collect(const char *dir, struct rr *v, int *nb, int *empty_batches)
{
	struct plog *l;
	struct plog_slice s;
	struct plog_recovery rec;
	struct compress_buf z;
	struct batch_header h;
	struct batch_iter it;
	struct record r;
	uint8_t *buf;
	int64_t off, end;
	size_t pos;
	int n = 0;

	*nb = 0;
	if (empty_batches)
		*empty_batches = 0;
	CU_ASSERT_EQUAL_FATAL(plog_open(&l, dir, &cfg, &rec), 0);
	/* The cleaner's indexes agree with its segments: nothing rebuilt. */
	CU_ASSERT_EQUAL(rec.index_rebuilt, 0);
	CU_ASSERT_EQUAL(rec.timeindex_rebuilt, 0);
	compress_buf_init(&z, 1 << 20);
	off = plog_start_offset(l);
	end = plog_end_offset(l);
	while (off < end) {
		CU_ASSERT_EQUAL_FATAL(plog_read(l, off, end, 1 << 20, &s), 0);
		CU_ASSERT_FATAL(s.len > 0);
		CU_ASSERT_FATAL((buf = malloc(s.len)) != NULL);
		CU_ASSERT_FATAL(pread(s.fd, buf, s.len, s.pos) == (ssize_t)s.len);
		for (pos = 0; pos < s.len; pos += 12 + be32_get(buf + pos + 8)) {
			size_t bl = 12 + be32_get(buf + pos + 8);

			CU_ASSERT_EQUAL_FATAL(batch_parse_header(buf + pos, bl, &h),
			    BATCH_OK);
			CU_ASSERT_EQUAL_FATAL(batch_check_crc(buf + pos, bl),
			    BATCH_OK);
			(*nb)++;
			if (h.records_count == 0) {
				if (empty_batches)
					(*empty_batches)++;
				continue;
			}
			/*
			 * Not batch_validate_z: a compacted batch's offset
			 * deltas have gaps, which a produce would refuse.
			 */
			if ((h.attributes & BATCH_COMPRESSION_MASK) != 0)
				CU_ASSERT_EQUAL_FATAL(compress_inflate(
				    h.attributes & BATCH_COMPRESSION_MASK,
				    buf + pos + BATCH_HEADER_SIZE,
				    bl - BATCH_HEADER_SIZE, &z), COMPRESS_OK);
			CU_ASSERT_FATAL(batch_iter_init_z(&it, buf + pos, bl,
			    &z) == 0);
			while (batch_iter_next(&it, &r) == 1) {
				CU_ASSERT_FATAL(n < RMAX);
				memset(&v[n], 0, sizeof(v[n]));
				v[n].off = r.offset;
				memcpy(v[n].key, r.key, (size_t)r.key_len);
				v[n].tomb = r.value_len < 0;
				if (r.value_len > 0)
					memcpy(v[n].val, r.value,
					    (size_t)r.value_len);
				v[n].codec = h.attributes & BATCH_COMPRESSION_MASK;
				v[n].pid = h.producer_id;
				n++;
			}
		}
		off = s.next_offset;
		free(buf);
	}
	compress_buf_free(&z);
	plog_close(l);
	return n;
}

static struct clean_config
ccfg(int64_t now)
{
	struct clean_config c;

	memset(&c, 0, sizeof(c));
	c.now_ms = now;
	c.limit = INT64_MAX;
	c.min_lag_ms = 0;
	c.delete_retention_ms = 1000;
	c.segment_bytes = SEGB;
	c.index_interval_bytes = 256;
	c.dedupe_bytes = 1 << 20;
	c.inflate_limit = 1 << 20;
	return c;
}

/* Keys k0..k4, three versions each, v<round><key>; then an active tail. */
static char *
build_basic(void)
{
	char *dir = test_mkdtemp("clean"), k[8], val[8];
	struct plog *l;
	int round, i;

	CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
	CU_ASSERT_EQUAL_FATAL(plog_open(&l, dir, &cfg, NULL), 0);
	for (round = 0; round < 3; round++)
		for (i = 0; i < 5; i++) {
			snprintf(k, sizeof(k), "k%d", i);
			snprintf(val, sizeof(val), "v%d%d", round, i);
			put1(l, k, val, 1000 + round * 10 + i);
		}
	/* Enough to close the segments above: the last one stays active. */
	for (i = 0; i < 30; i++)
		put1(l, "tail", "t", 2000 + i);
	plog_close(l);
	return dir;
}

static int
has(const struct rr *v, int n, int64_t off, const char *key, const char *val)
{
	int i;

	for (i = 0; i < n; i++)
		if (v[i].off == off)
			return strcmp(v[i].key, key) == 0 &&
			    (val == NULL ? v[i].tomb : strcmp(v[i].val, val) == 0);
	return 0;
}

static void
test_basic(void)
{
	struct rr v[RMAX];
	struct clean_config c = ccfg(5000);
	struct clean_stats st;
	struct clean_state cs;
	char *dir = build_basic();
	int n, nb, i, before;

	before = collect(dir, v, &nb, NULL);
	CU_ASSERT_EQUAL(before, 45);
	CU_ASSERT_EQUAL(clean_inspect(dir, &c, &cs), 0);
	CU_ASSERT_EQUAL(cs.checkpoint, 0);
	CU_ASSERT(cs.dirty_bytes > 0);
	CU_ASSERT_EQUAL(cs.clean_bytes, 0);
	CU_ASSERT_EQUAL(clean_partition(dir, &c, &st), 0);
	CU_ASSERT(st.segments_in >= 2);
	CU_ASSERT(st.bytes_after < st.bytes_before);
	n = collect(dir, v, &nb, NULL);
	/* k0..k4's third versions at 10..14 survive, the first two go. */
	for (i = 0; i < 5; i++) {
		char k[8], val[8];

		snprintf(k, sizeof(k), "k%d", i);
		snprintf(val, sizeof(val), "v2%d", i);
		CU_ASSERT(has(v, n, 10 + i, k, val));
	}
	for (i = 0; i < n; i++)
		CU_ASSERT(v[i].off >= 10);
	/* Offsets unchanged and ascending; the tail's cleaned part keeps
	 * only its last "tail" record, the active segment keeps all. */
	for (i = 1; i < n; i++)
		CU_ASSERT(v[i].off > v[i - 1].off);
	CU_ASSERT_EQUAL((int)st.records_removed, before - n);
	CU_ASSERT_EQUAL(clean_inspect(dir, &c, &cs), 0);
	CU_ASSERT_EQUAL(cs.checkpoint, st.checkpoint);
	CU_ASSERT_EQUAL(cs.dirty_bytes, 0);
	/* A second pass finds nothing dirty and changes nothing. */
	CU_ASSERT_EQUAL(clean_partition(dir, &c, &st), 0);
	CU_ASSERT_EQUAL(st.segments_in, 0);
	CU_ASSERT_EQUAL(collect(dir, v, &nb, NULL), n);
	test_rmtree(dir);
	free(dir);
}

/*
 * Transactions, as Kafka's cleaner: aborted records go and never hide a
 * committed one; markers stay whole (two ABORTs share a key, and both
 * stay); the aborted-transaction index goes with the cleaned segment.
 *
 *   0 k1=v1   1 k1=xa (5, aborted)   2 k2=b6 (6)   3 ABORT 5   4 COMMIT 6
 *   5 k3=xc (7, aborted)   6 ABORT 7   then a tail to close the segment
 */
static void
test_transactions(void)
{
	struct txn_aborted a5 = { 5, 1, 3, 2 }, a7 = { 7, 5, 6, 7 }, *ab;
	struct rr v[RMAX];
	struct clean_config c = ccfg(5000);
	struct clean_stats st;
	char *dir = test_mkdtemp("cleantx");
	struct plog *l;
	size_t nab;
	int n, nb, i;

	CU_ASSERT_EQUAL_FATAL(plog_open(&l, dir, &cfg, NULL), 0);
	put1(l, "k1", "v1", 1000);
	put_txn(l, "k1", "xa", 5);
	put_txn(l, "k2", "b6", 6);
	put_marker(l, 5, CTRL_ABORT);
	put_marker(l, 6, CTRL_COMMIT);
	put_txn(l, "k3", "xc", 7);
	put_marker(l, 7, CTRL_ABORT);
	for (i = 0; i < 30; i++)
		put1(l, "tail", "t", 2000 + i);
	plog_close(l);
	CU_ASSERT_EQUAL_FATAL(txnindex_append(dir, 0, &a5), 0);
	CU_ASSERT_EQUAL_FATAL(txnindex_append(dir, 0, &a7), 0);
	CU_ASSERT_EQUAL(clean_partition(dir, &c, &st), 0);
	CU_ASSERT(st.segments_in >= 1);
	n = collect(dir, v, &nb, NULL);
	CU_ASSERT(has(v, n, 0, "k1", "v1"));
	CU_ASSERT(has(v, n, 2, "k2", "b6"));
	for (i = 0; i < n; i++) {
		CU_ASSERT(v[i].off != 1 && v[i].off != 5);
		if (v[i].off == 3 || v[i].off == 4 || v[i].off == 6)
			CU_ASSERT_EQUAL(v[i].pid, v[i].off == 4 ? 6 :
			    v[i].off == 3 ? 5 : 7);
	}
	/* The three markers, each its one record. */
	for (i = 0, nb = 0; i < n; i++)
		nb += v[i].off == 3 || v[i].off == 4 || v[i].off == 6;
	CU_ASSERT_EQUAL(nb, 3);
	CU_ASSERT_EQUAL(txnindex_load(dir, 0, &ab, &nab), 0);
	CU_ASSERT_EQUAL_FATAL(nab, 2);
	CU_ASSERT(ab[0].pid == 5 && ab[0].first == 1 && ab[0].last == 3 &&
	    ab[0].lso == 2);
	CU_ASSERT(ab[1].pid == 7 && ab[1].last == 6);
	free(ab);
	test_rmtree(dir);
	free(dir);
}

/* Tombstones stay delete.retention.ms after their first clean, then go. */
static void
test_tombstones(void)
{
	struct rr v[RMAX];
	struct clean_config c = ccfg(5000);
	struct clean_stats st;
	struct plog *l;
	char *dir = test_mkdtemp("clean");
	int n, nb, i;

	CU_ASSERT_EQUAL_FATAL(plog_open(&l, dir, &cfg, NULL), 0);
	put1(l, "a", "a1", 100);
	put1(l, "b", "b1", 101);
	put1(l, "a", NULL, 102);	/* offset 2: a's tombstone */
	put1(l, "c", "c1", 103);
	for (i = 0; i < 20; i++)
		put1(l, "pad", "p", 200 + i);
	plog_close(l);
	CU_ASSERT_EQUAL(clean_partition(dir, &c, &st), 0);
	n = collect(dir, v, &nb, NULL);
	CU_ASSERT(has(v, n, 1, "b", "b1"));
	CU_ASSERT(has(v, n, 2, "a", NULL));
	CU_ASSERT(!has(v, n, 0, "a", "a1"));
	CU_ASSERT(has(v, n, 3, "c", "c1"));
	/* Not yet past the horizon: a pass changes nothing about it. */
	c.now_ms = 5000 + 1000;
	CU_ASSERT_EQUAL(clean_partition(dir, &c, &st), 0);
	n = collect(dir, v, &nb, NULL);
	CU_ASSERT(has(v, n, 2, "a", NULL));
	/* Past it: the tombstone goes, b and c stay. */
	c.now_ms = 5000 + 1001;
	CU_ASSERT_EQUAL(clean_partition(dir, &c, &st), 0);
	CU_ASSERT(st.segments_in > 0);
	n = collect(dir, v, &nb, NULL);
	CU_ASSERT(!has(v, n, 2, "a", NULL));
	for (i = 0; i < n; i++)
		CU_ASSERT(v[i].off != 2);
	CU_ASSERT(has(v, n, 1, "b", "b1"));
	CU_ASSERT(has(v, n, 3, "c", "c1"));
	test_rmtree(dir);
	free(dir);
}

/* A segment holding a record younger than the lag is not cleaned, nor any after. */
static void
test_min_lag(void)
{
	struct rr v[RMAX];
	struct clean_config c = ccfg(10000);
	struct clean_stats st;
	char *dir = build_basic();
	int n, nb;

	/* Every record of build_basic is older than 10000 - 8000 = 2000 but the tail's. */
	c.min_lag_ms = 8995;	/* records at >= 1005 are young */
	CU_ASSERT_EQUAL(clean_partition(dir, &c, &st), 0);
	n = collect(dir, v, &nb, NULL);
	/* Offsets 0..4 (k0..k4 round 0) are in the first segment only if it
	 * holds no young record; round 1 (ts 1010..) is young: all kept. */
	CU_ASSERT_EQUAL(n, 45);
	c.min_lag_ms = 0;
	CU_ASSERT_EQUAL(clean_partition(dir, &c, &st), 0);
	n = collect(dir, v, &nb, NULL);
	CU_ASSERT(n < 45);
	test_rmtree(dir);
	free(dir);
}

/* A producer's last batch stays, as a header alone when emptied. */
static void
test_producer(void)
{
	struct rr v[RMAX];
	struct clean_config c = ccfg(5000);
	struct clean_stats st;
	struct plog *l;
	const char *k[2] = { "x", "y" }, *v1[2] = { "x1", "y1" };
	const char *v2[2] = { "x2", "y2" };
	char *dir = test_mkdtemp("clean");
	int n, nb, empty, i;

	CU_ASSERT_EQUAL_FATAL(plog_open(&l, dir, &cfg, NULL), 0);
	put(l, 2, k, v1, 100, 7, COMPRESS_NONE);	/* offsets 0-1, pid 7 */
	put(l, 2, k, v1, 100, 8, COMPRESS_NONE);	/* 2-3, pid 8's first */
	put(l, 2, k, v2, 101, 9, COMPRESS_NONE);	/* 4-5: supersedes all */
	put(l, 2, k, v2, 101, 8, COMPRESS_NONE);	/* 6-7 pid 8's last */
	for (i = 0; i < 20; i++)
		put1(l, "pad", "p", 200 + i);
	plog_close(l);
	CU_ASSERT_EQUAL(clean_partition(dir, &c, &st), 0);
	n = collect(dir, v, &nb, &empty);
	/* pid 7's only batch (0-1) is its last: kept, emptied. pid 8's
	 * first (2-3) goes entirely; 9's (4-5) emptied and kept too. */
	CU_ASSERT_EQUAL(empty, 2);
	CU_ASSERT(has(v, n, 6, "x", "x2"));
	CU_ASSERT(has(v, n, 7, "y", "y2"));
	for (i = 0; i < n; i++)
		CU_ASSERT(v[i].off >= 6);
	test_rmtree(dir);
	free(dir);
}

/* A compressed batch with some records removed stays compressed, same codec. */
static void
test_compressed(void)
{
	struct rr v[RMAX];
	struct clean_config c = ccfg(5000);
	struct clean_stats st;
	struct plog *l;
	const char *k[3] = { "p", "q", "r" }, *v1[3] = { "p1", "q1", "r1" };
	char *dir = test_mkdtemp("clean");
	int n, nb, i;

	CU_ASSERT_EQUAL_FATAL(plog_open(&l, dir, &cfg, NULL), 0);
	put(l, 3, k, v1, 100, -1, COMPRESS_LZ4);	/* 0-2 */
	put(l, 3, k, v1, 100, -1, COMPRESS_GZIP);	/* 3-5 */
	put1(l, "q", "q2", 101);			/* 6 */
	for (i = 0; i < 20; i++)
		put1(l, "pad", "p", 200 + i);
	plog_close(l);
	CU_ASSERT_EQUAL(clean_partition(dir, &c, &st), 0);
	n = collect(dir, v, &nb, NULL);
	CU_ASSERT(has(v, n, 3, "p", "p1"));
	CU_ASSERT(has(v, n, 5, "r", "r1"));
	CU_ASSERT(!has(v, n, 4, "q", "q1"));
	CU_ASSERT(has(v, n, 6, "q", "q2"));
	for (i = 0; i < n; i++) {
		CU_ASSERT(v[i].off >= 3);
		if (v[i].off == 3 || v[i].off == 5)
			CU_ASSERT_EQUAL(v[i].codec, COMPRESS_GZIP);
	}
	test_rmtree(dir);
	free(dir);
}

static int stop_at;

static int
crash_hook(void *arg, int step)
{
	(void)arg;
	return step == stop_at;
}

static int
same(const struct rr *a, int na, const struct rr *b, int nb)
{
	int i;

	if (na != nb)
		return 0;
	for (i = 0; i < na; i++)
		if (a[i].off != b[i].off || strcmp(a[i].key, b[i].key) != 0 ||
		    strcmp(a[i].val, b[i].val) != 0 || a[i].tomb != b[i].tomb)
			return 0;
	return 1;
}

/*
 * A crash at each step of the swap (the manifest written, renamed .swap,
 * the first replacement done, the old ones unlinked): recovery ends at
 * exactly the new log.  Before the commit (.cleaned and .swap files but
 * no manifest): exactly the old one.
 */
static void
test_swap_recovery(void)
{
	static struct rr old[RMAX], want[RMAX], got[RMAX];
	struct clean_config c = ccfg(5000);
	struct clean_stats st;
	char *dir, path[1024], cmd[2048];
	int nold, nwant, n, nb;

	/* The result with no crash. */
	dir = build_basic();
	nold = collect(dir, old, &nb, NULL);
	CU_ASSERT_EQUAL(clean_partition(dir, &c, &st), 0);
	nwant = collect(dir, want, &nb, NULL);
	CU_ASSERT(nwant < nold);
	test_rmtree(dir);
	free(dir);

	for (stop_at = 1; stop_at <= 4; stop_at++) {
		dir = build_basic();
		c.swap_hook = crash_hook;
		CU_ASSERT_EQUAL(clean_partition(dir, &c, &st), -1);
		CU_ASSERT_EQUAL(errno, EINTR);
		c.swap_hook = NULL;
		/* plog_open recovers (collect opens the log). */
		n = collect(dir, got, &nb, NULL);
		CU_ASSERT(same(got, n, want, nwant));
		snprintf(path, sizeof(path), "%s/%s", dir, CLEAN_MANIFEST);
		CU_ASSERT(access(path, F_OK) == -1);
		test_rmtree(dir);
		free(dir);
	}
	/* Uncommitted: .cleaned and .swap files beside the old segments. */
	dir = build_basic();
	snprintf(cmd, sizeof(cmd), "cp %s/00000000000000000000.log "
	    "%s/00000000000000000000.log.cleaned && cp "
	    "%s/00000000000000000000.index %s/00000000000000000000.index.swap",
	    dir, dir, dir, dir);
	CU_ASSERT_EQUAL(system(cmd), 0);
	CU_ASSERT_EQUAL(clean_recover(dir), 1);
	snprintf(path, sizeof(path), "%s/00000000000000000000.log.cleaned", dir);
	CU_ASSERT(access(path, F_OK) == -1);
	n = collect(dir, got, &nb, NULL);
	CU_ASSERT(same(got, n, old, nold));
	CU_ASSERT_EQUAL(clean_recover(dir), 0);
	test_rmtree(dir);
	free(dir);
}

/* Small segments merge up to segment.bytes on a later pass. */
static void
test_merge(void)
{
	struct rr v[RMAX];
	struct clean_config c = ccfg(5000);
	struct clean_stats st;
	struct plog *l;
	char *dir = build_basic(), k[8], val[8];
	int n, nb, i;

	CU_ASSERT_EQUAL(clean_partition(dir, &c, &st), 0);
	/* Three closed segments of 14 batches, full: none merge yet. */
	CU_ASSERT_EQUAL(st.segments_in, 3);
	CU_ASSERT_EQUAL(st.segments_out, 3);
	/* A full segment more closes: the next pass merges the two small ones. */
	CU_ASSERT_EQUAL_FATAL(plog_open(&l, dir, &cfg, NULL), 0);
	for (i = 0; i < 20; i++)
		put1(l, "more", "m", 3000 + i);
	plog_close(l);
	CU_ASSERT_EQUAL(clean_partition(dir, &c, &st), 0);
	CU_ASSERT_EQUAL(st.segments_in, 4);
	/* The three cleaned ones hold 7 batches now: one segment. */
	CU_ASSERT_EQUAL(st.segments_out, 2);
	n = collect(dir, v, &nb, NULL);
	for (i = 0; i < 5; i++) {
		snprintf(k, sizeof(k), "k%d", i);
		snprintf(val, sizeof(val), "v2%d", i);
		CU_ASSERT(has(v, n, 10 + i, k, val));
	}
	test_rmtree(dir);
	free(dir);
}

TEST_SUITE("clean", NULL, NULL,
    { "transactions", test_transactions },
    { "latest value per key, offsets kept, second pass idle", test_basic },
    { "tombstones kept until delete.retention.ms after the first clean",
	test_tombstones },
    { "min.compaction.lag.ms: young segments untouched", test_min_lag },
    { "a producer's last batch stays (emptied: header alone)", test_producer },
    { "compressed batches keep their codec", test_compressed },
    { "swap recovered from every crash point", test_swap_recovery },
    { "small segments merged", test_merge });
