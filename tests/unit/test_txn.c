/*
 * Transactions on the partition side (shm/producer.h, master/txnpart.h,
 * store/txnindex.h): open transactions recorded at a transactional
 * append, the last stable offset, the slot limit, a producer that dies
 * inside the append's critical section, the writer closing them at a
 * marker and writing the aborted-transaction index (also when it drains
 * a marker again, and in the start-up drain of an old region), the
 * index's collection rule and its recovery, and retention keeping an
 * open transaction's segment.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <bsd/string.h>

#include "common/broker.h"
#include "common/log.h"
#include "master/config.h"
#include "master/txnpart.h"
#include "master/writer.h"
#include "proto/batch.h"
#include "proto/bytes.h"
#include "proto/ctrl.h"
#include "shm/producer.h"
#include "shm/ring.h"
#include "shm/shm.h"
#include "shm/topics.h"
#include "store/io.h"
#include "store/plog.h"
#include "store/topic.h"
#include "store/segment.h"
#include "store/txnindex.h"
#include "store/txnsnap.h"
#include "tests/harness.h"
#include "tests/unit/fixture_shm.h"

#define R		(64 * 1024)
#define NSLOTS		4

static struct shm	 s;
static struct shm_partition *p;

static int
teardown(void)
{
	shm_unlink_name(fixture_shm_name());
	return 0;
}

static void
region(void)
{
	struct shm_limits lim = {
		.child_slots = NSLOTS, .max_topics = 2, .max_partitions = 2,
		.ring_size = R
	};

	fixture_region(&s, &lim, 1, &p);
}

/*
 * A batch of n records numbered seq.. by producer pid/epoch,
 * transactional when txn (malloc'ed).
 */
static uint8_t *
txn_batch(int64_t pid, int16_t epoch, int32_t seq, int n, int txn, size_t *len)
{
	struct batch_builder bb;
	const uint8_t *out;
	uint8_t *copy;
	char v[32];
	int i;

	batch_builder_init(&bb);
	for (i = 0; i < n; i++) {
		snprintf(v, sizeof(v), "v%ld", (long)seq + i);
		CU_ASSERT_EQUAL_FATAL(batch_builder_add(&bb, 1000, "k", 1, v,
		    (int32_t)strlen(v), NULL, 0), 0);
	}
	batch_builder_set_producer(&bb, pid, epoch, seq);
	CU_ASSERT_EQUAL_FATAL(batch_builder_close(&bb, &out, len), 0);
	copy = malloc(*len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(copy);
	memcpy(copy, out, *len);
	batch_builder_free(&bb);
	if (txn)
		test_batch_set_transactional(copy, *len);
	return copy;
}

/* Append through the idempotent path; producer_append's result. */
static int
send_txn(struct shm *sh, struct shm_partition *pp, int64_t pid, int16_t epoch,
    int32_t seq, int n, int txn, int64_t *base)
{
	struct producer_seq q;
	int64_t next;
	uint8_t *b;
	size_t len;
	int rc, dup;

	b = txn_batch(pid, epoch, seq, n, txn, &len);
	CU_ASSERT_EQUAL_FATAL(producer_seq_of(b, len, &q), 0);
	CU_ASSERT_EQUAL(q.txn, txn);
	rc = producer_append(sh, pp, atomic_load(&pp->incarnation), &q, b, len,
	    base, &next, &dup);
	free(b);
	return rc;
}

/* Append a marker batch of pid/epoch through the ring; its offset. */
static int64_t
send_marker(struct shm *sh, struct shm_partition *pp, int64_t pid,
    int16_t epoch, int type)
{
	struct ctrl_marker m = { pid, epoch, (int16_t)type, 7, 1000 };
	uint8_t b[CTRL_MARKER_SIZE];
	int64_t base, next;

	ctrl_marker_encode(b, &m);
	CU_ASSERT_EQUAL_FATAL(ring_append(sh, pp, b, sizeof(b), &base, &next), 0);
	CU_ASSERT_EQUAL(next, base + 1);
	return base;
}

static void
test_open_close(void)
{
	int64_t a, b, c, base, lso;
	struct producer_txn tx[PRODUCER_SLOTS];
	uint8_t *bt;
	size_t len;
	struct producer_seq q;

	region();
	a = producer_id_new(&s);
	b = producer_id_new(&s);
	c = producer_id_new(&s);
	CU_ASSERT_EQUAL(producer_txn_oldest(&s, p), INT64_MAX);
	/* Idempotent, not transactional: no transaction. */
	CU_ASSERT_EQUAL(send_txn(&s, p, c, 0, 0, 2, 0, &base), 0);
	CU_ASSERT_EQUAL(base, 0);
	CU_ASSERT_EQUAL(producer_txn_oldest(&s, p), INT64_MAX);
	CU_ASSERT_EQUAL(atomic_load(&p->txn_seen), 0);
	/* a opens at 2; its next batch keeps it; b opens at 7. */
	CU_ASSERT_EQUAL(send_txn(&s, p, a, 0, 0, 3, 1, &base), 0);
	CU_ASSERT_EQUAL(base, 2);
	CU_ASSERT_EQUAL(atomic_load(&p->txn_seen), 1);
	CU_ASSERT_EQUAL(send_txn(&s, p, a, 0, 3, 2, 1, &base), 0);
	CU_ASSERT_EQUAL(send_txn(&s, p, b, 0, 0, 1, 1, &base), 0);
	CU_ASSERT_EQUAL(base, 7);
	CU_ASSERT_EQUAL(producer_txn_oldest(&s, p), 2);
	CU_ASSERT_EQUAL(producer_txn_list(&s, p, tx, PRODUCER_SLOTS), 2);
	/* The LSO: visible_offset, capped by the oldest open transaction. */
	atomic_store(&p->visible_offset, 1);
	CU_ASSERT_EQUAL(part_lso(&s, 0), 1);
	atomic_store(&p->visible_offset, 8);
	CU_ASSERT_EQUAL(part_lso(&s, 0), 2);

	/* Mixed transactional and plain batches in one produce: refused. */
	{
		uint8_t *b2, *both;
		size_t len2;

		bt = txn_batch(a, 0, 5, 1, 1, &len);
		b2 = txn_batch(a, 0, 6, 1, 0, &len2);
		both = malloc(len + len2);
		CU_ASSERT_PTR_NOT_NULL_FATAL(both);
		memcpy(both, bt, len);
		memcpy(both + len, b2, len2);
		CU_ASSERT_EQUAL(producer_seq_of(both, len + len2, &q), -1);
		CU_ASSERT_EQUAL(producer_seq_of(both, len, &q), 0);
		CU_ASSERT_EQUAL(q.txn, 1);
		free(both);
		free(b2);
		free(bt);
	}

	/* Markers: below the first offset, of an older epoch: nothing. */
	CU_ASSERT_EQUAL(part_lock(&s, p), 0);
	CU_ASSERT_EQUAL(producer_txn_find(&s, p, a, 0, 1, &lso), -1);
	CU_ASSERT_EQUAL(producer_txn_find(&s, p, a, -1, 9, &lso), -1);
	CU_ASSERT_EQUAL(producer_txn_find(&s, p, c, 0, 9, &lso), -1);
	/* a's marker at 8: closes [2, 8], the LSO after it is b's 7. */
	CU_ASSERT_EQUAL(producer_txn_find(&s, p, a, 0, 8, &lso), 2);
	CU_ASSERT_EQUAL(lso, 7);
	producer_txn_clear(&s, p, a);
	/* b's marker (a bumped epoch) at 9: the LSO after it is 10. */
	CU_ASSERT_EQUAL(producer_txn_find(&s, p, b, 1, 9, &lso), 7);
	CU_ASSERT_EQUAL(lso, 10);
	producer_txn_clear(&s, p, b);
	part_unlock(p);
	CU_ASSERT_EQUAL(producer_txn_oldest(&s, p), INT64_MAX);
	CU_ASSERT_EQUAL(part_lso(&s, 0), 8);
	/* a's next transaction opens at its first batch again. */
	CU_ASSERT_EQUAL(send_txn(&s, p, a, 0, 5, 1, 1, &base), 0);
	CU_ASSERT_EQUAL(base, 8);
	CU_ASSERT_EQUAL(producer_txn_oldest(&s, p), 8);
	/* A new epoch of a keeps the open transaction (its marker is coming). */
	CU_ASSERT_EQUAL(send_txn(&s, p, a, 1, 0, 1, 1, &base), 0);
	CU_ASSERT_EQUAL(producer_txn_oldest(&s, p), 8);
	fixture_region_done(&s);
}

/* Every slot holds an open transaction: a new producer is refused. */
static void
test_slots_full(void)
{
	int64_t ids[PRODUCER_SLOTS + 1], base, lso;
	int i;

	region();
	for (i = 0; i <= PRODUCER_SLOTS; i++)
		ids[i] = producer_id_new(&s);
	for (i = 0; i < PRODUCER_SLOTS; i++)
		CU_ASSERT_EQUAL(send_txn(&s, p, ids[i], 0, 0, 1, 1, &base), 0);
	CU_ASSERT_EQUAL(send_txn(&s, p, ids[PRODUCER_SLOTS], 0, 0, 1, 1,
	    &base), PRODUCER_FULL);
	CU_ASSERT_EQUAL(send_txn(&s, p, ids[PRODUCER_SLOTS], 0, 0, 1, 0,
	    &base), PRODUCER_FULL);
	CU_ASSERT_EQUAL(atomic_load(&p->next_offset), PRODUCER_SLOTS);
	/* The producers that hold one go on. */
	CU_ASSERT_EQUAL(send_txn(&s, p, ids[3], 0, 1, 1, 1, &base), 0);
	/* One closes: its slot may go to the newcomer. */
	CU_ASSERT_EQUAL(part_lock(&s, p), 0);
	CU_ASSERT_EQUAL(producer_txn_find(&s, p, ids[5], 0, 20, &lso), 5);
	producer_txn_clear(&s, p, ids[5]);
	part_unlock(p);
	CU_ASSERT_EQUAL(send_txn(&s, p, ids[PRODUCER_SLOTS], 0, 0, 1, 1,
	    &base), 0);
	CU_ASSERT_EQUAL(producer_count(&s, p), PRODUCER_SLOTS);
	fixture_region_done(&s);
}

/*
 * Child: inside the critical section, append a transactional batch of
 * pid as if producing it, then die before the tail store (after_tail 0)
 * or after it but before next_offset (after_tail 1).
 */
static void
die_opening(int64_t pid, int32_t seq, int after_tail)
{
	struct producer_seq q;
	uint8_t *b, *ring = shm_ring_data(&s, p);
	uint64_t tail;
	size_t len;
	pid_t child;
	int st;

	b = txn_batch(pid, 0, seq, 2, 1, &len);
	CU_ASSERT_EQUAL_FATAL(producer_seq_of(b, len, &q), 0);
	child = fork();
	CU_ASSERT_FATAL(child != -1);
	if (child == 0) {
		if (part_lock(&s, p) != 0)
			_exit(1);
		tail = atomic_load(&p->tail);
		memcpy(ring + tail % R, b, len);
		be64_put(ring + tail % R, (uint64_t)p->next_offset);
		producer_record(&s, p, &q, p->next_offset, p->next_offset + 2,
		    tail + len);
		if (after_tail)
			atomic_store(&p->tail, tail + len);
		_exit(0);
	}
	free(b);
	CU_ASSERT_EQUAL(waitpid(child, &st, 0), child);
	CU_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

static void
test_owner_dead(void)
{
	int64_t a, base;

	/* Opened by an append that never published: the repair drops it. */
	region();
	a = producer_id_new(&s);
	CU_ASSERT_EQUAL(send_txn(&s, p, a, 0, 0, 3, 0, &base), 0);
	die_opening(a, 3, 0);
	CU_ASSERT_EQUAL(producer_txn_oldest(&s, p), 3);	/* not yet repaired */
	CU_ASSERT_EQUAL(part_lock(&s, p), 0);
	part_unlock(p);
	CU_ASSERT_EQUAL(producer_txn_oldest(&s, p), INT64_MAX);
	CU_ASSERT_EQUAL(atomic_load(&p->next_offset), 3);
	/* The resend opens it at the same offset. */
	CU_ASSERT_EQUAL(send_txn(&s, p, a, 0, 3, 2, 1, &base), 0);
	CU_ASSERT_EQUAL(base, 3);
	CU_ASSERT_EQUAL(producer_txn_oldest(&s, p), 3);
	fixture_region_done(&s);

	/* Published (tail stored), then died: it stays open. */
	region();
	a = producer_id_new(&s);
	CU_ASSERT_EQUAL(send_txn(&s, p, a, 0, 0, 3, 0, &base), 0);
	die_opening(a, 3, 1);
	CU_ASSERT_EQUAL(part_lock(&s, p), 0);
	part_unlock(p);
	CU_ASSERT_EQUAL(atomic_load(&p->next_offset), 5);
	CU_ASSERT_EQUAL(producer_txn_oldest(&s, p), 3);
	fixture_region_done(&s);
}

/* The index's bytes and its collection rule (Kafka's). */
static void
test_txnindex(void)
{
	struct txn_aborted e[4] = {
		{ 11, 0, 5, 6 },	/* segment 0 */
		{ 12, 3, 9, 3 },	/* segment 0: another one was open at 3 */
		{ 13, 20, 30, 31 },	/* segment 25 */
		{ 14, 40, 50, 51 },	/* segment 45 */
	}, *v = NULL;
	int64_t bases[3] = { 0, 25, 45 };
	uint8_t raw[TXNINDEX_ENTRY], want[TXNINDEX_ENTRY] = {
		0, 0,  0, 0, 0, 0, 0, 0, 0, 11,  0, 0, 0, 0, 0, 0, 0, 0,
		0, 0, 0, 0, 0, 0, 0, 5,  0, 0, 0, 0, 0, 0, 0, 6
	};
	char *dir = test_mkdtemp("txnindex"), path[PATH_MAX];
	size_t n = 0, cap = 0;
	struct stat st;

	txnindex_encode(raw, &e[0]);
	CU_ASSERT_EQUAL(memcmp(raw, want, sizeof(raw)), 0);
	CU_ASSERT_EQUAL(txnindex_append(dir, 0, &e[0]), 0);
	CU_ASSERT_EQUAL(txnindex_append(dir, 0, &e[1]), 0);
	/* The same marker drained again: not written twice. */
	CU_ASSERT_EQUAL(txnindex_append(dir, 0, &e[1]), 0);
	CU_ASSERT_EQUAL(txnindex_append(dir, 25, &e[2]), 0);
	CU_ASSERT_EQUAL(txnindex_append(dir, 45, &e[3]), 0);
	snprintf(path, sizeof(path), "%s/00000000000000000000.txnindex", dir);
	CU_ASSERT_EQUAL(stat(path, &st), 0);
	CU_ASSERT_EQUAL(st.st_size, 2 * TXNINDEX_ENTRY);

	/* [4, 8): both of segment 0; 12's lso 3 < 8 goes on, 13's 31 stops. */
	CU_ASSERT_EQUAL(txnindex_collect(dir, bases, 3, 4, 8, &v, &n, &cap), 0);
	CU_ASSERT_EQUAL_FATAL(n, 2);
	CU_ASSERT(v[0].pid == 11 && v[0].first == 0 && v[0].last == 5);
	CU_ASSERT(v[1].pid == 12 && v[1].first == 3);
	/* [6, 8): 11's marker is below the start. */
	n = 0;
	CU_ASSERT_EQUAL(txnindex_collect(dir, bases, 3, 6, 8, &v, &n, &cap), 0);
	CU_ASSERT_EQUAL_FATAL(n, 1);
	CU_ASSERT_EQUAL(v[0].pid, 12);
	/* [26, 45): from segment 25 only; 14 starts at 40, its marker later. */
	n = 0;
	CU_ASSERT_EQUAL(txnindex_collect(dir, bases, 3, 26, 45, &v, &n, &cap), 0);
	CU_ASSERT_EQUAL_FATAL(n, 2);
	CU_ASSERT_EQUAL(v[0].pid, 13);
	CU_ASSERT_EQUAL(v[1].pid, 14);
	/* [31, 40): nothing overlaps. */
	n = 0;
	CU_ASSERT_EQUAL(txnindex_collect(dir, bases, 3, 31, 40, &v, &n, &cap), 0);
	CU_ASSERT_EQUAL(n, 0);

	/* Markers at or past a torn log end go. */
	CU_ASSERT_EQUAL(txnindex_truncate(dir, 0, 9), 0);
	CU_ASSERT_EQUAL(stat(path, &st), 0);
	CU_ASSERT_EQUAL(st.st_size, TXNINDEX_ENTRY);
	/* A torn entry is cut before the next append. */
	CU_ASSERT_EQUAL(truncate(path, TXNINDEX_ENTRY + 7), 0);
	CU_ASSERT_EQUAL(txnindex_append(dir, 0, &e[1]), 0);
	CU_ASSERT_EQUAL(stat(path, &st), 0);
	CU_ASSERT_EQUAL(st.st_size, 2 * TXNINDEX_ENTRY);
	free(v);
	test_rmtree(dir);
	free(dir);
}

/* ---- the writer ---- */

static char		 shm_name[SHM_NAME_MAX];
static char		*dir;
static struct config	 conf;
static struct broker	 b;
static int		 efds[NSLOTS];

static void
wstart(uint64_t ring)
{
	struct shm_limits lim = {
		.child_slots = NSLOTS, .max_topics = 2, .max_partitions = 2,
		.ring_size = ring, .max_groups = 1, .max_group_members = 1
	};
	int i;

	snprintf(shm_name, sizeof(shm_name), "/flume-test-txn-%ld",
	    (long)getpid());
	dir = test_mkdtemp("txn");
	config_defaults(&conf);
	strlcpy(conf.data_dir, dir, sizeof(conf.data_dir));
	conf.flush_interval_ms = -1;
	conf.flush_messages = -1;
	conf.retention_check_ms = 3600 * 1000;
	memset(&b, 0, sizeof(b));
	CU_ASSERT_EQUAL_FATAL(shm_create(&b.shm, shm_name, &lim), 0);
	for (i = 0; i < NSLOTS; i++) {
		efds[i] = eventfd(0, EFD_NONBLOCK);
		CU_ASSERT_FATAL(efds[i] != -1);
	}
	b.conf = &conf;
	b.listen_fd = -1;
	b.eventfds = efds;
	b.nslots = NSLOTS;
	b.slot = NSLOTS - 2;
}

static void
wfinish(void)
{
	int i;

	store_io_reset();
	shm_detach(&b.shm);
	shm_unlink_name(shm_name);
	for (i = 0; i < NSLOTS; i++)
		close(efds[i]);
	config_free(&conf);
	test_rmtree(dir);
	free(dir);
}

/* The aborted-transaction entries of the partition's segment base. */
static size_t
index_of(int64_t base, struct txn_aborted **v)
{
	char pdir[PATH_MAX];
	size_t n;

	CU_ASSERT_EQUAL_FATAL(topic_partition_dir(pdir, sizeof(pdir), dir,
	    "tx", 0), 0);
	CU_ASSERT_EQUAL_FATAL(txnindex_load(pdir, base, v, &n), 0);
	return n;
}

static void
test_writer_markers(void)
{
	struct shm_partition *wp;
	struct txn_aborted *v;
	struct writer *w;
	int64_t a, c, base, m1, m2;
	int t = -1;

	wstart(R);
	CU_ASSERT_EQUAL_FATAL(shm_topic_create(&b.shm, "tx", 2, 1, &t), t);
	wp = shm_partition(&b.shm, t, 0);
	CU_ASSERT_EQUAL_FATAL(writer_open(&w, &b, 1000), 0);
	a = producer_id_new(&b.shm);
	c = producer_id_new(&b.shm);
	CU_ASSERT_EQUAL(send_txn(&b.shm, wp, a, 0, 0, 2, 1, &base), 0);	/* 0-1 */
	CU_ASSERT_EQUAL(send_txn(&b.shm, wp, c, 0, 0, 3, 1, &base), 0);	/* 2-4 */
	CU_ASSERT_EQUAL(send_txn(&b.shm, wp, a, 0, 2, 1, 1, &base), 0);	/* 5 */
	CU_ASSERT_EQUAL(writer_cycle(w, 1000), 1);
	CU_ASSERT_EQUAL(atomic_load(&wp->visible_offset), 6);
	CU_ASSERT_EQUAL(part_lso(&b.shm, (uint32_t)(wp - b.shm.parts)), 0);
	/* c commits at 6: a still holds the LSO at 0. */
	m1 = send_marker(&b.shm, wp, c, 0, CTRL_COMMIT);
	CU_ASSERT_EQUAL(m1, 6);
	CU_ASSERT_EQUAL(writer_cycle(w, 1001), 1);
	CU_ASSERT_EQUAL(producer_txn_oldest(&b.shm, wp), 0);
	CU_ASSERT_EQUAL(index_of(0, &v), 0);
	/* a aborts at 7 (a bumped epoch): indexed, then the LSO is the end. */
	m2 = send_marker(&b.shm, wp, a, 1, CTRL_ABORT);
	CU_ASSERT_EQUAL(m2, 7);
	CU_ASSERT_EQUAL(writer_cycle(w, 1002), 1);
	CU_ASSERT_EQUAL(producer_txn_oldest(&b.shm, wp), INT64_MAX);
	CU_ASSERT_EQUAL(part_lso(&b.shm, (uint32_t)(wp - b.shm.parts)), 8);
	CU_ASSERT_EQUAL_FATAL(index_of(0, &v), 1);
	CU_ASSERT(v[0].pid == a && v[0].first == 0 && v[0].last == 7 &&
	    v[0].lso == 8);
	free(v);
	/* A marker sent again (after a coordinator crash): nothing changes. */
	send_marker(&b.shm, wp, a, 1, CTRL_ABORT);
	CU_ASSERT_EQUAL(writer_cycle(w, 1003), 1);
	CU_ASSERT_EQUAL(index_of(0, &v), 1);
	free(v);
	CU_ASSERT_EQUAL(part_lso(&b.shm, (uint32_t)(wp - b.shm.parts)), 9);

	/*
	 * A writer that died after writing the log and the index but
	 * before releasing the ring drains the same bytes again: the index
	 * is not written twice.
	 */
	CU_ASSERT_EQUAL(send_txn(&b.shm, wp, c, 0, 3, 1, 1, &base), 0);	/* 9 */
	m1 = send_marker(&b.shm, wp, c, 0, CTRL_ABORT);			/* 10 */
	{
		uint64_t head = atomic_load(&wp->head);

		CU_ASSERT_EQUAL(writer_cycle(w, 1004), 1);
		CU_ASSERT_EQUAL(producer_txn_oldest(&b.shm, wp), INT64_MAX);
		writer_close(w);
		/* The transaction was open again when it died (its state). */
		CU_ASSERT_EQUAL(producer_txn_open(&b.shm, wp, c, 0, 9), 0);
		atomic_store(&wp->head, head);
		CU_ASSERT_EQUAL_FATAL(writer_open(&w, &b, 1005), 0);
		CU_ASSERT_EQUAL(writer_cycle(w, 1005), 1);
	}
	CU_ASSERT_EQUAL(producer_txn_oldest(&b.shm, wp), INT64_MAX);
	CU_ASSERT_EQUAL_FATAL(index_of(0, &v), 2);
	CU_ASSERT(v[1].pid == c && v[1].first == 9 && v[1].last == 10 &&
	    v[1].lso == 11);
	free(v);
	writer_close(w);
	wfinish();
}

/* Many transactions through a small ring, wrapping it many times. */
static void
test_writer_wrap(void)
{
	struct shm_partition *wp;
	struct txn_aborted *v;
	struct writer *w;
	int64_t a, base, first, m;
	int t = -1, i, k, aborts = 0;

	wstart(4096);
	CU_ASSERT_EQUAL_FATAL(shm_topic_create(&b.shm, "tx", 2, 1, &t), t);
	wp = shm_partition(&b.shm, t, 0);
	CU_ASSERT_EQUAL_FATAL(writer_open(&w, &b, 1000), 0);
	a = producer_id_new(&b.shm);
	for (i = 0; i < 200; i++) {
		first = -1;
		for (k = 0; k < 3; k++) {
			CU_ASSERT_EQUAL(send_txn(&b.shm, wp, a, 0, i * 3 + k,
			    1, 1, &base), 0);
			if (first < 0)
				first = base;
			CU_ASSERT_EQUAL(producer_txn_oldest(&b.shm, wp), first);
			CU_ASSERT_EQUAL(writer_cycle(w, 1000 + i), 1);
			CU_ASSERT_EQUAL(part_lso(&b.shm,
			    (uint32_t)(wp - b.shm.parts)), first);
		}
		m = send_marker(&b.shm, wp, a, 0, i % 2 ? CTRL_ABORT : CTRL_COMMIT);
		aborts += i % 2;
		CU_ASSERT_EQUAL(m, first + 3);
		CU_ASSERT_EQUAL(writer_cycle(w, 1000 + i), 1);
		CU_ASSERT_EQUAL(part_lso(&b.shm, (uint32_t)(wp - b.shm.parts)),
		    m + 1);
	}
	CU_ASSERT(atomic_load(&wp->tail) > 10 * 4096);
	CU_ASSERT_EQUAL_FATAL(index_of(0, &v), (size_t)aborts);
	for (i = 0; i < aborts; i++)
		CU_ASSERT(v[i].pid == a && v[i].first == (2 * i + 1) * 4 &&
		    v[i].last == (2 * i + 1) * 4 + 3 && v[i].lso == v[i].last + 1);
	free(v);
	writer_close(w);
	wfinish();
}

/* The start-up drain of an old region writes the index too. */
static void
test_drain_region(void)
{
	struct shm_partition *wp;
	struct txn_aborted *v;
	struct shm old;
	int64_t a, base;
	int t = -1;

	wstart(R);
	CU_ASSERT_EQUAL_FATAL(shm_topic_create(&b.shm, "tx", 2, 1, &t), t);
	wp = shm_partition(&b.shm, t, 0);
	a = producer_id_new(&b.shm);
	CU_ASSERT_EQUAL(send_txn(&b.shm, wp, a, 0, 0, 4, 1, &base), 0);
	send_marker(&b.shm, wp, a, 0, CTRL_ABORT);
	CU_ASSERT_EQUAL_FATAL(shm_attach(&old, shm_name), 0);
	CU_ASSERT_EQUAL(writer_drain_region(&old, &conf), 2);
	CU_ASSERT_EQUAL_FATAL(index_of(0, &v), 1);
	CU_ASSERT(v[0].pid == a && v[0].first == 0 && v[0].last == 4 &&
	    v[0].lso == 5);
	free(v);
	shm_detach(&old);
	wfinish();
}

/*
 * Append n transactional batches of nrec records each to l (producer 1);
 * the bytes of one batch.
 */
static size_t
txn_log(struct plog *l, int n, int nrec)
{
	uint8_t *bt;
	size_t len = 0;
	int64_t base;
	int i;

	for (i = 0; i < n; i++) {
		bt = txn_batch(1, 0, i * nrec, nrec, 1, &len);
		CU_ASSERT_EQUAL(plog_append(l, bt, len, &base), 0);
		free(bt);
	}
	return len;
}

/* Retention never removes the segment of an open transaction's start. */
static void
test_retention_floor(void)
{
	struct plog_config cfg = { 100, 4096, 0, -1, 0, 0 };
	char *d = test_mkdtemp("txnret");
	struct plog *l;
	int deleted;

	CU_ASSERT_EQUAL_FATAL(plog_open(&l, d, &cfg, NULL), 0);
	txn_log(l, 6, 3);
	CU_ASSERT_EQUAL_FATAL(plog_segment_count(l), 6);
	/* An open transaction from offset 7 (the third segment). */
	plog_set_txn_floor(l, 7);
	CU_ASSERT_EQUAL(plog_retain(l, 0, &deleted), 0);
	CU_ASSERT_EQUAL(deleted, 2);
	CU_ASSERT_EQUAL(plog_start_offset(l), 6);
	plog_set_txn_floor(l, INT64_MAX);
	CU_ASSERT_EQUAL(plog_retain(l, 0, &deleted), 0);
	CU_ASSERT_EQUAL(deleted, 3);
	CU_ASSERT_EQUAL(plog_start_offset(l), 15);
	plog_close(l);
	test_rmtree(d);
	free(d);
}

/*
 * A reader collects from the segment holding the start on, from the
 * indexes the directory has now: none there, none found; one in a
 * segment before the start's, not read.
 */
static void
test_reader_aborted(void)
{
	struct plog_config cfg = { 100, 4096, -1, -1, 0, 0 };
	struct txn_aborted early = { 7, 0, 1, 2 }, late = { 8, 4, 12, 13 }, *v;
	char *d = test_mkdtemp("txnrd");
	struct plog_reader *rd;
	struct plog *l;
	size_t n;

	CU_ASSERT_EQUAL_FATAL(plog_open(&l, d, &cfg, NULL), 0);
	txn_log(l, 6, 3);
	CU_ASSERT_EQUAL_FATAL(plog_segment_count(l), 6);	/* 0 3 6 9 12 15 */
	plog_close(l);
	CU_ASSERT_EQUAL_FATAL(plog_reader_open(&rd, d), 0);
	CU_ASSERT_EQUAL(plog_reader_aborted(rd, 7, 10, &v, &n), 0);
	CU_ASSERT_EQUAL(n, 0);
	CU_ASSERT_PTR_NULL(v);
	CU_ASSERT_EQUAL(txnindex_append(d, 0, &early), 0);
	CU_ASSERT_EQUAL(txnindex_append(d, 12, &late), 0);
	/* From 7 (segment 6, no index): segment 0's is before it. */
	CU_ASSERT_EQUAL(plog_reader_aborted(rd, 7, 10, &v, &n), 0);
	CU_ASSERT_EQUAL_FATAL(n, 1);
	CU_ASSERT_EQUAL(v[0].pid, 8);
	free(v);
	/* From 1: both. */
	CU_ASSERT_EQUAL(plog_reader_aborted(rd, 1, 10, &v, &n), 0);
	CU_ASSERT_EQUAL_FATAL(n, 2);
	CU_ASSERT(v[0].pid == 7 && v[1].pid == 8);
	free(v);
	plog_reader_close(rd);
	test_rmtree(d);
	free(d);
}

/* A log whose tail was torn drops the index entries of lost markers. */
static void
test_open_truncates_index(void)
{
	struct plog_config cfg = { 1 << 20, 4096, -1, -1, 0, 0 };
	struct txn_aborted e1 = { 5, 0, 2, 3 }, e2 = { 5, 3, 5, 6 }, *v;
	char *d = test_mkdtemp("txntorn"), path[PATH_MAX];
	struct plog *l;
	size_t len, n;

	CU_ASSERT_EQUAL_FATAL(plog_open(&l, d, &cfg, NULL), 0);
	len = txn_log(l, 3, 2);
	plog_close(l);
	CU_ASSERT_EQUAL(txnindex_append(d, 0, &e1), 0);
	CU_ASSERT_EQUAL(txnindex_append(d, 0, &e2), 0);
	/* A power loss took the last batch (offsets 4-5). */
	snprintf(path, sizeof(path), "%s/00000000000000000000.log", d);
	CU_ASSERT_EQUAL(truncate(path, (off_t)(2 * len + 10)), 0);
	CU_ASSERT_EQUAL_FATAL(plog_open(&l, d, &cfg, NULL), 0);
	CU_ASSERT_EQUAL(plog_end_offset(l), 4);
	CU_ASSERT_EQUAL(txnindex_load(d, 0, &v, &n), 0);
	CU_ASSERT_EQUAL_FATAL(n, 1);
	CU_ASSERT_EQUAL(v[0].last, 2);
	free(v);
	plog_close(l);
	test_rmtree(d);
	free(d);
}

/* The partition's directory. */
static void
pdir_of(char *buf, size_t size)
{
	CU_ASSERT_EQUAL_FATAL(topic_partition_dir(buf, size, dir, "tx", 0), 0);
}

/*
 * Open the log as start-up does and rebuild its open transactions into
 * a fresh region: their number, and the region's partition in *fp.
 */
static int
rebuild_into(struct shm *fs, struct shm_partition **fp, int64_t *end)
{
	struct plog_config cfg = { 300, 4096, -1, -1, 0, 0 };
	struct shm_limits lim = {
		.child_slots = 2, .max_topics = 2, .max_partitions = 2,
		.ring_size = R
	};
	char pd[PATH_MAX];
	struct plog *l;
	int n;

	pdir_of(pd, sizeof(pd));
	fixture_region(fs, &lim, 1, fp);
	CU_ASSERT_EQUAL_FATAL(plog_open(&l, pd, &cfg, NULL), 0);
	*end = plog_end_offset(l);
	atomic_store(&(*fp)->visible_offset, *end);
	n = txn_rebuild(fs, *fp, l);
	plog_close(l);
	return n;
}

/* Every aborted-transaction entry of the partition, over its segments. */
static size_t
all_aborted(struct txn_aborted **v)
{
	char pd[PATH_MAX];
	int64_t bases[64];
	int64_t *b2;
	size_t nb, n = 0, cap = 0;

	pdir_of(pd, sizeof(pd));
	CU_ASSERT_EQUAL_FATAL(seg_list(pd, &b2, &nb), 0);
	CU_ASSERT_FATAL(nb <= 64);
	memcpy(bases, b2, nb * sizeof(*b2));
	free(b2);
	*v = NULL;
	CU_ASSERT_EQUAL_FATAL(txnindex_collect(pd, bases, nb, 0, INT64_MAX, v,
	    &n, &cap), 0);
	return n;
}

/*
 * Open transactions survive a restart of every process: snapshots at
 * the first transaction and at each roll, then the log read from the
 * newest; and a power loss that takes the log's end.
 */
static void
test_snapshot_rebuild(void)
{
	struct shm_partition *wp, *fp;
	struct producer_txn tx[PRODUCER_SLOTS];
	struct txn_aborted *v;
	struct writer *w;
	struct shm fs;
	struct plog_reader *rd;
	struct plog_slice sl;
	char pd[PATH_MAX], path[PATH_MAX + 64];
	int64_t a, c, d, e, base, end, snap;
	int t = -1, i, n;

	wstart(R);
	conf.log.segment_bytes = 300;
	CU_ASSERT_EQUAL_FATAL(shm_topic_create(&b.shm, "tx", 2, 1, &t), t);
	wp = shm_partition(&b.shm, t, 0);
	CU_ASSERT_EQUAL_FATAL(writer_open(&w, &b, 1000), 0);
	pdir_of(pd, sizeof(pd));
	a = producer_id_new(&b.shm);
	c = producer_id_new(&b.shm);
	d = producer_id_new(&b.shm);
	e = producer_id_new(&b.shm);
	/* Plain data first: no snapshot for a partition without transactions. */
	CU_ASSERT_EQUAL(send_txn(&b.shm, wp, e, 0, 0, 1, 0, &base), 0);	/* 0 */
	CU_ASSERT_EQUAL(writer_cycle(w, 1000), 1);
	CU_ASSERT_EQUAL(txnsnap_newest(pd, &snap), 0);
	for (i = 0; i < 3; i++) {					/* 1-3 */
		CU_ASSERT_EQUAL(send_txn(&b.shm, wp, a, 0, i, 1, 1, &base), 0);
		CU_ASSERT_EQUAL(writer_cycle(w, 1001), 1);
		if (i == 0) {
			/* The first transactional batch: a snapshot before it. */
			CU_ASSERT_EQUAL(txnsnap_newest(pd, &snap), 1);
			CU_ASSERT_EQUAL(snap, 1);
		}
	}
	CU_ASSERT_EQUAL(send_txn(&b.shm, wp, c, 0, 0, 1, 1, &base), 0);	/* 4 */
	send_marker(&b.shm, wp, c, 0, CTRL_ABORT);			/* 5 */
	CU_ASSERT_EQUAL(writer_cycle(w, 1002), 1);
	CU_ASSERT_EQUAL(send_txn(&b.shm, wp, d, 0, 0, 1, 1, &base), 0);	/* 6 */
	CU_ASSERT_EQUAL(writer_cycle(w, 1003), 1);
	send_marker(&b.shm, wp, d, 0, CTRL_COMMIT);			/* 7 */
	CU_ASSERT_EQUAL(writer_cycle(w, 1004), 1);
	CU_ASSERT_EQUAL(send_txn(&b.shm, wp, e, 0, 1, 1, 1, &base), 0);	/* 8 */
	CU_ASSERT_EQUAL(writer_cycle(w, 1005), 1);
	CU_ASSERT(atomic_load(&wp->segments) >= 3);
	/* Rolls saved snapshots past the first one. */
	CU_ASSERT_EQUAL(txnsnap_newest(pd, &snap), 1);
	CU_ASSERT(snap > 1);
	CU_ASSERT_EQUAL(producer_txn_list(&b.shm, wp, tx, PRODUCER_SLOTS), 2);
	/* Killed: no clean shutdown, the region is gone. */
	writer_close(w);

	n = rebuild_into(&fs, &fp, &end);
	CU_ASSERT_EQUAL(end, 9);
	CU_ASSERT_EQUAL(n, 2);
	CU_ASSERT_EQUAL(atomic_load(&fp->txn_seen), 1);
	CU_ASSERT_EQUAL_FATAL(producer_txn_list(&fs, fp, tx, PRODUCER_SLOTS), 2);
	for (i = 0; i < 2; i++)
		CU_ASSERT((tx[i].pid == a && tx[i].first == 1) ||
		    (tx[i].pid == e && tx[i].first == 8));
	CU_ASSERT_EQUAL(part_lso(&fs, (uint32_t)(fp - fs.parts)), 1);
	/* The abort's entry, once: a was open at 1, so its LSO was 1. */
	CU_ASSERT_EQUAL_FATAL(all_aborted(&v), 1);
	CU_ASSERT(v[0].pid == c && v[0].first == 4 && v[0].last == 5 &&
	    v[0].lso == 1);
	free(v);
	fixture_region_done(&fs);

	/* A power loss took everything from d's commit (offset 7) on. */
	CU_ASSERT_EQUAL_FATAL(plog_reader_open(&rd, pd), 0);
	CU_ASSERT_EQUAL_FATAL(plog_reader_read(rd, 7, 9, 1 << 20, &sl), 0);
	snprintf(path, sizeof(path), "%s/%020lld.log", pd, (long long)sl.segment);
	CU_ASSERT_EQUAL(truncate(path, sl.pos), 0);
	CU_ASSERT_EQUAL_FATAL(plog_reader_read(rd, 8, 9, 1 << 20, &sl), 0);
	if (sl.segment > 0) {
		snprintf(path, sizeof(path), "%s/%020lld.log", pd,
		    (long long)sl.segment);
		if (sl.pos == 0)
			CU_ASSERT_EQUAL(unlink(path), 0);
	}
	plog_reader_close(rd);
	n = rebuild_into(&fs, &fp, &end);
	CU_ASSERT_EQUAL(end, 7);
	CU_ASSERT_EQUAL(n, 2);
	CU_ASSERT_EQUAL_FATAL(producer_txn_list(&fs, fp, tx, PRODUCER_SLOTS), 2);
	for (i = 0; i < 2; i++)
		CU_ASSERT((tx[i].pid == a && tx[i].first == 1) ||
		    (tx[i].pid == d && tx[i].first == 6));
	/* Snapshots past the new end are gone. */
	CU_ASSERT_EQUAL(txnsnap_newest(pd, &snap), 1);
	CU_ASSERT(snap <= 7);
	CU_ASSERT_EQUAL_FATAL(all_aborted(&v), 1);
	CU_ASSERT(v[0].pid == c && v[0].first == 4 && v[0].last == 5);
	free(v);
	fixture_region_done(&fs);

	/* A clean shutdown saves one at the end: a restart reads nothing. */
	CU_ASSERT_EQUAL_FATAL(writer_open(&w, &b, 2000), 0);
	CU_ASSERT_EQUAL(writer_finish(w, 2000), 0);
	writer_close(w);
	CU_ASSERT_EQUAL(txnsnap_newest(pd, &snap), 1);
	CU_ASSERT_EQUAL(snap, 7);
	wfinish();
}

static int
setup(void)
{
	log_init(0, LOG_LVL_ERROR, "test");
	return 0;
}

TEST_SUITE("txn", setup, teardown,
    { "open, close, last stable offset", test_open_close },
    { "every slot holds an open transaction", test_slots_full },
    { "producer dies opening a transaction", test_owner_dead },
    { "aborted-transaction index", test_txnindex },
    { "the writer closes at markers", test_writer_markers },
    { "transactions through a wrapping ring", test_writer_wrap },
    { "start-up drain writes the index", test_drain_region },
    { "retention keeps an open transaction", test_retention_floor },
    { "a torn tail truncates the index", test_open_truncates_index },
    { "a reader's aborted transactions", test_reader_aborted },
    { "snapshots and the rebuild after a crash", test_snapshot_rebuild });
