/*
 * The data path operations, called directly (no fork): produce with its
 * ring append, acks=all wait and refusals (worker/op/produce.h), the
 * producer ids (worker/op/producer.h), fetch over a real log written
 * with store/plog.h (worker/op/fetch.h), list offsets by position and
 * by time (worker/op/offsets.h), and the reader cache
 * (worker/op/reader.h).
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

#include "common/authfile.h"
#include "proto/batch.h"
#include "shm/producer.h"
#include "shm/ring.h"
#include "shm/topics.h"
#include "store/plog.h"
#include "store/topic.h"
#include "tests/harness.h"
#include "tests/unit/fixture_op.h"
#include "worker/op/fetch.h"
#include "worker/op/offsets.h"
#include "worker/op/part.h"
#include "worker/op/produce.h"
#include "worker/op/producer.h"
#include "worker/op/reader.h"

static struct fixture_op f;

/*
 * A batch of n records with timestamp ts and values of vlen bytes, by
 * producer pid/epoch from seq (pid -1: none); malloc'ed.
 */
static uint8_t *
batch(int n, int64_t ts, size_t vlen, int64_t pid, int16_t epoch, int32_t seq,
    size_t *len)
{
	struct batch_builder bb;
	const uint8_t *out;
	uint8_t *copy, *v;
	int i;

	v = calloc(1, vlen + 1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(v);
	batch_builder_init(&bb);
	for (i = 0; i < n; i++) {
		memset(v, 'a' + i % 26, vlen);
		CU_ASSERT_EQUAL_FATAL(batch_builder_add(&bb, ts, NULL, -1, v,
		    (int32_t)vlen, NULL, 0), 0);
	}
	if (pid >= 0)
		batch_builder_set_producer(&bb, pid, epoch, seq);
	CU_ASSERT_EQUAL_FATAL(batch_builder_close(&bb, &out, len), 0);
	copy = malloc(*len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(copy);
	memcpy(copy, out, *len);
	batch_builder_free(&bb);
	free(v);
	return copy;
}

static struct shm_partition *
part(int32_t i)
{
	return shm_partition(f.w.shm, 0, i);
}

/* One part, to topic "t" unless named. */
static struct op_produce_part
pp_of(const char *topic, int32_t partition, const uint8_t *b, size_t len)
{
	struct op_produce_part pp = { topic, strlen(topic), partition, b, len };

	return pp;
}

static enum op_status
produce1(int acks, struct op_produce_part *pp, int32_t n,
    struct op_produce_st **st, enum op_err *err)
{
	struct op_produce a = { acks, 1000, n, pp };

	*st = NULL;
	return op_produce(&f.x, &a, st, err);
}

static void
test_produce_acks1(void)
{
	struct op_produce_part pp[2];
	struct op_produce_st *st;
	enum op_err err;
	uint8_t *b1, *b2;
	size_t l1, l2;
	uint64_t free0;

	fixture_op_start(&f, 2);
	b1 = batch(3, 1000, 10, -1, -1, -1, &l1);
	b2 = batch(2, 1000, 10, -1, -1, -1, &l2);
	free0 = ring_free(f.w.shm, part(0));
	pp[0] = pp_of("t", 0, b1, l1);
	pp[1] = pp_of("t", 1, b2, l2);
	CU_ASSERT_EQUAL(produce1(1, pp, 2, &st, &err), OP_DONE);
	CU_ASSERT_EQUAL(err, OP_OK);
	CU_ASSERT_PTR_NOT_NULL_FATAL(st);
	CU_ASSERT_EQUAL(st->count, 2);
	CU_ASSERT_EQUAL(st->res[0].err, OP_OK);
	CU_ASSERT_EQUAL(st->res[0].base_offset, 0);
	CU_ASSERT_EQUAL(st->res[0].log_start, 0);
	CU_ASSERT_EQUAL(st->res[1].err, OP_OK);
	CU_ASSERT_EQUAL(st->res[1].base_offset, 0);
	/* The same part again: the next offsets, the bytes in the ring. */
	pp[0] = pp_of("t", 0, b2, l2);
	CU_ASSERT_EQUAL(produce1(1, pp, 1, &st, &err), OP_DONE);
	CU_ASSERT_EQUAL(st->res[0].err, OP_OK);
	CU_ASSERT_EQUAL(st->res[0].base_offset, 3);
	CU_ASSERT_EQUAL(op_part_end(part(0)), 5);
	CU_ASSERT_EQUAL(op_part_end(part(1)), 2);
	CU_ASSERT_EQUAL(free0 - ring_free(f.w.shm, part(0)), l1 + l2);
	CU_ASSERT_EQUAL(atomic_load(&part(0)->sync_wanted), 0);
	free(b1);
	free(b2);
	fixture_op_done(&f);
}

static void
test_produce_acks_all(void)
{
	struct op_produce_part pp;
	struct op_produce_st *st;
	enum op_err err;
	uint8_t *b;
	size_t len;

	fixture_op_start(&f, 1);
	b = batch(3, 1000, 10, -1, -1, -1, &len);
	pp = pp_of("t", 0, b, len);
	CU_ASSERT_EQUAL(produce1(-1, &pp, 1, &st, &err), OP_WAIT);
	CU_ASSERT_EQUAL(err, OP_OK);
	CU_ASSERT_EQUAL(st->deadline, f.w.now + 1000);
	CU_ASSERT_EQUAL(atomic_load(&part(0)->sync_wanted), 1);
	CU_ASSERT_EQUAL(f.w.wake_writer, 2);	/* now, not lazily */
	CU_ASSERT_EQUAL(op_produce_poll(&f.x, st), OP_WAIT);
	atomic_store(&part(0)->durable_offset, 2);
	CU_ASSERT_EQUAL(op_produce_poll(&f.x, st), OP_WAIT);
	atomic_store(&part(0)->durable_offset, 3);
	CU_ASSERT_EQUAL(op_produce_poll(&f.x, st), OP_DONE);
	CU_ASSERT_EQUAL(st->res[0].err, OP_OK);
	CU_ASSERT_EQUAL(st->res[0].base_offset, 0);
	/* Never durable: timed out at the deadline. */
	CU_ASSERT_EQUAL(produce1(-1, &pp, 1, &st, &err), OP_WAIT);
	CU_ASSERT_EQUAL(st->res[0].base_offset, 3);
	f.w.now = st->deadline - 1;
	CU_ASSERT_EQUAL(op_produce_poll(&f.x, st), OP_WAIT);
	f.w.now = st->deadline;
	CU_ASSERT_EQUAL(op_produce_poll(&f.x, st), OP_DONE);
	CU_ASSERT_EQUAL(st->res[0].err, OP_TIMEOUT);
	/* Its topic deleted while it waited. */
	CU_ASSERT_EQUAL(produce1(-1, &pp, 1, &st, &err), OP_WAIT);
	atomic_fetch_add(&part(0)->incarnation, 1);
	CU_ASSERT_EQUAL(op_produce_poll(&f.x, st), OP_DONE);
	CU_ASSERT_EQUAL(st->res[0].err, OP_NO_TOPIC);
	free(b);
	fixture_op_done(&f);
}

static void
test_produce_refused(void)
{
	struct op_produce_part pp[6];
	struct op_produce_st *st;
	enum op_err err;
	uint8_t bad[80], *b;
	size_t len;

	fixture_op_start(&f, 1);
	f.conf.auto_create_topics = 0;
	b = batch(2, 1000, 10, -1, -1, -1, &len);
	memset(bad, 0x5a, sizeof(bad));
	pp[0] = pp_of("t", 0, bad, sizeof(bad));
	pp[1] = pp_of("nope", 0, b, len);
	pp[2] = pp_of("t", 1, b, len);
	pp[3] = pp_of("__consumer_offsets", 0, b, len);
	pp[4] = pp_of("t", 0, b, 0);
	pp[5] = pp_of("t", 0, b, len);
	CU_ASSERT_EQUAL(produce1(1, pp, 6, &st, &err), OP_DONE);
	CU_ASSERT_EQUAL(err, OP_OK);
	CU_ASSERT_EQUAL(st->res[0].err, OP_BAD_BATCH);
	CU_ASSERT_EQUAL(st->res[1].err, OP_NO_TOPIC);
	CU_ASSERT_EQUAL(st->res[2].err, OP_NO_TOPIC);
	CU_ASSERT_EQUAL(st->res[3].err, OP_RESERVED_TOPIC);
	CU_ASSERT_EQUAL(st->res[4].err, OP_BAD_BATCH);
	CU_ASSERT_EQUAL(st->res[5].err, OP_OK);
	CU_ASSERT_EQUAL(st->res[0].base_offset, -1);
	CU_ASSERT_EQUAL(st->res[5].base_offset, 0);
	/* Only the good one reached the ring. */
	CU_ASSERT_EQUAL(op_part_end(part(0)), 2);
	/* Over max_message_bytes. */
	f.conf.max_message_bytes = (uint32_t)len - 1;
	CU_ASSERT_EQUAL(produce1(1, &pp[5], 1, &st, &err), OP_DONE);
	CU_ASSERT_EQUAL(st->res[0].err, OP_TOO_LARGE);
	/* A storage error refuses a part the log does not have. */
	f.conf.max_message_bytes = 1 << 20;
	atomic_store(&part(0)->storage_error, 1);
	CU_ASSERT_EQUAL(produce1(1, &pp[5], 1, &st, &err), OP_DONE);
	CU_ASSERT_EQUAL(st->res[0].err, OP_STORAGE);
	atomic_store(&part(0)->storage_error, 0);
	/* Whole-request refusals: no state. */
	CU_ASSERT_EQUAL(produce1(2, &pp[5], 1, &st, &err), OP_DONE);
	CU_ASSERT_EQUAL(err, OP_BAD_REQUEST);
	CU_ASSERT_PTR_NULL(st);
	f.alloc_limit = 8;
	CU_ASSERT_EQUAL(produce1(1, &pp[5], 1, &st, &err), OP_DONE);
	CU_ASSERT_EQUAL(err, OP_NO_MEMORY);
	CU_ASSERT_PTR_NULL(st);
	CU_ASSERT_EQUAL(op_part_end(part(0)), 2);
	free(b);
	fixture_op_done(&f);
}

static void
test_produce_denied(void)
{
	char path[PATH_MAX + 8], err[256], warn[256];
	struct op_produce_part pp[2];
	struct op_produce_st *st;
	enum op_err e;
	uint8_t *b;
	size_t len;
	FILE *fp;

	fixture_op_start(&f, 1);
	snprintf(path, sizeof(path), "%s/auth", f.dir);
	fp = fopen(path, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
	fputs("alice:pw:produce=t\n", fp);
	fclose(fp);
	chmod(path, 0600);
	CU_ASSERT_EQUAL_FATAL(auth_load(path, err, sizeof(err), warn,
	    sizeof(warn)), 0);
	b = batch(1, 1000, 10, -1, -1, -1, &len);
	pp[0] = pp_of("t", 0, b, len);
	pp[1] = pp_of("u", 0, b, len);
	/* Not logged in: nothing. */
	CU_ASSERT_EQUAL(produce1(1, pp, 2, &st, &e), OP_DONE);
	CU_ASSERT_EQUAL(st->res[0].err, OP_DENIED_TOPIC);
	CU_ASSERT_EQUAL(st->res[1].err, OP_DENIED_TOPIC);
	f.auth.user = auth_find_in(auth_table_current(), "alice", 5);
	CU_ASSERT_PTR_NOT_NULL_FATAL(f.auth.user);
	CU_ASSERT_EQUAL(produce1(1, pp, 2, &st, &e), OP_DONE);
	CU_ASSERT_EQUAL(st->res[0].err, OP_OK);
	CU_ASSERT_EQUAL(st->res[0].base_offset, 0);
	CU_ASSERT_EQUAL(st->res[1].err, OP_DENIED_TOPIC);
	CU_ASSERT_EQUAL(shm_topic_find(f.w.shm, "u", 1), -1);
	auth_unload();
	free(b);
	fixture_op_done(&f);
}

static void
test_produce_blocked(void)
{
	struct op_produce_part pp;
	struct op_produce_st *st;
	enum op_err err;
	enum op_status s = OP_DONE;
	uint8_t *b;
	size_t len;
	int i;

	fixture_op_start(&f, 1);
	b = batch(1, 1000, 12000, -1, -1, -1, &len);
	pp = pp_of("t", 0, b, len);
	/* The ring holds 64 KiB: five fit, the sixth waits for room. */
	for (i = 0; i < 8 && (s = produce1(1, &pp, 1, &st, &err)) == OP_DONE;
	    i++)
		CU_ASSERT_EQUAL(st->res[0].base_offset, i);
	CU_ASSERT_EQUAL(s, OP_BLOCKED);
	CU_ASSERT_EQUAL(i, 5);
	CU_ASSERT_EQUAL(op_part_end(part(0)), 5);
	/* Called again: still full until the deadline, then timed out. */
	CU_ASSERT_EQUAL(op_produce(&f.x, &(struct op_produce){ 1, 1000, 1, &pp },
	    &st, &err), OP_BLOCKED);
	f.w.now = st->deadline;
	CU_ASSERT_EQUAL(op_produce(&f.x, &(struct op_produce){ 1, 1000, 1, &pp },
	    &st, &err), OP_DONE);
	CU_ASSERT_EQUAL(st->res[0].err, OP_TIMEOUT);
	CU_ASSERT_EQUAL(st->res[0].base_offset, -1);
	/* A worker that stops answers at once. */
	f.w.stopping = 1;
	CU_ASSERT_EQUAL(produce1(1, &pp, 1, &st, &err), OP_DONE);
	CU_ASSERT_EQUAL(st->res[0].err, OP_SHUTTING_DOWN);
	CU_ASSERT_EQUAL(op_part_end(part(0)), 5);
	free(b);
	fixture_op_done(&f);
}

static void
test_producer_ids(void)
{
	struct op_produce_part pp;
	struct op_produce_st *st;
	enum op_err err;
	int64_t id, id2;
	int16_t ep;
	uint8_t *b;
	size_t len;

	fixture_op_start(&f, 1);
	CU_ASSERT_EQUAL(op_init_producer(&f.x, -1, -1, &id, &ep), OP_OK);
	CU_ASSERT(id >= 0);
	CU_ASSERT_EQUAL(ep, 0);
	CU_ASSERT_EQUAL(op_init_producer(&f.x, id, 0, &id2, &ep), OP_OK);
	CU_ASSERT_EQUAL(id2, id);
	CU_ASSERT_EQUAL(ep, 1);
	CU_ASSERT_EQUAL(op_init_producer(&f.x, id, INT16_MAX, &id2, &ep), OP_OK);
	CU_ASSERT_NOT_EQUAL(id2, id);
	CU_ASSERT_EQUAL(ep, 0);
	CU_ASSERT_EQUAL(op_init_producer(&f.x, producer_id_limit(f.w.shm), 0,
	    &id2, &ep), OP_FENCED_PRODUCER);
	CU_ASSERT_EQUAL(id2, -1);
	CU_ASSERT_EQUAL(op_init_producer(&f.x, id, -1, &id2, &ep),
	    OP_FENCED_PRODUCER);
	/* Deduplicated: a resend is answered with its offsets, a gap refused. */
	b = batch(2, 1000, 10, id, 0, 0, &len);
	pp = pp_of("t", 0, b, len);
	CU_ASSERT_EQUAL(produce1(1, &pp, 1, &st, &err), OP_DONE);
	CU_ASSERT_EQUAL(st->res[0].err, OP_OK);
	CU_ASSERT_EQUAL(st->res[0].base_offset, 0);
	CU_ASSERT_EQUAL(produce1(1, &pp, 1, &st, &err), OP_DONE);
	CU_ASSERT_EQUAL(st->res[0].err, OP_OK);
	CU_ASSERT_EQUAL(st->res[0].base_offset, 0);
	CU_ASSERT_EQUAL(op_part_end(part(0)), 2);
	free(b);
	b = batch(1, 1000, 10, id, 0, 5, &len);
	pp = pp_of("t", 0, b, len);
	CU_ASSERT_EQUAL(produce1(1, &pp, 1, &st, &err), OP_DONE);
	CU_ASSERT_EQUAL(st->res[0].err, OP_OUT_OF_ORDER_SEQUENCE);
	CU_ASSERT_EQUAL(op_part_end(part(0)), 2);
	free(b);
	fixture_op_done(&f);
}

/* Topic "t" partition 0's log: batch A (3 records at ts 1000), B (2 at 2000). */
static uint8_t *ba, *bb;
static size_t la, lb;

static void
log_write(void)
{
	struct plog_config cfg = { 1 << 20, 4096, -1, -1, 0, 0 };
	struct plog_recovery rec;
	struct plog *l;
	char dir[PATH_MAX];
	int64_t base;

	CU_ASSERT_EQUAL_FATAL(topic_partition_dir(dir, sizeof(dir), f.dir, "t",
	    0), 0);
	*strrchr(dir, '/') = '\0';
	mkdir(dir, 0700);
	CU_ASSERT_EQUAL_FATAL(topic_partition_dir(dir, sizeof(dir), f.dir, "t",
	    0), 0);
	mkdir(dir, 0700);
	ba = batch(3, 1000, 20, -1, -1, -1, &la);
	bb = batch(2, 2000, 20, -1, -1, -1, &lb);
	CU_ASSERT_EQUAL_FATAL(plog_open(&l, dir, &cfg, &rec), 0);
	CU_ASSERT_EQUAL_FATAL(plog_append(l, ba, la, &base), 0);
	CU_ASSERT_EQUAL_FATAL(plog_append(l, bb, lb, &base), 0);
	CU_ASSERT_EQUAL(base, 3);
	CU_ASSERT_EQUAL(plog_sync(l), 0);
	plog_close(l);
	/* What the writer publishes once the bytes are in the files. */
	atomic_store(&part(0)->visible_offset, 5);
	atomic_store(&part(0)->durable_offset, 5);
	__atomic_store_n(&part(0)->next_offset, 5, __ATOMIC_RELEASE);
}

static void
log_done(void)
{
	free(ba);
	free(bb);
	ba = bb = NULL;
}

/* The bytes [pos, pos + len) of fd equal want? */
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
fetch1(const struct op_fetch_part *fp, int32_t n, int32_t min_bytes,
    int32_t max_wait, struct op_fetch *a, struct op_fetch_st **st)
{
	enum op_err err;
	enum op_status s;

	a->max_wait_ms = max_wait;
	a->min_bytes = min_bytes;
	a->max_bytes = 1 << 20;
	a->count = n;
	a->parts = fp;
	s = op_fetch(&f.x, a, st, &err);
	CU_ASSERT_EQUAL(err, OP_OK);
	CU_ASSERT_PTR_NOT_NULL_FATAL(*st);
	return s;
}

static void
test_fetch(void)
{
	struct op_fetch_part fp[4] = {
		{ "t", 1, 0, 0, 1 << 20 },	/* both batches */
		{ "t", 1, 0, 3, 1 << 20 },	/* B */
		{ "t", 1, 0, 6, 1 << 20 },	/* past the end */
		{ "u", 1, 0, 0, 1 << 20 },	/* no such topic */
	};
	struct op_fetch_result r;
	struct op_fetch_st *st;
	struct op_fetch a;
	uint8_t *ab;

	fixture_op_start(&f, 2);
	log_write();
	ab = malloc(la + lb);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ab);
	memcpy(ab, ba, la);
	memcpy(ab + la, bb, lb);
	CU_ASSERT_EQUAL(fetch1(fp, 4, 1, 0, &a, &st), OP_DONE);
	CU_ASSERT_EQUAL(st->count, 4);
	CU_ASSERT_EQUAL(st->total, (int64_t)(la + lb + lb));
	CU_ASSERT_EQUAL(op_fetch_take(st, 0, &r), 0);
	CU_ASSERT_EQUAL(r.err, OP_OK);
	CU_ASSERT_EQUAL(r.log_start, 0);
	CU_ASSERT_EQUAL(r.hwm, 5);
	CU_ASSERT_EQUAL(r.nrec, 5);
	CU_ASSERT_EQUAL(r.pos, 0);
	CU_ASSERT_EQUAL(r.len, la + lb);
	CU_ASSERT_FATAL(r.fd >= 0);
	CU_ASSERT_TRUE(range_is(r.fd, r.pos, r.len, ab));
	CU_ASSERT_EQUAL(close(r.fd), 0);	/* the taker's */
	CU_ASSERT_EQUAL(st->res[0].fd, -1);
	CU_ASSERT_EQUAL(op_fetch_take(st, 1, &r), 0);
	CU_ASSERT_EQUAL(r.err, OP_OK);
	CU_ASSERT_EQUAL(r.nrec, 2);
	CU_ASSERT_EQUAL(r.pos, (off_t)la);
	CU_ASSERT_EQUAL(r.len, lb);
	CU_ASSERT_TRUE(range_is(r.fd, r.pos, r.len, bb));
	close(r.fd);
	CU_ASSERT_EQUAL(st->res[2].err, OP_OUT_OF_RANGE);
	CU_ASSERT_EQUAL(st->res[2].len, 0);
	CU_ASSERT_EQUAL(st->res[3].err, OP_NO_TOPIC);
	CU_ASSERT_EQUAL(st->res[3].hwm, -1);
	CU_ASSERT_EQUAL(op_fetch_take(st, 4, &r), -1);
	op_fetch_release(st);
	/* A part's max_bytes of 1 still gets its first whole batch. */
	fp[0].max_bytes = 1;
	CU_ASSERT_EQUAL(fetch1(fp, 1, 1, 0, &a, &st), OP_DONE);
	CU_ASSERT_EQUAL(st->res[0].len, la);
	CU_ASSERT_EQUAL(st->res[0].nrec, 3);
	/* The release closes what was not taken. */
	r.fd = st->res[0].fd;
	op_fetch_release(st);
	CU_ASSERT_EQUAL(st->res[0].fd, -1);
	CU_ASSERT_EQUAL(fcntl(r.fd, F_GETFD), -1);
	/* Below the log start. */
	fp[0].offset = -1;
	CU_ASSERT_EQUAL(fetch1(fp, 1, 1, 0, &a, &st), OP_DONE);
	CU_ASSERT_EQUAL(st->res[0].err, OP_OUT_OF_RANGE);
	free(ab);
	log_done();
	fixture_op_done(&f);
}

static void
test_fetch_wait(void)
{
	struct op_fetch_part fp = { "t", 1, 0, 3, 1 << 20 };
	struct op_fetch_st *st;
	struct op_fetch a;

	fixture_op_start(&f, 1);
	log_write();
	/* B is acknowledged, not yet in the files: wait for it. */
	atomic_store(&part(0)->visible_offset, 3);
	CU_ASSERT_EQUAL(fetch1(&fp, 1, 1, 500, &a, &st), OP_WAIT);
	CU_ASSERT_EQUAL(st->deadline, f.w.now + 500);
	CU_ASSERT_EQUAL(st->res[0].fd, -1);	/* none held while parked */
	CU_ASSERT_EQUAL(op_fetch_poll(&f.x, &a, st), OP_WAIT);
	atomic_store(&part(0)->visible_offset, 5);
	CU_ASSERT_EQUAL(op_fetch_poll(&f.x, &a, st), OP_DONE);
	CU_ASSERT_EQUAL(st->res[0].err, OP_OK);
	CU_ASSERT_EQUAL(st->res[0].len, lb);
	CU_ASSERT_EQUAL(st->res[0].nrec, 2);
	op_fetch_release(st);
	/* At the end, min_bytes 1: nothing until the deadline. */
	fp.offset = 5;
	CU_ASSERT_EQUAL(fetch1(&fp, 1, 1, 500, &a, &st), OP_WAIT);
	f.w.now += 499;
	CU_ASSERT_EQUAL(op_fetch_poll(&f.x, &a, st), OP_WAIT);
	f.w.now += 1;
	CU_ASSERT_EQUAL(op_fetch_poll(&f.x, &a, st), OP_DONE);
	CU_ASSERT_EQUAL(st->res[0].err, OP_OK);
	CU_ASSERT_EQUAL(st->res[0].len, 0);
	CU_ASSERT_EQUAL(st->res[0].fd, -1);
	CU_ASSERT_EQUAL(st->res[0].hwm, 5);
	/* min_bytes over what there is: waits though data is there. */
	fp.offset = 0;
	CU_ASSERT_EQUAL(fetch1(&fp, 1, (int32_t)(la + lb + 1), 500, &a, &st),
	    OP_WAIT);
	/* Deleted while waiting. */
	atomic_fetch_add(&part(0)->incarnation, 1);
	CU_ASSERT_EQUAL(op_fetch_poll(&f.x, &a, st), OP_DONE);
	CU_ASSERT_EQUAL(st->res[0].err, OP_NO_TOPIC);
	CU_ASSERT_EQUAL(st->res[0].len, 0);
	log_done();
	fixture_op_done(&f);
}

static void
test_list_offsets(void)
{
	int64_t off, ts;

	fixture_op_start(&f, 2);
	log_write();
	CU_ASSERT_EQUAL(op_list_offset(&f.x, "t", 1, 0, OP_OFFSET_EARLIEST,
	    &off, &ts), OP_OK);
	CU_ASSERT_EQUAL(off, 0);
	CU_ASSERT_EQUAL(ts, -1);
	/* Latest: everything acknowledged, the ring's tail included. */
	__atomic_store_n(&part(0)->next_offset, 7, __ATOMIC_RELEASE);
	CU_ASSERT_EQUAL(op_list_offset(&f.x, "t", 1, 0, OP_OFFSET_LATEST,
	    &off, &ts), OP_OK);
	CU_ASSERT_EQUAL(off, 7);
	CU_ASSERT_EQUAL(ts, -1);
	CU_ASSERT_EQUAL(op_list_offset(&f.x, "t", 1, 0, 0, &off, &ts), OP_OK);
	CU_ASSERT_EQUAL(off, 0);
	CU_ASSERT_EQUAL(ts, 1000);
	CU_ASSERT_EQUAL(op_list_offset(&f.x, "t", 1, 0, 1500, &off, &ts), OP_OK);
	CU_ASSERT_EQUAL(off, 3);
	CU_ASSERT_EQUAL(ts, 2000);
	CU_ASSERT_EQUAL(op_list_offset(&f.x, "t", 1, 0, 2001, &off, &ts), OP_OK);
	CU_ASSERT_EQUAL(off, -1);
	CU_ASSERT_EQUAL(ts, -1);
	/* MAX_TIMESTAMP: the first record reaching B's maxTimestamp. */
	CU_ASSERT_EQUAL(op_list_offset_max_ts(&f.x, "t", 1, 0, &off, &ts),
	    OP_OK);
	CU_ASSERT_EQUAL(off, 3);
	CU_ASSERT_EQUAL(ts, 2000);
	CU_ASSERT_EQUAL(op_list_offset_max_ts(&f.x, "t", 1, 1, &off, &ts),
	    OP_OK);
	CU_ASSERT_EQUAL(off, -1);
	CU_ASSERT_EQUAL(ts, -1);
	CU_ASSERT_EQUAL(op_list_offset_max_ts(&f.x, "u", 1, 0, &off, &ts),
	    OP_NO_TOPIC);
	/* Only what is visible is looked at. */
	atomic_store(&part(0)->visible_offset, 3);
	CU_ASSERT_EQUAL(op_list_offset(&f.x, "t", 1, 0, 1500, &off, &ts), OP_OK);
	CU_ASSERT_EQUAL(off, -1);
	CU_ASSERT_EQUAL(op_list_offset_max_ts(&f.x, "t", 1, 0, &off, &ts),
	    OP_OK);
	CU_ASSERT_EQUAL(off, 0);
	CU_ASSERT_EQUAL(ts, 1000);
	/* The start moved past A: never an offset below it. */
	atomic_store(&part(0)->visible_offset, 5);
	atomic_store(&part(0)->log_start, 4);
	CU_ASSERT_EQUAL(op_list_offset(&f.x, "t", 1, 0, 0, &off, &ts), OP_OK);
	CU_ASSERT_EQUAL(off, 4);
	CU_ASSERT_EQUAL(op_list_offset(&f.x, "t", 1, 0, OP_OFFSET_EARLIEST,
	    &off, &ts), OP_OK);
	CU_ASSERT_EQUAL(off, 4);
	/* Nothing stored in partition 1: no error, nothing found. */
	CU_ASSERT_EQUAL(op_list_offset(&f.x, "t", 1, 1, 0, &off, &ts), OP_OK);
	CU_ASSERT_EQUAL(off, -1);
	CU_ASSERT_EQUAL(op_list_offset(&f.x, "t", 1, 0, -3, &off, &ts),
	    OP_BAD_REQUEST);
	CU_ASSERT_EQUAL(op_list_offset(&f.x, "t", 1, 2, OP_OFFSET_LATEST, &off,
	    &ts), OP_NO_TOPIC);
	CU_ASSERT_EQUAL(op_list_offset(&f.x, "u", 1, 0, OP_OFFSET_LATEST, &off,
	    &ts), OP_NO_TOPIC);
	CU_ASSERT_EQUAL(off, -1);
	/* The group reset's lookup, on a partition. */
	CU_ASSERT_EQUAL(op_offset_for_time(&f.w, part(0), 1500, &off, &ts),
	    OP_OK);
	CU_ASSERT_EQUAL(off, 4);
	CU_ASSERT_EQUAL(ts, 2000);
	log_done();
	fixture_op_done(&f);
}

static void
test_reader_cache(void)
{
	struct plog_reader *r1, *r2;
	char dir[PATH_MAX];
	size_t slot;

	fixture_op_start(&f, 2);
	log_write();
	slot = (size_t)(part(0) - f.w.shm->parts);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r1 = op_reader(&f.w, part(0)));
	r2 = op_reader(&f.w, part(0));
	CU_ASSERT_PTR_EQUAL(r1, r2);
	/* Nothing stored: no reader, ENOENT. */
	errno = 0;
	CU_ASSERT_PTR_NULL(op_reader(&f.w, part(1)));
	CU_ASSERT_EQUAL(errno, ENOENT);
	/* Kept while the incarnation holds, even with its files gone... */
	CU_ASSERT_EQUAL_FATAL(topic_partition_dir(dir, sizeof(dir), f.dir, "t",
	    0), 0);
	test_rmtree(dir);
	CU_ASSERT_PTR_EQUAL(op_reader(&f.w, part(0)), r1);
	/* ...and opened again on the slot's new topic, never reused. */
	atomic_fetch_add(&part(0)->incarnation, 1);
	errno = 0;
	CU_ASSERT_PTR_NULL(op_reader(&f.w, part(0)));
	CU_ASSERT_EQUAL(errno, ENOENT);
	CU_ASSERT_PTR_NULL(f.w.readers[slot]);
	CU_ASSERT_EQUAL(f.w.reader_inc[slot], atomic_load(&part(0)->incarnation));
	log_done();
	fixture_op_done(&f);
}

TEST_SUITE("op_data", NULL, NULL,
    { "produce acks=1: offsets and ring bytes", test_produce_acks1 },
    { "produce acks=all waits for durable_offset", test_produce_acks_all },
    { "produce refusals", test_produce_refused },
    { "produce to a denied topic", test_produce_denied },
    { "produce blocks on a full ring", test_produce_blocked },
    { "producer ids and the sequence check", test_producer_ids },
    { "fetch: exact file ranges", test_fetch },
    { "fetch waits for data and its deadline", test_fetch_wait },
    { "list offsets: earliest, latest, by time", test_list_offsets },
    { "reader cache: reuse and reopen", test_reader_cache });
