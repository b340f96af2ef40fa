/*
 * The transaction coordinator's operations called directly (no fork),
 * over fixture_op's worker, with the writer's side (master/writer_txn.h)
 * run by the tests between calls and durability played by publishing
 * each partition's durable_offset: Kafka's state machine (Empty,
 * Ongoing, Prepare*, Complete*), the answers waiting for the log,
 * fencing, the markers appended to every partition, pending offsets
 * applied only at COMMIT, timeouts, the table's limits and bad input
 * (which changes nothing); and __transaction_state's records
 * (proto/txnlog.h) encoded and decoded.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "common/clock.h"
#include "master/writer_txn.h"
#include "proto/batch.h"
#include "proto/ctrl.h"
#include "proto/txnlog.h"
#include "shm/group.h"
#include "shm/ring.h"
#include "shm/topics.h"
#include "shm/txn.h"
#include "tests/harness.h"
#include "tests/unit/fixture_op.h"
#include "worker/op/txn.h"

static struct fixture_op f;
/* The writer's clock only moves forward, across the tests too. */
static int64_t mono = 1000000;
/* COMMIT and ABORT markers the writer drained, per partition slot. */
static int commits[32], aborts[32];

static void
start(void)
{
	fixture_op_start(&f, 4);
	f.w.now = mono;
	memset(commits, 0, sizeof(commits));
	memset(aborts, 0, sizeof(aborts));
	CU_ASSERT_FATAL(shm_topic_create(f.w.shm, TXNLOG_TOPIC,
	    TXNLOG_TOPIC_LEN, 1, NULL) >= 0);
	CU_ASSERT_FATAL(shm_topic_create(f.w.shm, "__consumer_offsets", 18, 1,
	    NULL) >= 0);
	f.conf.transaction_max_timeout_ms = 60000;
}

/* Count the markers of the batches at data[0..n) drained from slot i. */
static void
count_markers(uint32_t i, const uint8_t *data, size_t n)
{
	struct batch_header h;
	struct ctrl_marker cm;
	size_t pos;

	for (pos = 0; n - pos >= BATCH_HEADER_SIZE && batch_parse_header(data +
	    pos, n - pos, &h) == BATCH_OK; pos += batch_total_size(&h))
		if (ctrl_marker_parse(data + pos, batch_total_size(&h),
		    &cm) == 1) {
			if (cm.type == CTRL_COMMIT)
				commits[i]++;
			else
				aborts[i]++;
		}
}

/*
 * The writer: a pass, then every partition's appends drained (the ring
 * emptied, markers counted) and durable; a few times, as its cycles run.
 */
static void
writer(void)
{
	struct shm *s = f.w.shm;
	uint8_t *data;
	size_t n;
	uint32_t i, k;

	for (k = 0; k < 4; k++) {
		f.w.now = mono += 1000;
		(void)writer_txn_cycle(s, &f.conf, f.w.now);
		for (i = 0; i < s->hdr->limits.max_partitions; i++) {
			struct shm_partition *p = &s->parts[i];
			int64_t end = __atomic_load_n(&p->next_offset,
			    __ATOMIC_ACQUIRE);

			while ((n = ring_peek(s, p, &data)) > 0) {
				count_markers(i, data, n);
				ring_release(s, p, n);
			}
			atomic_store(&p->visible_offset, end);
			atomic_store(&p->durable_offset, end);
		}
	}
}

/* Run op to its end, the writer playing between polls. */
static enum op_err
finish(enum op_status st, struct op_txn_wait *w)
{
	int k;

	for (k = 0; st == OP_WAIT && k < 10; k++) {
		writer();
		st = op_txn_poll(&f.x, w);
	}
	CU_ASSERT_EQUAL(st, OP_DONE);
	return w->err;
}

static enum op_err
init(const char *id, int32_t timeout, int64_t *pid, int16_t *epoch)
{
	struct op_txn_init a;
	enum op_err e;

	memset(&a, 0, sizeof(a));
	a.id = id;
	a.id_len = strlen(id);
	a.timeout_ms = timeout;
	a.exp_pid = -1;
	a.exp_epoch = -1;
	e = finish(op_txn_init(&f.x, &a), &a.wait);
	*pid = a.pid;
	*epoch = a.epoch;
	return e;
}

static enum op_err
add(const char *id, int64_t pid, int16_t epoch, const char *topic,
    int32_t from, int32_t n, enum op_err *perr)
{
	struct op_txn_who who = { id, strlen(id), pid, epoch };
	struct op_txn_part parts[8];
	struct op_txn_wait w;
	int32_t i;
	enum op_err e;

	memset(&w, 0, sizeof(w));
	for (i = 0; i < n; i++) {
		parts[i].topic = topic;
		parts[i].topic_len = strlen(topic);
		parts[i].partition = from + i;
		parts[i].err = OP_OK;
	}
	e = finish(op_txn_add(&f.x, &who, parts, n, 0, &w), &w);
	for (i = 0; perr != NULL && i < n; i++)
		perr[i] = parts[i].err;
	return e;
}

static enum op_status
end_start(const char *id, int64_t pid, int16_t epoch, int commit,
    struct op_txn_wait *w)
{
	struct op_txn_who who = { id, strlen(id), pid, epoch };

	memset(w, 0, sizeof(*w));
	return op_txn_end(&f.x, &who, commit, w);
}

static uint32_t
state_of(const char *id)
{
	int i = txn_find(f.w.shm, id, strlen(id));

	CU_ASSERT_FATAL(i >= 0);
	return atomic_load(&txn_at(f.w.shm, (uint32_t)i)->state);
}

static uint32_t
slot_of(const char *topic, int32_t i)
{
	struct shm_partition *p = shm_partition(f.w.shm,
	    shm_topic_find(f.w.shm, topic, strlen(topic)), i);

	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	return (uint32_t)(p - f.w.shm->parts);
}

static void
test_commit_and_abort(void)
{
	struct op_txn_wait w;
	int64_t pid, pid2;
	int16_t ep, ep2;

	start();
	CU_ASSERT_EQUAL(init("a", 10000, &pid, &ep), OP_OK);
	CU_ASSERT(pid >= 0);
	CU_ASSERT_EQUAL(ep, 0);
	CU_ASSERT_EQUAL(state_of("a"), TXN_EMPTY);
	/* Again: the same id, the epoch bumped. */
	CU_ASSERT_EQUAL(init("a", 10000, &pid2, &ep2), OP_OK);
	CU_ASSERT_EQUAL(pid2, pid);
	CU_ASSERT_EQUAL(ep2, 1);
	ep = ep2;
	CU_ASSERT_EQUAL(add("a", pid, ep, "t", 0, 2, NULL), OP_OK);
	CU_ASSERT_EQUAL(state_of("a"), TXN_ONGOING);
	/* The answer waits for the Prepare* record to be durable. */
	CU_ASSERT_EQUAL(end_start("a", pid, ep, 1, &w), OP_WAIT);
	CU_ASSERT_EQUAL(state_of("a"), TXN_PREPARE_COMMIT);
	CU_ASSERT_EQUAL(op_txn_poll(&f.x, &w), OP_WAIT);
	{
		struct op_txn_wait w2;

		/* While it completes: a retry is CONCURRENT, an abort not
		 * allowed, a new instance CONCURRENT. */
		CU_ASSERT_EQUAL(end_start("a", pid, ep, 1, &w2), OP_DONE);
		CU_ASSERT_EQUAL(w2.err, OP_TXN_CONCURRENT);
		CU_ASSERT_EQUAL(end_start("a", pid, ep, 0, &w2), OP_DONE);
		CU_ASSERT_EQUAL(w2.err, OP_TXN_BAD_STATE);
		CU_ASSERT_EQUAL(init("a", 10000, &pid2, &ep2),
		    OP_TXN_CONCURRENT);
		CU_ASSERT_EQUAL(pid2, -1);
	}
	writer();
	CU_ASSERT_EQUAL(op_txn_poll(&f.x, &w), OP_DONE);
	CU_ASSERT_EQUAL(w.err, OP_OK);
	CU_ASSERT_EQUAL(state_of("a"), TXN_COMPLETE_COMMIT);
	CU_ASSERT_EQUAL(commits[slot_of("t", 0)], 1);
	CU_ASSERT_EQUAL(commits[slot_of("t", 1)], 1);
	CU_ASSERT_EQUAL(aborts[slot_of("t", 0)], 0);
	CU_ASSERT_EQUAL(commits[slot_of("t", 2)], 0);
	/* Abort: partitions 2 and 3 get ABORT markers, 0 none. */
	CU_ASSERT_EQUAL(add("a", pid, ep, "t", 2, 2, NULL), OP_OK);
	CU_ASSERT_EQUAL(finish(end_start("a", pid, ep, 0, &w), &w), OP_OK);
	writer();
	CU_ASSERT_EQUAL(state_of("a"), TXN_COMPLETE_ABORT);
	CU_ASSERT_EQUAL(aborts[slot_of("t", 2)], 1);
	CU_ASSERT_EQUAL(aborts[slot_of("t", 3)], 1);
	CU_ASSERT_EQUAL(aborts[slot_of("t", 0)], 0);
	CU_ASSERT_EQUAL(commits[slot_of("t", 0)], 1);
	CU_ASSERT_EQUAL(commits[slot_of("t", 2)], 0);
	/* Retried abort: OK; commit of an aborted one: INVALID_TXN_STATE. */
	CU_ASSERT_EQUAL(end_start("a", pid, ep, 0, &w), OP_DONE);
	CU_ASSERT_EQUAL(w.err, OP_OK);
	CU_ASSERT_EQUAL(end_start("a", pid, ep, 1, &w), OP_DONE);
	CU_ASSERT_EQUAL(w.err, OP_TXN_BAD_STATE);
	/* Nothing open: EndTxn is INVALID_TXN_STATE. */
	CU_ASSERT_EQUAL(init("b", 10000, &pid2, &ep2), OP_OK);
	CU_ASSERT_EQUAL(end_start("b", pid2, ep2, 1, &w), OP_DONE);
	CU_ASSERT_EQUAL(w.err, OP_TXN_BAD_STATE);
	fixture_op_done(&f);
}

static void
test_fencing(void)
{
	struct op_txn_wait w;
	int64_t pid, pid2;
	int16_t ep, ep2;

	start();
	CU_ASSERT_EQUAL(init("f", 10000, &pid, &ep), OP_OK);
	CU_ASSERT_EQUAL(add("f", pid, ep, "t", 1, 1, NULL), OP_OK);
	/* The wrong id, the wrong epoch (either way). */
	CU_ASSERT_EQUAL(add("f", pid + 1, ep, "t", 0, 1, NULL),
	    OP_TXN_BAD_MAPPING);
	CU_ASSERT_EQUAL(add("f", pid, ep + 1, "t", 0, 1, NULL), OP_TXN_FENCED);
	CU_ASSERT_EQUAL(add("nosuch", pid, ep, "t", 0, 1, NULL),
	    OP_TXN_BAD_MAPPING);
	/* A new instance: the open one aborted with the bumped epoch. */
	CU_ASSERT_EQUAL(init("f", 10000, &pid2, &ep2), OP_TXN_CONCURRENT);
	CU_ASSERT_EQUAL(state_of("f"), TXN_PREPARE_ABORT);
	writer();
	CU_ASSERT_EQUAL(aborts[slot_of("t", 1)], 1);
	CU_ASSERT_EQUAL(commits[slot_of("t", 1)], 0);
	CU_ASSERT_EQUAL(state_of("f"), TXN_COMPLETE_ABORT);
	CU_ASSERT_EQUAL(init("f", 10000, &pid2, &ep2), OP_OK);
	CU_ASSERT_EQUAL(pid2, pid);
	CU_ASSERT_EQUAL(ep2, ep + 2);
	/* The old instance: fenced everywhere. */
	CU_ASSERT_EQUAL(end_start("f", pid, ep, 1, &w), OP_DONE);
	CU_ASSERT_EQUAL(w.err, OP_TXN_FENCED);
	CU_ASSERT_EQUAL(add("f", pid2, ep2, "t", 1, 1, NULL), OP_OK);
	CU_ASSERT_EQUAL(op_txn_produce_check(&f.w, pid, ep, slot_of("t", 1)),
	    OP_TXN_EPOCH);
	CU_ASSERT_EQUAL(op_txn_produce_check(&f.w, pid, ep2, slot_of("t", 1)),
	    OP_OK);
	CU_ASSERT_EQUAL(op_txn_produce_check(&f.w, pid, ep2, slot_of("t", 0)),
	    OP_TXN_BAD_STATE);
	CU_ASSERT_EQUAL(op_txn_produce_check(&f.w, pid + 7, 0,
	    slot_of("t", 0)), OP_TXN_BAD_STATE);
	fixture_op_done(&f);
}

/* A batch of one record as pid/epoch, transactional or a marker. */
static size_t
batch(uint8_t *out, size_t cap, int64_t pid, int16_t epoch, int ctrl)
{
	struct batch_builder bb;
	const uint8_t *b;
	size_t n;

	if (ctrl) {
		struct ctrl_marker m = { pid, epoch, CTRL_COMMIT, 0, 1 };

		ctrl_marker_encode(out, &m);
		return CTRL_MARKER_SIZE;
	}
	batch_builder_init(&bb);
	batch_builder_set_producer(&bb, pid, epoch, 0);
	CU_ASSERT_EQUAL_FATAL(batch_builder_add(&bb, 1, NULL, -1, "v", 1,
	    NULL, 0), 0);
	CU_ASSERT_EQUAL_FATAL(batch_builder_close(&bb, &b, &n), 0);
	CU_ASSERT_FATAL(n <= cap);
	memcpy(out, b, n);
	batch_builder_free(&bb);
	return n;
}

static void
test_produce_batches(void)
{
	uint8_t b[256];
	size_t n;
	int64_t pid;
	int16_t ep;

	start();
	CU_ASSERT_EQUAL(init("p", 10000, &pid, &ep), OP_OK);
	CU_ASSERT_EQUAL(add("p", pid, ep, "t", 0, 1, NULL), OP_OK);
	/* Control batches: never from a client, even the producer's own. */
	n = batch(b, sizeof(b), pid, ep, 1);
	CU_ASSERT_EQUAL(op_txn_batches(&f.w, slot_of("t", 0), b, n),
	    OP_CONTROL_BATCH);
	/* A plain idempotent batch is not the coordinator's business. */
	n = batch(b, sizeof(b), pid, ep, 0);
	CU_ASSERT_EQUAL(op_txn_batches(&f.w, slot_of("t", 3), b, n), OP_OK);
	/*
	 * The append checks again under the table's lock: once EndTxn moved
	 * the transaction to PrepareCommit nothing more goes in (it would
	 * land after the marker).
	 */
	{
		struct shm_partition *p = &f.w.shm->parts[slot_of("t", 0)];
		struct op_txn_wait w;
		enum op_err e = OP_OK;
		int64_t base, next;

		b[BATCH_OFF_ATTRIBUTES + 1] |= BATCH_ATTR_TRANSACTIONAL;
		CU_ASSERT_EQUAL(op_txn_append(&f.w, p, atomic_load(
		    &p->incarnation), b, n, &base, &next, &e), 0);
		CU_ASSERT_EQUAL(e, OP_OK);
		CU_ASSERT_EQUAL(base, 0);
		CU_ASSERT_EQUAL(end_start("p", pid, ep, 1, &w), OP_WAIT);
		CU_ASSERT_EQUAL(op_txn_append(&f.w, p, atomic_load(
		    &p->incarnation), b, n, &base, &next, &e), -1);
		CU_ASSERT_EQUAL(e, OP_TXN_BAD_STATE);
		CU_ASSERT_EQUAL(__atomic_load_n(&p->next_offset,
		    __ATOMIC_ACQUIRE), 1);
	}
	fixture_op_done(&f);
}

static void
test_offsets(void)
{
	struct op_txn_who who;
	struct op_txn_off o[3];
	struct op_txn_wait w;
	struct shm_group *g;
	int64_t pid;
	int16_t ep;
	int gi;

	start();
	CU_ASSERT_EQUAL(init("o", 10000, &pid, &ep), OP_OK);
	who = (struct op_txn_who){ "o", 1, pid, ep };
	memset(o, 0, sizeof(o));
	o[0] = (struct op_txn_off){ "t", 1, 0, 5, OP_OK };
	o[1] = (struct op_txn_off){ "t", 1, 1, 6, OP_OK };
	o[2] = (struct op_txn_off){ "t", 1, 2, 7, OP_OK };
	/* Before AddOffsetsToTxn: INVALID_TXN_STATE, nothing pending. */
	memset(&w, 0, sizeof(w));
	CU_ASSERT_EQUAL(op_txn_offsets(&f.x, &who, "g", 1, NULL, o, 1, &w), OP_DONE);
	CU_ASSERT_EQUAL(w.err, OP_TXN_BAD_STATE);
	CU_ASSERT_EQUAL(o[0].err, OP_TXN_BAD_STATE);
	memset(&w, 0, sizeof(w));
	CU_ASSERT_EQUAL(finish(op_txn_add_group(&f.x, &who, "g", 1, &w), &w),
	    OP_OK);
	CU_ASSERT_EQUAL(state_of("o"), TXN_ONGOING);
	/* Three offsets, room for two (max_txn_offsets): the third refused. */
	memset(&w, 0, sizeof(w));
	o[0].err = OP_OK;
	CU_ASSERT_EQUAL(finish(op_txn_offsets(&f.x, &who, "g", 1, NULL, o, 3, &w),
	    &w), OP_OK);
	CU_ASSERT_EQUAL(o[0].err, OP_OK);
	CU_ASSERT_EQUAL(o[1].err, OP_OK);
	CU_ASSERT_EQUAL(o[2].err, OP_NO_ROOM);
	CU_ASSERT_EQUAL(op_txn_unstable(&f.w, "g", 1, slot_of("t", 0)), 1);
	CU_ASSERT_EQUAL(op_txn_unstable(&f.w, "g", 1, slot_of("t", 2)), 0);
	CU_ASSERT_EQUAL(op_txn_unstable(&f.w, "h", 1, slot_of("t", 0)), 0);
	/* Not committed before the COMMIT. */
	gi = group_find(f.w.shm, "g", 1);
	if (gi >= 0)
		CU_ASSERT_EQUAL(group_offset_get(f.w.shm, group_at(f.w.shm,
		    (uint32_t)gi), slot_of("t", 0)), -1);
	CU_ASSERT_EQUAL(finish(end_start("o", pid, ep, 1, &w), &w), OP_OK);
	writer();
	CU_ASSERT_EQUAL(state_of("o"), TXN_COMPLETE_COMMIT);
	CU_ASSERT_FATAL((gi = group_find(f.w.shm, "g", 1)) >= 0);
	g = group_at(f.w.shm, (uint32_t)gi);
	CU_ASSERT_EQUAL(group_offset_get(f.w.shm, g, slot_of("t", 0)), 5);
	CU_ASSERT_EQUAL(group_offset_get(f.w.shm, g, slot_of("t", 1)), 6);
	CU_ASSERT_EQUAL(group_offset_get(f.w.shm, g, slot_of("t", 2)), -1);
	CU_ASSERT_EQUAL(op_txn_unstable(&f.w, "g", 1, slot_of("t", 0)), 0);
	/* An aborted transaction's offsets never land. */
	memset(&w, 0, sizeof(w));
	CU_ASSERT_EQUAL(finish(op_txn_add_group(&f.x, &who, "g", 1, &w), &w),
	    OP_OK);
	o[0].offset = 50;
	memset(&w, 0, sizeof(w));
	CU_ASSERT_EQUAL(finish(op_txn_offsets(&f.x, &who, "g", 1, NULL, o, 1, &w),
	    &w), OP_OK);
	CU_ASSERT_EQUAL(finish(end_start("o", pid, ep, 0, &w), &w), OP_OK);
	writer();
	CU_ASSERT_EQUAL(state_of("o"), TXN_COMPLETE_ABORT);
	CU_ASSERT_EQUAL(group_offset_get(f.w.shm, g, slot_of("t", 0)), 5);
	fixture_op_done(&f);
}

static void
test_limits_and_bad_input(void)
{
	struct op_txn_init a;
	enum op_err pe[8];
	int64_t pid;
	int16_t ep;
	char longid[TXN_ID_MAX + 2];

	start();
	/* Bad input: nothing is created. */
	CU_ASSERT_EQUAL(init("", 1000, &pid, &ep), OP_BAD_REQUEST);
	memset(longid, 'x', sizeof(longid) - 1);
	longid[sizeof(longid) - 1] = '\0';
	CU_ASSERT_EQUAL(init(longid, 1000, &pid, &ep), OP_BAD_REQUEST);
	CU_ASSERT_EQUAL(init("x", 0, &pid, &ep), OP_TXN_BAD_TIMEOUT);
	CU_ASSERT_EQUAL(init("x", 60001, &pid, &ep), OP_TXN_BAD_TIMEOUT);
	CU_ASSERT_EQUAL(txn_find(f.w.shm, "x", 1), -1);
	CU_ASSERT_EQUAL(txn_count(f.w.shm), 0);
	/* An expected producer id for an id never seen: fenced. */
	memset(&a, 0, sizeof(a));
	a.id = "x";
	a.id_len = 1;
	a.timeout_ms = 1000;
	a.exp_pid = 5;
	a.exp_epoch = 0;
	CU_ASSERT_EQUAL(op_txn_init(&f.x, &a), OP_DONE);
	CU_ASSERT_EQUAL(a.wait.err, OP_TXN_FENCED);
	CU_ASSERT_EQUAL(txn_count(f.w.shm), 0);
	/* max_txns (4): the fifth id is refused. */
	CU_ASSERT_EQUAL(init("1", 1000, &pid, &ep), OP_OK);
	CU_ASSERT_EQUAL(init("2", 1000, &pid, &ep), OP_OK);
	CU_ASSERT_EQUAL(init("3", 1000, &pid, &ep), OP_OK);
	CU_ASSERT_EQUAL(init("4", 1000, &pid, &ep), OP_OK);
	CU_ASSERT_EQUAL(init("5", 1000, &pid, &ep), OP_NO_ROOM);
	CU_ASSERT_EQUAL(init("4", 1000, &pid, &ep), OP_OK);
	/* An unknown partition: nothing added, the others not attempted. */
	CU_ASSERT_EQUAL(add("4", pid, ep, "t", 3, 2, pe), OP_NO_TOPIC);
	CU_ASSERT_EQUAL(pe[0], OP_TXN_NOT_ATTEMPTED);
	CU_ASSERT_EQUAL(pe[1], OP_NO_TOPIC);
	CU_ASSERT_EQUAL(state_of("4"), TXN_EMPTY);
	/* max_txn_parts (4): 3 then 2 more is over, nothing of it added. */
	CU_ASSERT_EQUAL(add("4", pid, ep, "t", 0, 3, NULL), OP_OK);
	CU_ASSERT_EQUAL(add("4", pid, ep, "__consumer_offsets", 0, 1, NULL),
	    OP_OK);
	CU_ASSERT_EQUAL(add("4", pid, ep, "t", 3, 1, pe), OP_NO_ROOM);
	CU_ASSERT_EQUAL(pe[0], OP_NO_ROOM);
	CU_ASSERT_EQUAL(atomic_load(&txn_at(f.w.shm, (uint32_t)txn_find(
	    f.w.shm, "4", 1))->nparts), 4);
	/* Already there: fine at the limit. */
	CU_ASSERT_EQUAL(add("4", pid, ep, "t", 0, 2, NULL), OP_OK);
	fixture_op_done(&f);
}

/* Past its timeout the writer aborts it with the epoch bumped. */
static void
test_timeout(void)
{
	struct shm_txn *t;
	int64_t pid;
	int16_t ep;

	start();
	CU_ASSERT_EQUAL(init("to", 1000, &pid, &ep), OP_OK);
	CU_ASSERT_EQUAL(add("to", pid, ep, "t", 0, 1, NULL), OP_OK);
	writer();
	CU_ASSERT_EQUAL(state_of("to"), TXN_ONGOING);
	t = txn_at(f.w.shm, (uint32_t)txn_find(f.w.shm, "to", 2));
	t->start_ms = clock_real_ms() - 1001;
	writer();
	CU_ASSERT_EQUAL(state_of("to"), TXN_COMPLETE_ABORT);
	CU_ASSERT_EQUAL(atomic_load(&t->epoch), ep + 1);
	CU_ASSERT_EQUAL(op_txn_produce_check(&f.w, pid, ep, slot_of("t", 0)),
	    OP_TXN_EPOCH);
	/* Expiry: an idle id is logged Dead (a tombstone) and freed. */
	f.conf.transactional_id_expiration_ms = 1;
	t->update_ms = clock_real_ms() - 10;
	writer();
	CU_ASSERT_EQUAL(txn_find(f.w.shm, "to", 2), -1);
	fixture_op_done(&f);
}

static void
test_txnlog_records(void)
{
	struct txnlog_part parts[2] = { { "t", 1, 3 }, { "u", 1, 0 } };
	struct txnlog_off offs[1] = { { "g", 1, "t", 1, 3, 42 } };
	struct txnlog_value v = { 77, 3, 60000, TXN_PREPARE_COMMIT, 1000,
	    900, 2, parts, 1, offs }, d;
	struct txnlog_part dp[2];
	struct txnlog_off dof[1];
	uint8_t key[64], val[256];
	const char *id;
	size_t kl, vl, il;

	kl = txnlog_key(key, sizeof(key), "tid", 3);
	CU_ASSERT_EQUAL(kl, 2 + 2 + 3);
	CU_ASSERT_EQUAL(txnlog_key_decode(key, kl, &id, &il), 0);
	CU_ASSERT_EQUAL(il, 3);
	CU_ASSERT_EQUAL(memcmp(id, "tid", 3), 0);
	vl = txnlog_value(val, sizeof(val), &v);
	CU_ASSERT_FATAL(vl <= sizeof(val));
	CU_ASSERT_EQUAL(val[0], 0);
	CU_ASSERT_EQUAL(val[1], 1);		/* version 1 */
	memset(&d, 0, sizeof(d));
	d.parts = dp;
	d.offs = dof;
	CU_ASSERT_EQUAL_FATAL(txnlog_value_decode(val, vl, &d, 2, 1), 0);
	CU_ASSERT_EQUAL(d.pid, 77);
	CU_ASSERT_EQUAL(d.epoch, 3);
	CU_ASSERT_EQUAL(d.timeout_ms, 60000);
	CU_ASSERT_EQUAL(d.status, TXN_PREPARE_COMMIT);
	CU_ASSERT_EQUAL(d.update_ms, 1000);
	CU_ASSERT_EQUAL(d.start_ms, 900);
	CU_ASSERT_EQUAL_FATAL(d.nparts, 2);
	CU_ASSERT_EQUAL(dp[1].partition, 0);
	CU_ASSERT_EQUAL(dp[1].topic_len, 1);
	CU_ASSERT_EQUAL(dp[1].topic[0], 'u');
	CU_ASSERT_EQUAL_FATAL(d.noffs, 1);
	CU_ASSERT_EQUAL(dof[0].offset, 42);
	CU_ASSERT_EQUAL(dof[0].partition, 3);
	/* Bad input: cut short, too many entries, trailing bytes. */
	CU_ASSERT_EQUAL(txnlog_value_decode(val, vl - 1, &d, 2, 1), -1);
	CU_ASSERT_EQUAL(txnlog_value_decode(val, vl, &d, 1, 1), -1);
	CU_ASSERT_EQUAL(txnlog_value_decode(val, vl, &d, 2, 0), -1);
	val[vl] = 0;
	CU_ASSERT_EQUAL(txnlog_value_decode(val, vl + 1, &d, 2, 1), -1);
	CU_ASSERT_EQUAL(txnlog_key_decode(key, kl - 1, &id, &il), -1);
	/* Kafka's value version 0 (not flexible) decodes too. */
	{
		static const uint8_t v0[] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 9,
		    0, 1, 0, 0, 0x03, 0xe8, 1, 0, 0, 0, 1, 0, 1, 't', 0, 0, 0,
		    1, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0,
		    0, 4 };

		CU_ASSERT_EQUAL_FATAL(txnlog_value_decode(v0, sizeof(v0), &d,
		    2, 1), 0);
		CU_ASSERT_EQUAL(d.pid, 9);
		CU_ASSERT_EQUAL(d.epoch, 1);
		CU_ASSERT_EQUAL(d.timeout_ms, 1000);
		CU_ASSERT_EQUAL(d.status, TXN_ONGOING);
		CU_ASSERT_EQUAL(d.nparts, 1);
		CU_ASSERT_EQUAL(dp[0].partition, 2);
		CU_ASSERT_EQUAL(d.update_ms, 5);
		CU_ASSERT_EQUAL(d.start_ms, 4);
		CU_ASSERT_EQUAL(d.noffs, 0);
	}
}

TEST_SUITE("op_txn", NULL, NULL,
    { "commit and abort: states, waits, markers", test_commit_and_abort },
    { "fencing: ids, epochs, a new instance", test_fencing },
    { "produce: control and transactional batches", test_produce_batches },
    { "TxnOffsetCommit: pending until COMMIT", test_offsets },
    { "limits and bad input", test_limits_and_bad_input },
    { "timeout and expiry", test_timeout },
    { "__transaction_state records", test_txnlog_records });
