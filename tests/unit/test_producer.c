/*
 * Idempotent produce's sequence table (shm/producer.h): what a produce
 * claims, appends, resends answered with their original offsets, gaps,
 * fencing, the history and slot limits, producers that die inside the
 * append's critical section, and the rebuild from a log at startup.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "master/producers.h"
#include "proto/batch.h"
#include "proto/bytes.h"
#include "shm/producer.h"
#include "shm/ring.h"
#include "shm/shm.h"
#include "shm/topics.h"
#include "store/plog.h"
#include "tests/harness.h"
#include "tests/unit/fixture_shm.h"

#define R	(64 * 1024)

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
		.child_slots = 2, .max_topics = 2, .max_partitions = 2,
		.ring_size = R
	};

	fixture_region(&s, &lim, 2, &p);
}

/* A batch of n records numbered seq.. by producer pid/epoch (malloc'ed). */
static uint8_t *
idem_batch(int64_t pid, int16_t epoch, int32_t seq, int n, size_t *len)
{
	struct batch_builder bb;
	const uint8_t *out;
	uint8_t *copy;
	char v[32];
	int i;

	batch_builder_init(&bb);
	for (i = 0; i < n; i++) {
		snprintf(v, sizeof(v), "v%ld", (long)seq + i);
		CU_ASSERT_EQUAL_FATAL(batch_builder_add(&bb, 1000, NULL, -1, v,
		    (int32_t)strlen(v), NULL, 0), 0);
	}
	batch_builder_set_producer(&bb, pid, epoch, seq);
	CU_ASSERT_EQUAL_FATAL(batch_builder_close(&bb, &out, len), 0);
	copy = malloc(*len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(copy);
	memcpy(copy, out, *len);
	batch_builder_free(&bb);
	return copy;
}

/* Append (idempotently) a batch; returns producer_append's result. */
static int
send_batch(int64_t pid, int16_t epoch, int32_t seq, int n, int64_t *base,
    int64_t *next, int *dup)
{
	struct producer_seq q;
	uint8_t *b;
	size_t len;
	int rc;

	b = idem_batch(pid, epoch, seq, n, &len);
	CU_ASSERT_EQUAL_FATAL(producer_seq_of(b, len, &q), 0);
	*base = *next = -1;
	rc = producer_append(&s, p, atomic_load(&p->incarnation), &q, b, len,
	    base, next, dup);
	free(b);
	return rc;
}

/* A resend of epoch 2's seq.. (n records) answered with base and next. */
static void
resend_answered(int64_t pid, int32_t seq, int n, int64_t want_base,
    int64_t want_next)
{
	int64_t base, next;
	int dup = 0;

	CU_ASSERT_EQUAL(send_batch(pid, 2, seq, n, &base, &next, &dup), 0);
	CU_ASSERT_EQUAL(dup, 1);
	CU_ASSERT_EQUAL(base, want_base);
	CU_ASSERT_EQUAL(next, want_next);
}

static void
test_seq_of(void)
{
	struct producer_seq q;
	uint8_t *a, *b, *c, *two;
	size_t la, lb, lc;

	a = idem_batch(77, 3, 10, 4, &la);
	CU_ASSERT_EQUAL(producer_seq_of(a, la, &q), 0);
	CU_ASSERT_EQUAL(q.pid, 77);
	CU_ASSERT_EQUAL(q.epoch, 3);
	CU_ASSERT_EQUAL(q.first_seq, 10);
	CU_ASSERT_EQUAL(q.last_seq, 13);

	/* Two batches that follow each other are one run of sequences. */
	b = idem_batch(77, 3, 14, 2, &lb);
	two = malloc(la + lb);
	memcpy(two, a, la);
	memcpy(two + la, b, lb);
	CU_ASSERT_EQUAL(producer_seq_of(two, la + lb, &q), 0);
	CU_ASSERT_EQUAL(q.first_seq, 10);
	CU_ASSERT_EQUAL(q.last_seq, 15);
	/* ... and in the other order they do not. */
	memcpy(two, b, lb);
	memcpy(two + lb, a, la);
	CU_ASSERT_EQUAL(producer_seq_of(two, la + lb, &q), -1);
	free(two);

	/* Sequences wrap after INT32_MAX. */
	c = idem_batch(77, 3, INT32_MAX - 1, 3, &lc);
	CU_ASSERT_EQUAL(producer_seq_of(c, lc, &q), 0);
	CU_ASSERT_EQUAL(q.first_seq, INT32_MAX - 1);
	CU_ASSERT_EQUAL(q.last_seq, 0);
	CU_ASSERT_EQUAL(producer_seq_next(INT32_MAX), 0);
	free(c);

	/* Not idempotent: pid -1 whatever the other fields say. */
	c = idem_batch(-1, -1, -1, 2, &lc);
	CU_ASSERT_EQUAL(producer_seq_of(c, lc, &q), 0);
	CU_ASSERT_EQUAL(q.pid, -1);
	/* Mixing an idempotent and a plain batch is refused. */
	two = malloc(la + lc);
	memcpy(two, a, la);
	memcpy(two + la, c, lc);
	CU_ASSERT_EQUAL(producer_seq_of(two, la + lc, &q), -1);
	free(two);
	/* A negative sequence with a producer id is refused. */
	free(c);
	c = idem_batch(77, 3, -5, 1, &lc);
	CU_ASSERT_EQUAL(producer_seq_of(c, lc, &q), -1);
	free(c);
	free(a);
	free(b);
}

static void
test_append_resend_gap(void)
{
	int64_t pid, base, next;
	uint64_t tail;
	int dup;

	region();
	pid = producer_id_new(&s);
	CU_ASSERT(pid > 0);
	CU_ASSERT_EQUAL(producer_id_limit(&s), pid + 1);

	CU_ASSERT_EQUAL(send_batch(pid, 0, 0, 3, &base, &next, &dup), 0);
	CU_ASSERT_EQUAL(dup, 0);
	CU_ASSERT_EQUAL(base, 0);
	CU_ASSERT_EQUAL(next, 3);
	tail = atomic_load(&p->tail);

	/* The same batch again: its offsets, nothing appended. */
	CU_ASSERT_EQUAL(send_batch(pid, 0, 0, 3, &base, &next, &dup), 0);
	CU_ASSERT_EQUAL(dup, 1);
	CU_ASSERT_EQUAL(base, 0);
	CU_ASSERT_EQUAL(next, 3);
	CU_ASSERT_EQUAL(atomic_load(&p->tail), tail);
	CU_ASSERT_EQUAL(p->next_offset, 3);

	/* Another producer's plain batch in between takes offsets 3..4. */
	CU_ASSERT_EQUAL(send_batch(-1, -1, -1, 2, &base, &next, &dup), 0);
	CU_ASSERT_EQUAL(base, 3);

	CU_ASSERT_EQUAL(send_batch(pid, 0, 3, 2, &base, &next, &dup), 0);
	CU_ASSERT_EQUAL(dup, 0);
	CU_ASSERT_EQUAL(base, 5);
	CU_ASSERT_EQUAL(next, 7);
	/* Both resends are recognised, each with its own offsets. */
	CU_ASSERT_EQUAL(send_batch(pid, 0, 0, 3, &base, &next, &dup), 0);
	CU_ASSERT_EQUAL(dup, 1);
	CU_ASSERT_EQUAL(base, 0);
	CU_ASSERT_EQUAL(next, 3);
	CU_ASSERT_EQUAL(send_batch(pid, 0, 3, 2, &base, &next, &dup), 0);
	CU_ASSERT_EQUAL(dup, 1);
	CU_ASSERT_EQUAL(base, 5);
	CU_ASSERT_EQUAL(next, 7);

	/* A gap, or a run that reaches past the last append but is no resend. */
	CU_ASSERT_EQUAL(send_batch(pid, 0, 6, 1, &base, &next, &dup),
	    PRODUCER_OUT_OF_ORDER);
	CU_ASSERT_EQUAL(send_batch(pid, 0, 4, 3, &base, &next, &dup),
	    PRODUCER_OUT_OF_ORDER);
	/* At or before the last append but not one: stored, offsets unknown. */
	CU_ASSERT_EQUAL(send_batch(pid, 0, 1, 3, &base, &next, &dup),
	    PRODUCER_OLD_DUPLICATE);
	CU_ASSERT_EQUAL(p->next_offset, 7);

	/* An id never issued, and an epoch older than one seen: fenced. */
	CU_ASSERT_EQUAL(send_batch(pid + 1, 0, 0, 1, &base, &next, &dup),
	    PRODUCER_FENCED);
	CU_ASSERT_EQUAL(send_batch(pid, 1, 0, 1, &base, &next, &dup), 0);
	CU_ASSERT_EQUAL(dup, 0);
	CU_ASSERT_EQUAL(base, 7);
	CU_ASSERT_EQUAL(send_batch(pid, 0, 5, 1, &base, &next, &dup),
	    PRODUCER_FENCED);
	CU_ASSERT_EQUAL(p->next_offset, 8);

	/* Partition 1 keeps its own sequences, starting at 0. */
	p = shm_partition(&s, 0, 1);
	CU_ASSERT_EQUAL(send_batch(pid, 1, 40, 1, &base, &next, &dup),
	    PRODUCER_OUT_OF_ORDER);
	CU_ASSERT_EQUAL(send_batch(pid, 1, 0, 1, &base, &next, &dup), 0);
	CU_ASSERT_EQUAL(base, 0);
	CU_ASSERT_EQUAL(dup, 0);
	/* A new epoch starts at 0 too. */
	CU_ASSERT_EQUAL(send_batch(pid, 2, 1, 1, &base, &next, &dup),
	    PRODUCER_OUT_OF_ORDER);
	fixture_region_done(&s);
}

static void
test_history_and_slots(void)
{
	int64_t pid, ids[PRODUCER_SLOTS + 1], base, next;
	int dup, i;

	region();
	pid = producer_id_new(&s);
	for (i = 0; i < PRODUCER_HISTORY + 1; i++) {
		CU_ASSERT_EQUAL(send_batch(pid, 0, i * 2, 2, &base, &next,
		    &dup), 0);
		CU_ASSERT_EQUAL(base, i * 2);
	}
	/* The last PRODUCER_HISTORY appends are remembered, not the one before. */
	CU_ASSERT_EQUAL(send_batch(pid, 0, 0, 2, &base, &next, &dup),
	    PRODUCER_OLD_DUPLICATE);
	CU_ASSERT_EQUAL(p->next_offset, 2 * (PRODUCER_HISTORY + 1));
	CU_ASSERT_EQUAL(send_batch(pid, 0, 2, 2, &base, &next, &dup), 0);
	CU_ASSERT_EQUAL(dup, 1);
	CU_ASSERT_EQUAL(base, 2);
	/* A resend of several appends at once spans their offsets. */
	{
		struct producer_seq q = { pid, 0, 4, 9, 0 };
		int64_t b2 = -1, n2 = -1;

		CU_ASSERT_EQUAL(part_lock(&s, p), 0);
		CU_ASSERT_EQUAL(producer_check(&s, p, &q, &b2, &n2),
		    PRODUCER_DUPLICATE);
		part_unlock(p);
		CU_ASSERT_EQUAL(b2, 4);
		CU_ASSERT_EQUAL(n2, 10);
	}

	/* One producer more than there are slots: the least recent goes. */
	CU_ASSERT_EQUAL(producer_count(&s, p), 1);
	for (i = 0; i < PRODUCER_SLOTS + 1; i++) {
		ids[i] = producer_id_new(&s);
		CU_ASSERT_EQUAL(send_batch(ids[i], 0, 0, 1, &base, &next,
		    &dup), 0);
	}
	CU_ASSERT_EQUAL(producer_count(&s, p), PRODUCER_SLOTS);
	/* pid was the least recent: forgotten, it must start over at 0... */
	CU_ASSERT_EQUAL(send_batch(pid, 0, 12, 2, &base, &next, &dup),
	    PRODUCER_OUT_OF_ORDER);
	/* ... while the newest are still known. */
	CU_ASSERT_EQUAL(send_batch(ids[PRODUCER_SLOTS], 0, 0, 1, &base,
	    &next, &dup), 0);
	CU_ASSERT_EQUAL(dup, 1);
	fixture_region_done(&s);
}

/*
 * Child: inside the critical section, record seq 3..4 for pid as if
 * appending len bytes, then die before the tail store (after_tail 0), or
 * after it but before next_offset (after_tail 1).
 */
static void
die_recording(int64_t pid, int after_tail)
{
	struct producer_seq q = { pid, 0, 3, 4, 0 };
	uint8_t *b, *ring = shm_ring_data(&s, p);
	uint64_t tail;
	size_t len;
	pid_t child;
	int st;

	b = idem_batch(pid, 0, 3, 2, &len);
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
	int64_t pid, base, next;
	uint64_t tail;
	int dup;

	region();
	pid = producer_id_new(&s);
	CU_ASSERT_EQUAL(send_batch(pid, 0, 0, 3, &base, &next, &dup), 0);
	tail = atomic_load(&p->tail);

	/* Recorded but never published: the resend is appended, not a duplicate. */
	die_recording(pid, 0);
	CU_ASSERT_EQUAL(atomic_load(&p->tail), tail);
	CU_ASSERT_EQUAL(send_batch(pid, 0, 3, 2, &base, &next, &dup), 0);
	CU_ASSERT_EQUAL(dup, 0);
	CU_ASSERT_EQUAL(base, 3);
	CU_ASSERT_EQUAL(next, 5);
	CU_ASSERT(atomic_load(&p->tail) > tail);
	/* The record of seq 0..2 survived the repair. */
	CU_ASSERT_EQUAL(send_batch(pid, 0, 0, 3, &base, &next, &dup), 0);
	CU_ASSERT_EQUAL(dup, 1);
	CU_ASSERT_EQUAL(base, 0);
	fixture_region_done(&s);

	/* Published (tail stored) then died: the resend is a duplicate. */
	region();
	pid = producer_id_new(&s);
	CU_ASSERT_EQUAL(send_batch(pid, 0, 0, 3, &base, &next, &dup), 0);
	die_recording(pid, 1);
	tail = atomic_load(&p->tail);
	CU_ASSERT_EQUAL(send_batch(pid, 0, 3, 2, &base, &next, &dup), 0);
	CU_ASSERT_EQUAL(dup, 1);
	CU_ASSERT_EQUAL(base, 3);
	CU_ASSERT_EQUAL(next, 5);
	CU_ASSERT_EQUAL(atomic_load(&p->tail), tail);
	/* next_offset was repaired from the ring, so numbering goes on. */
	CU_ASSERT_EQUAL(send_batch(pid, 0, 5, 1, &base, &next, &dup), 0);
	CU_ASSERT_EQUAL(dup, 0);
	CU_ASSERT_EQUAL(base, 5);
	fixture_region_done(&s);
}

static void
test_rebuild_from_log(void)
{
	struct plog_config cfg = { 1 << 20, 4096, -1, -1, 0, 0 };
	struct plog_recovery rec;
	struct plog *l;
	char *dir = test_mkdtemp("producer");
	uint8_t *b;
	size_t len;
	int64_t base, next, pid = (int64_t)1 << 61;
	int dup, i;

	CU_ASSERT_EQUAL_FATAL(plog_open(&l, dir, &cfg, &rec), 0);
	/* Offsets 0..7: pid's seq 0..5 in three batches around a plain one. */
	for (i = 0; i < 3; i++) {
		b = idem_batch(pid, 2, i * 2, 2, &len);
		CU_ASSERT_EQUAL(plog_append(l, b, len, &base), 0);
		free(b);
		if (i == 0) {
			b = idem_batch(-1, -1, -1, 2, &len);
			CU_ASSERT_EQUAL(plog_append(l, b, len, &base), 0);
			free(b);
		}
	}
	CU_ASSERT_EQUAL(plog_end_offset(l), 8);

	region();
	CU_ASSERT(producer_id_limit(&s) <= pid);
	p->next_offset = 8;
	CU_ASSERT_EQUAL(producers_rebuild(&s, p, l), 3);
	CU_ASSERT_EQUAL(producer_id_limit(&s), pid + 1);
	/* Resends get their logged offsets; the next batch goes on. */
	resend_answered(pid, 4, 2, 6, 8);
	resend_answered(pid, 2, 2, 4, 6);
	CU_ASSERT_EQUAL(send_batch(pid, 2, 7, 1, &base, &next, &dup),
	    PRODUCER_OUT_OF_ORDER);
	CU_ASSERT_EQUAL(send_batch(pid, 2, 6, 1, &base, &next, &dup), 0);
	CU_ASSERT_EQUAL(dup, 0);
	CU_ASSERT_EQUAL(base, 8);
	fixture_region_done(&s);
	plog_close(l);
	test_rmtree(dir);
	free(dir);
}

/*
 * A damaged batch in the middle of the last segment, kept by recovery
 * because valid ones follow it (byte of the third of five batches XORed
 * with mask): the rebuild steps over what reads as corrupt, so a resend
 * of the newest batch after the restart is still answered with its
 * offsets, and the next batch follows the log end.  recorded: the
 * batches the rebuild finds.
 */
static void
rebuild_past_damage(int byte, uint8_t mask, int recorded)
{
	struct plog_config cfg = { 1 << 20, 4096, -1, -1, 0, 0 };
	struct plog_recovery rec;
	struct plog *l;
	char *dir = test_mkdtemp("producer"), path[600];
	uint8_t *b, c;
	size_t len;
	off_t pos = 0, hit = -1;
	int64_t base, next, pid = (int64_t)1 << 61;
	int dup, i, fd;

	/* Offsets 0..9: pid's seq 0..9 in five batches of two. */
	CU_ASSERT_EQUAL_FATAL(plog_open(&l, dir, &cfg, &rec), 0);
	for (i = 0; i < 5; i++) {
		b = idem_batch(pid, 2, i * 2, 2, &len);
		CU_ASSERT_EQUAL(plog_append(l, b, len, &base), 0);
		CU_ASSERT_EQUAL(base, i * 2);
		free(b);
		if (i == 2)
			hit = pos;
		pos += (off_t)len;
	}
	CU_ASSERT_EQUAL(plog_sync(l), 0);
	plog_close(l);

	snprintf(path, sizeof(path), "%s/%020d.log", dir, 0);
	CU_ASSERT_FATAL((fd = open(path, O_RDWR)) != -1);
	CU_ASSERT_EQUAL_FATAL(pread(fd, &c, 1, hit + byte), 1);
	c ^= mask;
	CU_ASSERT_EQUAL_FATAL(pwrite(fd, &c, 1, hit + byte), 1);
	close(fd);
	/* Recovery scans the whole segment then. */
	snprintf(path, sizeof(path), "%s/%020d.index", dir, 0);
	(void)unlink(path);
	memset(&rec, 0, sizeof(rec));
	CU_ASSERT_EQUAL_FATAL(plog_open(&l, dir, &cfg, &rec), 0);
	CU_ASSERT_EQUAL(rec.truncated_bytes, 0);
	CU_ASSERT_EQUAL_FATAL(rec.ncorrupt, 1);
	CU_ASSERT_EQUAL(rec.corrupt[0].first_offset, 4);
	CU_ASSERT_EQUAL(rec.corrupt[0].next_offset, 6);
	CU_ASSERT_EQUAL(plog_end_offset(l), 10);

	region();
	p->next_offset = 10;
	CU_ASSERT_EQUAL(producers_rebuild(&s, p, l), recorded);
	CU_ASSERT_EQUAL(producer_id_limit(&s), pid + 1);
	/* The newest batches resent: their offsets, not stored again. */
	resend_answered(pid, 8, 2, 8, 10);
	resend_answered(pid, 6, 2, 6, 8);
	CU_ASSERT_EQUAL(atomic_load(&p->tail), 0);
	/* The next one goes on at the log end. */
	CU_ASSERT_EQUAL(send_batch(pid, 2, 10, 1, &base, &next, &dup), 0);
	CU_ASSERT_EQUAL(dup, 0);
	CU_ASSERT_EQUAL(base, 10);
	fixture_region_done(&s);
	plog_close(l);
	test_rmtree(dir);
	free(dir);
}

static void
test_rebuild_past_bad_length(void)
{
	/* Its header no longer chains: reads meet a corrupt range (EBADMSG). */
	rebuild_past_damage(BATCH_OFF_LENGTH + 3, 0x10, 4);
}

static void
test_rebuild_past_bad_record(void)
{
	/* Its header still reads: its sequences count, only its CRC is wrong. */
	rebuild_past_damage(BATCH_HEADER_SIZE + 2, 0x20, 5);
}

TEST_SUITE("producer", NULL, teardown,
    { "what a produce claims", test_seq_of },
    { "append, resend, gap, fencing", test_append_resend_gap },
    { "history and slot limits", test_history_and_slots },
    { "producer dies in the critical section", test_owner_dead },
    { "rebuild from the log", test_rebuild_from_log },
    { "rebuild past a batch with a bad length", test_rebuild_past_bad_length },
    { "rebuild past a batch with a bad record", test_rebuild_past_bad_record });
