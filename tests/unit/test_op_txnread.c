/*
 * read_committed in the operations (worker/op/fetch.h, offsets.h): a
 * Fetch stops at the last stable offset with exactly the batches below
 * it and the aborted transactions of the range, read_uncommitted reads
 * on with the same LSO and no list, the long poll wakes when the LSO
 * moves, and ListOffsets answers the LSO for read_committed.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "proto/batch.h"
#include "proto/bytes.h"
#include "proto/ctrl.h"
#include "shm/producer.h"
#include "shm/ring.h"
#include "shm/topics.h"
#include "store/plog.h"
#include "store/topic.h"
#include "store/txnindex.h"
#include "tests/harness.h"
#include "tests/unit/fixture_op.h"
#include "worker/op/describe.h"
#include "worker/op/fetch.h"
#include "worker/op/offsets.h"
#include "worker/op/producer.h"

static struct fixture_op f;

#define NB	8	/* batches of the log, one offset each but the second */

/*
 * The log of "t" partition 0, as a transactional producer A (aborted),
 * B (committed) and C (still open) left it:
 *
 *   0 plain   1-2 A   3 B   4 A ABORT   5 B COMMIT   6 C   7 plain (ts 5000)
 */
static uint8_t	*bat[NB];
static size_t	 blen[NB];
static int64_t	 boff[NB];
#define PA	1001
#define PB	1002
#define PC	1003

static uint8_t *
mk(int n, int64_t ts, int64_t pid, int txn, size_t *len)
{
	struct batch_builder bb;
	const uint8_t *out;
	uint8_t *copy;
	int i;

	batch_builder_init(&bb);
	for (i = 0; i < n; i++)
		CU_ASSERT_EQUAL_FATAL(batch_builder_add(&bb, ts, "k", 1, "v", 1,
		    NULL, 0), 0);
	if (pid >= 0)
		batch_builder_set_producer(&bb, pid, 0, 0);
	CU_ASSERT_EQUAL_FATAL(batch_builder_close(&bb, &out, len), 0);
	copy = malloc(*len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(copy);
	memcpy(copy, out, *len);
	batch_builder_free(&bb);
	if (txn)
		test_batch_set_transactional(copy, *len);
	return copy;
}

static uint8_t *
mk_marker(int64_t pid, int type, size_t *len)
{
	struct ctrl_marker m = { pid, 0, (int16_t)type, 0, 1000 };
	uint8_t *b = malloc(CTRL_MARKER_SIZE);

	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	ctrl_marker_encode(b, &m);
	*len = CTRL_MARKER_SIZE;
	return b;
}

static struct shm_partition *
part0(void)
{
	return shm_partition(f.w.shm, 0, 0);
}

static void
log_write(void)
{
	struct plog_config cfg = { 1 << 20, 4096, -1, -1, 0, 0 };
	struct txn_aborted ab = { PA, 1, 4, 3 };
	char dir[PATH_MAX];
	struct plog *l;
	int i;

	CU_ASSERT_EQUAL_FATAL(topic_partition_dir(dir, sizeof(dir), f.dir, "t",
	    0), 0);
	*strrchr(dir, '/') = '\0';
	mkdir(dir, 0700);
	CU_ASSERT_EQUAL_FATAL(topic_partition_dir(dir, sizeof(dir), f.dir, "t",
	    0), 0);
	mkdir(dir, 0700);
	bat[0] = mk(1, 1000, -1, 0, &blen[0]);
	bat[1] = mk(2, 1000, PA, 1, &blen[1]);
	bat[2] = mk(1, 1000, PB, 1, &blen[2]);
	bat[3] = mk_marker(PA, CTRL_ABORT, &blen[3]);
	bat[4] = mk_marker(PB, CTRL_COMMIT, &blen[4]);
	bat[5] = mk(1, 1000, PC, 1, &blen[5]);
	bat[6] = mk(1, 5000, -1, 0, &blen[6]);
	CU_ASSERT_EQUAL_FATAL(plog_open(&l, dir, &cfg, NULL), 0);
	for (i = 0; i < 7; i++) {
		CU_ASSERT_EQUAL_FATAL(plog_append(l, bat[i], blen[i], &boff[i]), 0);
	}
	CU_ASSERT_EQUAL(boff[3], 4);
	CU_ASSERT_EQUAL(boff[6], 7);
	CU_ASSERT_EQUAL(plog_sync(l), 0);
	plog_close(l);
	/* What the writer did at A's ABORT (B was open from 3 then). */
	CU_ASSERT_EQUAL_FATAL(txnindex_append(dir, 0, &ab), 0);
	atomic_store(&part0()->visible_offset, 8);
	atomic_store(&part0()->durable_offset, 8);
	__atomic_store_n(&part0()->next_offset, 8, __ATOMIC_RELEASE);
	/* As start-up finds it (a snapshot): C's transaction open from 6. */
	atomic_store(&part0()->txn_seen, 1);
	producer_id_raise(f.w.shm, PC);
	CU_ASSERT_EQUAL_FATAL(producer_txn_open(f.w.shm, part0(), PC, 0, 6), 0);
}

static void
log_done(void)
{
	int i;

	for (i = 0; i < NB; i++) {
		free(bat[i]);
		bat[i] = NULL;
	}
}

/* The bytes of batches [from, to) back to back. */
static size_t
span(int from, int to, uint8_t **out)
{
	size_t n = 0;
	int i;

	for (i = from; i < to; i++)
		n += blen[i];
	*out = malloc(n);
	CU_ASSERT_PTR_NOT_NULL_FATAL(*out);
	n = 0;
	for (i = from; i < to; i++) {
		memcpy(*out + n, bat[i], blen[i]);
		n += blen[i];
	}
	return n;
}

static int
range_is(int fd, off_t pos, size_t len, const uint8_t *want)
{
	uint8_t *got = malloc(len);
	int same;

	CU_ASSERT_PTR_NOT_NULL_FATAL(got);
	same = pread(fd, got, len, pos) == (ssize_t)len &&
	    memcmp(got, want, len) == 0;
	free(got);
	return same;
}

static enum op_status
fetch1(struct op_fetch_part *fp, int8_t iso, int32_t max_wait,
    struct op_fetch *a, struct op_fetch_st **st)
{
	enum op_err err;
	enum op_status s;

	memset(a, 0, sizeof(*a));
	a->max_wait_ms = max_wait;
	a->min_bytes = 1;
	a->max_bytes = 1 << 20;
	a->count = 1;
	a->parts = fp;
	a->isolation = iso;
	s = op_fetch(&f.x, a, st, &err);
	CU_ASSERT_EQUAL(err, OP_OK);
	CU_ASSERT_PTR_NOT_NULL_FATAL(*st);
	return s;
}

static void
test_fetch_committed(void)
{
	struct op_fetch_part fp = { "t", 1, 0, 0, 1 << 20 };
	struct op_fetch_st *st;
	struct op_fetch a;
	struct op_fetch_result *r;
	uint8_t *want;
	size_t n;

	fixture_op_start(&f, 1);
	log_write();
	CU_ASSERT_EQUAL(part_lso(f.w.shm, 0), 6);

	/* read_committed from 0: offsets 0-5 (5 batches), A aborted. */
	CU_ASSERT_EQUAL(fetch1(&fp, 1, 0, &a, &st), OP_DONE);
	r = &st->res[0];
	CU_ASSERT_EQUAL(r->err, OP_OK);
	CU_ASSERT_EQUAL(r->hwm, 8);
	CU_ASSERT_EQUAL(r->lso, 6);
	n = span(0, 5, &want);
	CU_ASSERT_EQUAL(r->pos, 0);
	CU_ASSERT_EQUAL_FATAL(r->len, n);
	CU_ASSERT_TRUE(range_is(r->fd, r->pos, r->len, want));
	free(want);
	CU_ASSERT_EQUAL_FATAL(r->naborted, 1);
	CU_ASSERT_EQUAL(r->aborted[0].pid, PA);
	CU_ASSERT_EQUAL(r->aborted[0].first, 1);
	op_fetch_release(st);

	/* A partition that never held a transaction is not looked into. */
	atomic_store(&part0()->txn_seen, 0);
	CU_ASSERT_EQUAL(fetch1(&fp, 1, 0, &a, &st), OP_DONE);
	CU_ASSERT_EQUAL(st->res[0].naborted, 0);
	op_fetch_release(st);
	atomic_store(&part0()->txn_seen, 1);

	/* read_uncommitted: everything, the same LSO, no list. */
	CU_ASSERT_EQUAL(fetch1(&fp, 0, 0, &a, &st), OP_DONE);
	r = &st->res[0];
	n = span(0, 7, &want);
	CU_ASSERT_EQUAL_FATAL(r->len, n);
	CU_ASSERT_TRUE(range_is(r->fd, r->pos, r->len, want));
	free(want);
	CU_ASSERT_EQUAL(r->lso, 6);
	CU_ASSERT_EQUAL(r->naborted, 0);
	CU_ASSERT_PTR_NULL(r->aborted);
	op_fetch_release(st);

	/* From 5: A's ABORT (4) is behind; nothing aborted in [5, 6). */
	fp.offset = 5;
	CU_ASSERT_EQUAL(fetch1(&fp, 1, 0, &a, &st), OP_DONE);
	r = &st->res[0];
	CU_ASSERT_EQUAL(r->len, blen[4]);
	CU_ASSERT_EQUAL(r->naborted, 0);
	op_fetch_release(st);

	/* From 2 (inside A's batch): A's entry still counts. */
	fp.offset = 2;
	CU_ASSERT_EQUAL(fetch1(&fp, 1, 0, &a, &st), OP_DONE);
	r = &st->res[0];
	CU_ASSERT_EQUAL(r->pos, (off_t)blen[0]);
	CU_ASSERT_EQUAL(r->naborted, 1);
	op_fetch_release(st);

	/* At the LSO: it waits, and wakes when C's transaction closes. */
	fp.offset = 6;
	CU_ASSERT_EQUAL(fetch1(&fp, 1, 500, &a, &st), OP_WAIT);
	CU_ASSERT_EQUAL(op_fetch_poll(&f.x, &a, st), OP_WAIT);
	CU_ASSERT_EQUAL(part_lock(f.w.shm, part0()), 0);
	producer_txn_clear(f.w.shm, part0(), PC);
	part_unlock(part0());
	CU_ASSERT_EQUAL(op_fetch_poll(&f.x, &a, st), OP_DONE);
	r = &st->res[0];
	CU_ASSERT_EQUAL(r->lso, 8);
	n = span(5, 7, &want);
	CU_ASSERT_EQUAL_FATAL(r->len, n);
	CU_ASSERT_TRUE(range_is(r->fd, r->pos, r->len, want));
	free(want);
	CU_ASSERT_EQUAL(r->naborted, 0);
	op_fetch_release(st);

	/*
	 * Nothing open, offset 7 acknowledged but not yet in the files:
	 * the LSO is the high watermark, the read stops at visible_offset.
	 */
	atomic_store(&part0()->visible_offset, 7);
	fp.offset = 5;
	CU_ASSERT_EQUAL(fetch1(&fp, 1, 0, &a, &st), OP_DONE);
	r = &st->res[0];
	CU_ASSERT_EQUAL(r->lso, 8);
	CU_ASSERT_EQUAL(r->hwm, 8);
	n = span(4, 6, &want);
	CU_ASSERT_EQUAL_FATAL(r->len, n);
	free(want);
	op_fetch_release(st);
	log_done();
	fixture_op_done(&f);
}

static void
test_list_offsets_committed(void)
{
	int64_t off, ts;

	fixture_op_start(&f, 1);
	log_write();
	CU_ASSERT_EQUAL(op_list_offset_committed(&f.x, "t", 1, 0,
	    OP_OFFSET_LATEST, &off, &ts), OP_OK);
	CU_ASSERT_EQUAL(off, 6);
	CU_ASSERT_EQUAL(op_list_offset(&f.x, "t", 1, 0, OP_OFFSET_LATEST, &off,
	    &ts), OP_OK);
	CU_ASSERT_EQUAL(off, 8);
	CU_ASSERT_EQUAL(op_list_offset_committed(&f.x, "t", 1, 0,
	    OP_OFFSET_EARLIEST, &off, &ts), OP_OK);
	CU_ASSERT_EQUAL(off, 0);
	/* By time: 1000 is offset 0, below the LSO; 5000 is 7, past it. */
	CU_ASSERT_EQUAL(op_list_offset_committed(&f.x, "t", 1, 0, 1000, &off,
	    &ts), OP_OK);
	CU_ASSERT_EQUAL(off, 0);
	CU_ASSERT_EQUAL(ts, 1000);
	CU_ASSERT_EQUAL(op_list_offset_committed(&f.x, "t", 1, 0, 5000, &off,
	    &ts), OP_OK);
	CU_ASSERT_EQUAL(off, -1);
	CU_ASSERT_EQUAL(ts, -1);
	CU_ASSERT_EQUAL(op_list_offset(&f.x, "t", 1, 0, 5000, &off, &ts), OP_OK);
	CU_ASSERT_EQUAL(off, 7);
	CU_ASSERT_EQUAL(op_list_offset_committed(&f.x, "u", 1, 0,
	    OP_OFFSET_LATEST, &off, &ts), OP_NO_TOPIC);
	log_done();
	fixture_op_done(&f);
}

/* DescribeProducers' currentTxnStartOffset. */
static void
test_producers_txn_start(void)
{
	struct op_producer *pr;
	struct producer_seq q;
	int64_t pid, base, next;
	uint8_t *b;
	size_t len;
	int n, i, dup, seen = 0;

	fixture_op_start(&f, 1);
	log_write();
	/* C: rebuilt at start-up, no appends yet. */
	CU_ASSERT_EQUAL(op_producers(&f.x, "t", 1, 0, &pr, &n), OP_OK);
	CU_ASSERT_EQUAL_FATAL(n, 1);
	CU_ASSERT_EQUAL(pr[0].pid, PC);
	CU_ASSERT_EQUAL(pr[0].txn_first, 6);
	CU_ASSERT_EQUAL(pr[0].last_seq, -1);
	CU_ASSERT_EQUAL(pr[0].last_ts, -1);
	/* An idempotent producer without a transaction: -1. */
	pid = producer_id_new(f.w.shm);
	b = mk(2, 1000, pid, 0, &len);
	CU_ASSERT_EQUAL_FATAL(producer_seq_of(b, len, &q), 0);
	CU_ASSERT_EQUAL(producer_append(f.w.shm, part0(),
	    atomic_load(&part0()->incarnation), &q, b, len, &base, &next, &dup), 0);
	free(b);
	CU_ASSERT_EQUAL(op_producers(&f.x, "t", 1, 0, &pr, &n), OP_OK);
	CU_ASSERT_EQUAL_FATAL(n, 2);
	for (i = 0; i < n; i++) {
		if (pr[i].pid == PC) {
			CU_ASSERT_EQUAL(pr[i].txn_first, 6);
			seen |= 1;
		} else if (pr[i].pid == pid) {
			CU_ASSERT_EQUAL(pr[i].txn_first, -1);
			CU_ASSERT_EQUAL(pr[i].last_seq, 1);
			seen |= 2;
		}
	}
	CU_ASSERT_EQUAL(seen, 3);
	log_done();
	fixture_op_done(&f);
}

/* Every producer slot holds an open transaction: a newcomer is told to retry. */
static void
test_producers_full(void)
{
	int64_t pid, base, next;
	enum op_err err = OP_OK;
	uint8_t *b;
	size_t len;
	int i;

	fixture_op_start(&f, 1);
	for (i = 0; i < PRODUCER_SLOTS; i++) {
		pid = producer_id_new(f.w.shm);
		CU_ASSERT_EQUAL_FATAL(producer_txn_open(f.w.shm, part0(), pid, 0,
		    i), 0);
	}
	pid = producer_id_new(f.w.shm);
	b = mk(1, 1000, pid, 0, &len);
	CU_ASSERT_EQUAL(op_producer_append(&f.w, part0(),
	    atomic_load(&part0()->incarnation), b, len, &base, &next, &err), -1);
	CU_ASSERT_EQUAL(err, OP_PRODUCERS_FULL);
	CU_ASSERT_EQUAL(atomic_load(&part0()->tail), 0);
	free(b);
	fixture_op_done(&f);
}

TEST_SUITE("op_txnread", NULL, NULL,
    { "producers with an open transaction", test_producers_txn_start },
    { "every producer slot holds a transaction", test_producers_full },
    { "fetch read_committed", test_fetch_committed },
    { "list offsets read_committed", test_list_offsets_committed });
