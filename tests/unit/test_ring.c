/*
 * Partition rings: exact bytes and offsets through append/peek/release,
 * wrapping with a skip marker and with slack, backpressure, size limits,
 * all-or-nothing appends, concurrent producers in separate processes,
 * and producers that die holding the lock.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "proto/batch.h"
#include "proto/bytes.h"
#include "shm/lock.h"
#include "shm/ring.h"
#include "shm/shm.h"
#include "shm/topics.h"
#include "tests/harness.h"
#include "tests/unit/fixture_shm.h"

#define R	1024	/* ring size of most cases: small, so wraps are easy to place */

static struct shm	 s;
static struct shm_partition *p;

static int
teardown(void)
{
	shm_unlink_name(fixture_shm_name());
	return 0;
}

/* A fresh region with one topic of one partition; p is that partition. */
static void
region(uint64_t ring_size)
{
	struct shm_limits lim = {
		.child_slots = 2, .max_topics = 2, .max_partitions = 2,
		.ring_size = ring_size
	};

	fixture_region(&s, &lim, 1, &p);
}

/*
 * A batch of nrec records; record r's value is [tag u32][seq + r u32]
 * then pad bytes of (tag + r).  Returns a malloc'ed copy.
 */
static uint8_t *
make_batch(int nrec, uint32_t tag, uint32_t seq, size_t pad, size_t *len)
{
	struct batch_builder bb;
	const uint8_t *out;
	uint8_t *val, *copy;
	size_t n;
	int r;

	val = malloc(8 + pad);
	CU_ASSERT_PTR_NOT_NULL_FATAL(val);
	batch_builder_init(&bb);
	for (r = 0; r < nrec; r++) {
		be32_put(val, tag);
		be32_put(val + 4, seq + (uint32_t)r);
		memset(val + 8, (int)((tag + (uint32_t)r) & 0xff), pad);
		CU_ASSERT_EQUAL_FATAL(batch_builder_add(&bb, 1000 + r, NULL, -1, val,
		    (int32_t)(8 + pad), NULL, 0), 0);
	}
	CU_ASSERT_EQUAL_FATAL(batch_builder_close(&bb, &out, &n), 0);
	copy = malloc(n);
	CU_ASSERT_PTR_NOT_NULL_FATAL(copy);
	memcpy(copy, out, n);
	batch_builder_free(&bb);
	free(val);
	*len = n;
	return copy;
}

/* A one-record batch of exactly size bytes. */
static uint8_t *
make_sized(size_t size, uint32_t tag)
{
	uint8_t *b;
	size_t pad, n;

	for (pad = 0; pad < size; pad++) {
		b = make_batch(1, tag, 0, pad, &n);
		if (n == size)
			return b;
		free(b);
		if (n > size)
			break;
	}
	CU_FAIL_FATAL("no batch of that size");
	return NULL;
}

/* The ring copy equals the original except baseOffset, which is base. */
static void
assert_batch(const uint8_t *ring_copy, const uint8_t *orig, size_t len, int64_t base)
{
	CU_ASSERT_EQUAL(batch_base_offset(ring_copy), base);
	CU_ASSERT_EQUAL(memcmp(ring_copy + 8, orig + 8, len - 8), 0);
	CU_ASSERT_EQUAL(batch_validate(ring_copy, len, NULL), BATCH_OK);
}

static uint64_t
head_now(void)
{
	return atomic_load(&p->head);
}

static uint64_t
tail_now(void)
{
	return atomic_load(&p->tail);
}

static void
test_append_peek_release(void)
{
	uint8_t *a, *b, *ab, *data;
	size_t la, lb, n;
	int64_t base, next;

	region(R);
	a = make_batch(3, 1, 0, 10, &la);
	b = make_batch(2, 2, 0, 20, &lb);
	CU_ASSERT_EQUAL(ring_free(&s, p), R);
	CU_ASSERT_EQUAL(ring_peek(&s, p, &data), 0);
	CU_ASSERT_EQUAL(ring_damaged(&s, p), 0);

	CU_ASSERT_EQUAL(ring_append(&s, p, a, la, &base, &next), 0);
	CU_ASSERT_EQUAL(base, 0);
	CU_ASSERT_EQUAL(next, 3);
	CU_ASSERT_EQUAL(ring_append(&s, p, b, lb, &base, &next), 0);
	CU_ASSERT_EQUAL(base, 3);
	CU_ASSERT_EQUAL(next, 5);
	CU_ASSERT_EQUAL(p->next_offset, 5);
	CU_ASSERT_EQUAL(tail_now(), la + lb);
	CU_ASSERT_EQUAL(head_now(), 0);
	CU_ASSERT_EQUAL(ring_free(&s, p), R - la - lb);
	CU_ASSERT_EQUAL(atomic_load(&p->msgs_in), 5);
	CU_ASSERT_EQUAL(atomic_load(&p->bytes_in), la + lb);
	/* The caller's bytes are not touched. */
	CU_ASSERT_EQUAL(batch_base_offset(a), 0);

	n = ring_peek(&s, p, &data);
	CU_ASSERT_EQUAL_FATAL(n, la + lb);
	CU_ASSERT_PTR_EQUAL(data, shm_ring_data(&s, p));
	assert_batch(data, a, la, 0);
	assert_batch(data + la, b, lb, 3);
	/* Peek does not consume. */
	CU_ASSERT_EQUAL(ring_peek(&s, p, &data), la + lb);
	ring_release(&s, p, la);
	CU_ASSERT_EQUAL(ring_peek(&s, p, &data), lb);
	assert_batch(data, b, lb, 3);
	ring_release(&s, p, lb);
	CU_ASSERT_EQUAL(head_now(), tail_now());
	CU_ASSERT_EQUAL(ring_free(&s, p), R);
	CU_ASSERT_EQUAL(ring_peek(&s, p, &data), 0);
	CU_ASSERT_EQUAL(ring_damaged(&s, p), 0);

	/* Several batches in one append get consecutive offsets. */
	ab = malloc(la + lb);
	memcpy(ab, a, la);
	memcpy(ab + la, b, lb);
	CU_ASSERT_EQUAL(ring_append(&s, p, ab, la + lb, &base, &next), 0);
	CU_ASSERT_EQUAL(base, 5);
	CU_ASSERT_EQUAL(next, 10);
	n = ring_peek(&s, p, &data);
	CU_ASSERT_EQUAL_FATAL(n, la + lb);
	assert_batch(data, a, la, 5);
	assert_batch(data + la, b, lb, 8);
	ring_release(&s, p, n);
	free(ab);
	free(a);
	free(b);
	fixture_region_done(&s);
}

/* Append one batch of size bytes and check its offsets. */
static void
append_sized(size_t size, int64_t want_base)
{
	uint8_t *b = make_sized(size, (uint32_t)size);
	int64_t base, next;

	CU_ASSERT_EQUAL(ring_append(&s, p, b, size, &base, &next), 0);
	CU_ASSERT_EQUAL(base, want_base);
	CU_ASSERT_EQUAL(next, want_base + 1);
	free(b);
}

static void
test_wrap_marker(void)
{
	uint8_t *ring, *data, *big;
	size_t n;
	int64_t base, next;
	int i;

	region(R);
	ring = shm_ring_data(&s, p);
	for (i = 0; i < 4; i++)
		append_sized(200, i);
	CU_ASSERT_EQUAL(ring_peek(&s, p, &data), 800);
	ring_release(&s, p, 400);
	/* 224 bytes left before the end: a 300-byte batch goes to 0 after a marker. */
	big = make_sized(300, 9);
	CU_ASSERT_EQUAL(ring_append(&s, p, big, 300, &base, &next), 0);
	CU_ASSERT_EQUAL(base, 4);
	CU_ASSERT_EQUAL(tail_now(), R + 300);
	CU_ASSERT_EQUAL(be64_get(ring + 800), UINT64_MAX);
	CU_ASSERT_EQUAL(be32_get(ring + 808), 224 - 12);
	CU_ASSERT_EQUAL(ring_free(&s, p), R - (R + 300 - 400));

	/* The run stops at the marker... */
	n = ring_peek(&s, p, &data);
	CU_ASSERT_EQUAL(n, 400);
	CU_ASSERT_PTR_EQUAL(data, ring + 400);
	CU_ASSERT_EQUAL(batch_base_offset(data), 2);
	CU_ASSERT_EQUAL(batch_base_offset(data + 200), 3);
	ring_release(&s, p, n);
	/* ...and the next peek skips it, moving head past it. */
	n = ring_peek(&s, p, &data);
	CU_ASSERT_EQUAL_FATAL(n, 300);
	CU_ASSERT_EQUAL(head_now(), R);
	CU_ASSERT_PTR_EQUAL(data, ring);
	assert_batch(data, big, 300, 4);
	ring_release(&s, p, n);
	CU_ASSERT_EQUAL(head_now(), tail_now());
	CU_ASSERT_EQUAL(ring_damaged(&s, p), 0);
	free(big);
	fixture_region_done(&s);
}

static void
test_wrap_slack(void)
{
	uint8_t *ring, *data, *b;
	size_t n;
	int64_t base, next;
	int i;

	region(R);
	ring = shm_ring_data(&s, p);
	for (i = 0; i < 4; i++)
		append_sized(200, i);
	append_sized(216, 4);
	CU_ASSERT_EQUAL(tail_now(), 1016);
	n = ring_peek(&s, p, &data);
	CU_ASSERT_EQUAL(n, 1016);
	ring_release(&s, p, n);
	/* 8 bytes left: too few for a marker, skipped by rule. */
	memset(ring + 1016, 0xee, 8);
	b = make_sized(100, 7);
	CU_ASSERT_EQUAL(ring_append(&s, p, b, 100, &base, &next), 0);
	CU_ASSERT_EQUAL(base, 5);
	CU_ASSERT_EQUAL(tail_now(), R + 100);
	CU_ASSERT_EQUAL(ring[1016], 0xee);
	n = ring_peek(&s, p, &data);
	CU_ASSERT_EQUAL_FATAL(n, 100);
	CU_ASSERT_EQUAL(head_now(), R);
	CU_ASSERT_PTR_EQUAL(data, ring);
	assert_batch(data, b, 100, 5);
	ring_release(&s, p, n);
	CU_ASSERT_EQUAL(ring_peek(&s, p, &data), 0);
	CU_ASSERT_EQUAL(ring_damaged(&s, p), 0);
	free(b);

	/* Exactly at the end: the next batch starts at 0 with nothing skipped. */
	fixture_region_done(&s);
	region(R);
	for (i = 0; i < 4; i++)
		append_sized(200, i);
	append_sized(224, 4);
	CU_ASSERT_EQUAL(ring_peek(&s, p, &data), R);
	ring_release(&s, p, R);
	append_sized(100, 5);
	CU_ASSERT_EQUAL(tail_now(), R + 100);
	fixture_region_done(&s);
}

static void
test_full_and_limits(void)
{
	uint8_t *b200, *x, *y, *xy, *huge, *half, *data;
	int64_t base = -7, next = -7;
	size_t n;
	int i;

	region(R);
	b200 = make_sized(200, 1);
	for (i = 0; i < 5; i++)
		CU_ASSERT_EQUAL(ring_append(&s, p, b200, 200, &base, &next), 0);
	/* 24 bytes free: backpressure, nothing changed. */
	errno = 0;
	base = next = -7;
	CU_ASSERT_EQUAL(ring_append(&s, p, b200, 200, &base, &next), -1);
	CU_ASSERT_EQUAL(errno, EAGAIN);
	CU_ASSERT_EQUAL(base, -7);
	CU_ASSERT_EQUAL(tail_now(), 1000);
	CU_ASSERT_EQUAL(p->next_offset, 5);
	CU_ASSERT_EQUAL(ring_free(&s, p), 24);

	/*
	 * 224 free after releasing one batch: X (100) alone fits after the
	 * 24-byte skip, X+Y (100+120) does not.  All or nothing.
	 */
	CU_ASSERT_EQUAL(ring_peek(&s, p, &data), 1000);
	ring_release(&s, p, 200);
	x = make_sized(100, 2);
	y = make_sized(120, 3);
	xy = malloc(220);
	memcpy(xy, x, 100);
	memcpy(xy + 100, y, 120);
	errno = 0;
	CU_ASSERT_EQUAL(ring_append(&s, p, xy, 220, &base, &next), -1);
	CU_ASSERT_EQUAL(errno, EAGAIN);
	CU_ASSERT_EQUAL(tail_now(), 1000);
	CU_ASSERT_EQUAL(p->next_offset, 5);
	CU_ASSERT_EQUAL(ring_peek(&s, p, &data), 800);
	CU_ASSERT_EQUAL(ring_append(&s, p, x, 100, &base, &next), 0);
	CU_ASSERT_EQUAL(base, 5);
	CU_ASSERT_EQUAL(next, 6);
	CU_ASSERT_EQUAL(tail_now(), R + 100);
	CU_ASSERT_EQUAL(ring_free(&s, p), R - (R + 100 - 200));

	/* More than half the ring can never be placed. */
	huge = make_sized(R / 2 + 8, 4);
	errno = 0;
	CU_ASSERT_EQUAL(ring_append(&s, p, huge, R / 2 + 8, &base, &next), -1);
	CU_ASSERT_EQUAL(errno, EMSGSIZE);
	{
		uint8_t three[600];

		for (i = 0; i < 3; i++)
			memcpy(three + 200 * i, b200, 200);
		errno = 0;
		CU_ASSERT_EQUAL(ring_append(&s, p, three, 600, &base, &next), -1);
		CU_ASSERT_EQUAL(errno, EMSGSIZE);
	}

	/* Not whole batches. */
	errno = 0;
	CU_ASSERT_EQUAL(ring_append(&s, p, b200, 199, &base, &next), -1);
	CU_ASSERT_EQUAL(errno, EINVAL);
	errno = 0;
	CU_ASSERT_EQUAL(ring_append(&s, p, b200, 0, &base, &next), -1);
	CU_ASSERT_EQUAL(errno, EINVAL);
	errno = 0;
	CU_ASSERT_EQUAL(ring_append(&s, p, b200, 40, &base, &next), -1);
	CU_ASSERT_EQUAL(errno, EINVAL);
	CU_ASSERT_EQUAL(p->next_offset, 6);
	fixture_region_done(&s);

	/*
	 * Exactly half always fits once the ring drains, wherever head and
	 * tail happen to be.
	 */
	half = make_sized(R / 2, 5);
	for (i = 0; i < 12; i++) {
		size_t pre = 61 + (size_t)(test_rand() % (R / 2 - 61));
		uint8_t *b = make_sized(pre, 6);

		region(R);
		CU_ASSERT_EQUAL(ring_append(&s, p, b, pre, &base, &next), 0);
		CU_ASSERT_EQUAL(ring_append(&s, p, b, pre, &base, &next), 0);
		while ((n = ring_peek(&s, p, &data)) > 0)
			ring_release(&s, p, n);
		CU_ASSERT_EQUAL(ring_append(&s, p, half, R / 2, &base, &next), 0);
		CU_ASSERT_EQUAL(base, 2);
		n = ring_peek(&s, p, &data);
		CU_ASSERT_EQUAL(n, R / 2);
		if (n == R / 2)
			assert_batch(data, half, R / 2, 2);
		fixture_region_done(&s);
		free(b);
	}
	free(half);
	free(huge);
	free(xy);
	free(x);
	free(y);
	free(b200);
}

/* Whatever the bytes at head are, peek never reads outside the ring. */
static void
test_damaged(void)
{
	uint8_t *ring, *b, *data;
	int64_t base, next;

	region(R);
	ring = shm_ring_data(&s, p);
	b = make_sized(200, 1);
	CU_ASSERT_EQUAL(ring_append(&s, p, b, 200, &base, &next), 0);
	be32_put(ring + 8, 10);			/* batchLength below a header */
	CU_ASSERT_EQUAL(ring_peek(&s, p, &data), 0);
	CU_ASSERT_EQUAL(ring_damaged(&s, p), 1);
	be32_put(ring + 8, 500);		/* past tail */
	CU_ASSERT_EQUAL(ring_peek(&s, p, &data), 0);
	CU_ASSERT_EQUAL(ring_damaged(&s, p), 1);
	be32_put(ring + 8, 188);
	CU_ASSERT_EQUAL(ring_peek(&s, p, &data), 200);
	CU_ASSERT_EQUAL(ring_damaged(&s, p), 0);

	atomic_store(&p->tail, R + 300);	/* more than the ring holds */
	CU_ASSERT_EQUAL(ring_peek(&s, p, &data), 0);
	CU_ASSERT_EQUAL(ring_damaged(&s, p), 1);
	CU_ASSERT_EQUAL(ring_free(&s, p), 0);
	errno = 0;
	CU_ASSERT_EQUAL(ring_append(&s, p, b, 200, &base, &next), -1);
	CU_ASSERT_EQUAL(errno, EPROTO);
	free(b);
	fixture_region_done(&s);
}

/*
 * Child: take the lock and die half-way through an append of b: before
 * the tail store (garbage copied, nothing published), or after it but
 * before next_offset.
 */
static void
die_appending(const uint8_t *b, size_t len, int after_tail)
{
	uint8_t *ring = shm_ring_data(&s, p);
	uint64_t tail;
	pid_t pid;
	int st;

	pid = fork();
	CU_ASSERT_FATAL(pid != -1);
	if (pid == 0) {
		if (part_lock(&s, p) != 0)
			_exit(1);
		tail = atomic_load(&p->tail);
		if (!after_tail) {
			memset(ring + tail % R, 0xab, len);
			_exit(0);
		}
		memcpy(ring + tail % R, b, len);
		be64_put(ring + tail % R, (uint64_t)p->next_offset);
		atomic_store(&p->tail, tail + len);
		_exit(0);
	}
	CU_ASSERT_EQUAL(waitpid(pid, &st, 0), pid);
	CU_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

/*
 * A producer that dies holding the lock does not stop the others, and
 * whatever instruction it died at, offsets stay without gap or reuse.
 */
static void
test_owner_dead(void)
{
	uint8_t *b, *three, *data;
	int64_t base, next;
	size_t n, l3;
	pid_t pid;
	int st;

	region(R);
	b = make_sized(150, 1);
	three = make_batch(3, 2, 0, 5, &l3);
	pid = fork();
	CU_ASSERT_FATAL(pid != -1);
	if (pid == 0) {
		if (lock_take(&p->lock, NULL, NULL) < 0)
			_exit(1);
		_exit(0);
	}
	CU_ASSERT_EQUAL(waitpid(pid, &st, 0), pid);
	CU_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	CU_ASSERT_EQUAL(ring_append(&s, p, b, 150, &base, &next), 0);
	CU_ASSERT_EQUAL(base, 0);
	CU_ASSERT_EQUAL(ring_append(&s, p, b, 150, &base, &next), 0);
	CU_ASSERT_EQUAL(base, 1);

	/* Died before the tail store: nothing visible, no offsets taken. */
	die_appending(three, l3, 0);
	CU_ASSERT_EQUAL(tail_now(), 300);
	CU_ASSERT_EQUAL(ring_append(&s, p, b, 150, &base, &next), 0);
	CU_ASSERT_EQUAL(base, 2);
	CU_ASSERT_EQUAL(next, 3);

	/* Died after publishing 3 records but before next_offset: repaired. */
	die_appending(three, l3, 1);
	CU_ASSERT_EQUAL(tail_now(), 450 + l3);
	CU_ASSERT_EQUAL(p->next_offset, 3);
	CU_ASSERT_EQUAL(ring_append(&s, p, b, 150, &base, &next), 0);
	CU_ASSERT_EQUAL(base, 6);
	CU_ASSERT_EQUAL(next, 7);
	n = ring_peek(&s, p, &data);
	CU_ASSERT_EQUAL_FATAL(n, 600 + l3);
	assert_batch(data, b, 150, 0);
	assert_batch(data + 150, b, 150, 1);
	assert_batch(data + 300, b, 150, 2);
	assert_batch(data + 450, three, l3, 3);
	assert_batch(data + 450 + l3, b, 150, 6);

	/*
	 * The same, but the writer consumed the dead producer's batch before
	 * anyone locked again: the repair goes by visible_offset.
	 */
	ring_release(&s, p, n);
	atomic_store(&p->visible_offset, 7);
	die_appending(three, l3, 1);
	CU_ASSERT_EQUAL(ring_peek(&s, p, &data), l3);
	assert_batch(data, three, l3, 7);
	atomic_store(&p->visible_offset, 10);
	ring_release(&s, p, l3);
	CU_ASSERT_EQUAL(p->next_offset, 7);
	CU_ASSERT_EQUAL(ring_append(&s, p, b, 150, &base, &next), 0);
	CU_ASSERT_EQUAL(base, 10);
	CU_ASSERT_EQUAL(next, 11);
	free(three);
	free(b);
	fixture_region_done(&s);
}

#define MP_BATCHES	30000	/* per producer, a multiple of 3 */
#define MP_RECORDS	(2 * MP_BATCHES)	/* 1, 2, 3 records in turn */
#define MP_RING		4096

/* Producer process: MP_BATCHES batches of 1-3 records, values tagged. */
static void
mp_producer(uint32_t tag)
{
	uint32_t seq = 0;
	uint64_t tries = 0;
	int64_t base, next;
	uint8_t *b;
	size_t len;
	int i, nrec;

	for (i = 0; i < MP_BATCHES; i++) {
		nrec = 1 + (i + (int)tag) % 3;
		b = make_batch(nrec, tag, seq, (size_t)((i * 7 + (int)tag * 13) % 150), &len);
		while (ring_append(&s, p, b, len, &base, &next) == -1) {
			if (errno != EAGAIN || ++tries > 50000000)
				_exit(3);
			sched_yield();
		}
		if (next - base != nrec)
			_exit(4);
		seq += (uint32_t)nrec;
		free(b);
	}
	_exit(0);
}

static int64_t
mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * Two producer processes race on one small ring while this process
 * drains it: offsets come out 0..total-1 with no gap or duplicate, every
 * batch is intact, and each producer's records arrive in its order.
 */
static void
test_multi_process(void)
{
	uint32_t want_seq[3] = { 0, 0, 0 }, tag, seq;
	int64_t expect = 0, deadline;
	uint64_t batches = 0;
	struct batch_iter it;
	struct record r;
	pid_t pids[2];
	int alive = 2, st, k, bad = 0, rc;
	uint8_t *data;
	size_t n, pos, sz;

	region(MP_RING);
	for (k = 0; k < 2; k++) {
		pids[k] = fork();
		CU_ASSERT_FATAL(pids[k] != -1);
		if (pids[k] == 0)
			mp_producer((uint32_t)k + 1);
	}
	deadline = mono_ms() + 60000;
	for (;;) {
		n = ring_peek(&s, p, &data);
		if (n == 0) {
			CU_ASSERT_EQUAL(ring_damaged(&s, p), 0);
			if (alive == 0 && head_now() == tail_now())
				break;
			for (k = 0; k < 2; k++) {
				if (pids[k] > 0 && waitpid(pids[k], &st, WNOHANG) == pids[k]) {
					CU_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 0);
					pids[k] = 0;
					alive--;
				}
			}
			if (mono_ms() > deadline) {
				CU_FAIL("producers did not finish");
				break;
			}
			sched_yield();
			continue;
		}
		for (pos = 0; pos < n; pos += sz) {
			sz = 12 + be32_get(data + pos + 8);
			CU_ASSERT_FATAL(sz <= n - pos);
			rc = batch_validate(data + pos, sz, NULL);
			if (rc != BATCH_OK || batch_base_offset(data + pos) != expect) {
				bad++;
				break;
			}
			CU_ASSERT_FATAL(batch_iter_init(&it, data + pos, sz) == 0);
			while (batch_iter_next(&it, &r) == 1) {
				if (r.offset != expect || r.value_len < 8) {
					bad++;
					break;
				}
				tag = be32_get(r.value);
				seq = be32_get(r.value + 4);
				if (tag < 1 || tag > 2 || seq != want_seq[tag]) {
					bad++;
					break;
				}
				want_seq[tag]++;
				expect++;
			}
			batches++;
		}
		CU_ASSERT_EQUAL_FATAL(bad, 0);
		ring_release(&s, p, n);
	}
	for (k = 0; k < 2; k++)
		if (pids[k] > 0) {
			kill(pids[k], SIGKILL);
			waitpid(pids[k], &st, 0);
		}
	CU_ASSERT_EQUAL(batches, 2 * MP_BATCHES);
	CU_ASSERT_EQUAL(want_seq[1], MP_RECORDS);
	CU_ASSERT_EQUAL(want_seq[2], MP_RECORDS);
	CU_ASSERT_EQUAL(expect, 2 * MP_RECORDS);
	CU_ASSERT_EQUAL(p->next_offset, 2 * MP_RECORDS);
	CU_ASSERT_EQUAL(atomic_load(&p->msgs_in), 2 * MP_RECORDS);
	/* The ring wrapped many times. */
	CU_ASSERT(tail_now() > 20 * MP_RING);
	fixture_region_done(&s);
}

/*
 * Topic deletion: a DELETING topic is not found, its ring refuses
 * appends (ENOENT) at once; once freed, a create of no more partitions
 * reuses the entry and the slot, empty from offset 0.
 */
static void
test_delete_reuse(void)
{
	uint8_t *a;
	size_t la;
	int64_t base, next;
	uint32_t inc;

	region(R);
	a = make_batch(3, 1, 0, 0, &la);
	CU_ASSERT_EQUAL(ring_append(&s, p, a, la, &base, &next), 0);
	CU_ASSERT_EQUAL(next, 3);
	inc = atomic_load(&p->incarnation);

	errno = 0;
	CU_ASSERT_EQUAL(shm_topic_delete_begin(&s, "u", 1), -1);
	CU_ASSERT_EQUAL(errno, ENOENT);
	CU_ASSERT_EQUAL(shm_topic_delete_begin(&s, "t", 1), 0);
	CU_ASSERT_EQUAL(atomic_load(&s.topics[0].state), TOPIC_DELETING);
	CU_ASSERT_EQUAL(shm_topic_find(&s, "t", 1), -1);
	CU_ASSERT_PTR_NULL(shm_partition(&s, 0, 0));
	CU_ASSERT_EQUAL(atomic_load(&p->incarnation), inc + 1);
	errno = 0;
	CU_ASSERT_EQUAL(ring_append(&s, p, a, la, &base, &next), -1);
	CU_ASSERT_EQUAL(errno, ENOENT);
	CU_ASSERT_EQUAL(tail_now(), la);
	/* Deleted twice: the second one finds nothing. */
	CU_ASSERT_EQUAL(shm_topic_delete_begin(&s, "t", 1), -1);
	/* A create of that name waits for the delete to finish. */
	errno = 0;
	CU_ASSERT_EQUAL(shm_topic_create(&s, "t", 1, 1, NULL), -1);
	CU_ASSERT_EQUAL(errno, EEXIST);

	shm_topic_delete_end(&s, 0);
	CU_ASSERT_EQUAL(atomic_load(&s.topics[0].state), TOPIC_FREE);
	CU_ASSERT_EQUAL(head_now(), 0);
	CU_ASSERT_EQUAL(tail_now(), 0);
	CU_ASSERT_EQUAL(p->next_offset, 0);
	CU_ASSERT_EQUAL(atomic_load(&p->incarnation), inc + 1);

	/* Three partitions fit nowhere: two slots in all. */
	errno = 0;
	CU_ASSERT_EQUAL(shm_topic_create(&s, "w", 1, 3, NULL), -1);
	CU_ASSERT_EQUAL(errno, ENOSPC);
	CU_ASSERT_EQUAL(shm_topic_create(&s, "t", 1, 1, NULL), 0);
	CU_ASSERT_EQUAL(atomic_load(&s.hdr->topic_count), 1);
	CU_ASSERT_EQUAL(atomic_load(&s.hdr->parts_used), 1);
	CU_ASSERT_PTR_EQUAL(shm_partition(&s, 0, 0), p);
	CU_ASSERT_EQUAL(atomic_load(&p->dead), 0);
	/*
	 * A produce that resolved the old topic and lost the race with the
	 * delete and the create: refused under the lock, nothing written.
	 */
	errno = 0;
	base = next = -7;
	CU_ASSERT_EQUAL(ring_append_hooked(&s, p, inc, a, la, NULL, &base,
	    &next), -1);
	CU_ASSERT_EQUAL(errno, ENOENT);
	CU_ASSERT_EQUAL(tail_now(), 0);
	CU_ASSERT_EQUAL(p->next_offset, 0);
	CU_ASSERT_EQUAL(atomic_load(&p->msgs_in), 0);
	CU_ASSERT_EQUAL(base, -7);
	CU_ASSERT_EQUAL(next, -7);
	/* The new topic's own incarnation appends. */
	CU_ASSERT_EQUAL(ring_append_hooked(&s, p, inc + 1, a, la, NULL, &base,
	    &next), 0);
	CU_ASSERT_EQUAL(base, 0);
	CU_ASSERT_EQUAL(next, 3);
	CU_ASSERT_EQUAL(tail_now(), la);
	CU_ASSERT_EQUAL(ring_append(&s, p, a, la, &base, &next), 0);
	CU_ASSERT_EQUAL(base, 3);
	CU_ASSERT_EQUAL(next, 6);
	/* The remaining slot goes to a new entry after it. */
	CU_ASSERT_EQUAL(shm_topic_create(&s, "v", 1, 1, NULL), 1);
	CU_ASSERT_EQUAL(s.topics[1].first_part, 1);
	free(a);
	fixture_region_done(&s);
}

/*
 * A partition lock nobody can take any more (ENOTRECOVERABLE: a locker
 * found its owner dead and let go without making it consistent).  No
 * append can enter, and the delete must still say so: the slot is dead,
 * its incarnation bumped (groups and parked requests go by it), and the
 * end of the delete gives a re-created topic a slot that works.
 */
static void
test_delete_lock_broken(void)
{
	uint8_t *a;
	size_t la;
	int64_t base, next;
	uint32_t inc;
	pid_t pid;
	int st;

	region(R);
	a = make_batch(3, 1, 0, 0, &la);
	CU_ASSERT_EQUAL(ring_append(&s, p, a, la, &base, &next), 0);
	inc = atomic_load(&p->incarnation);
	pid = fork();
	CU_ASSERT_FATAL(pid != -1);
	if (pid == 0) {
		if (lock_take(&p->lock, NULL, NULL) < 0)
			_exit(1);
		_exit(0);
	}
	CU_ASSERT_EQUAL(waitpid(pid, &st, 0), pid);
	CU_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	CU_ASSERT_EQUAL_FATAL(pthread_mutex_lock(&p->lock), EOWNERDEAD);
	pthread_mutex_unlock(&p->lock);
	errno = 0;
	CU_ASSERT_EQUAL(part_lock(&s, p), -1);
	CU_ASSERT_EQUAL(errno, ENOTRECOVERABLE);

	CU_ASSERT_EQUAL(shm_topic_delete_begin(&s, "t", 1), 0);
	CU_ASSERT_EQUAL(atomic_load(&p->dead), 1);
	CU_ASSERT_EQUAL(atomic_load(&p->incarnation), inc + 1);
	CU_ASSERT_EQUAL(ring_append_hooked(&s, p, inc, a, la, NULL, &base,
	    &next), -1);
	CU_ASSERT_EQUAL(tail_now(), la);

	shm_topic_delete_end(&s, 0);
	CU_ASSERT_EQUAL(atomic_load(&s.topics[0].state), TOPIC_FREE);
	CU_ASSERT_EQUAL(atomic_load(&p->incarnation), inc + 1);
	CU_ASSERT_EQUAL(head_now(), 0);
	CU_ASSERT_EQUAL(tail_now(), 0);
	CU_ASSERT_EQUAL(p->next_offset, 0);
	CU_ASSERT_EQUAL(shm_topic_create(&s, "t", 1, 1, NULL), 0);
	CU_ASSERT_PTR_EQUAL(shm_partition(&s, 0, 0), p);
	base = next = -7;
	CU_ASSERT_EQUAL(ring_append_hooked(&s, p, inc + 1, a, la, NULL, &base,
	    &next), 0);
	CU_ASSERT_EQUAL(base, 0);
	CU_ASSERT_EQUAL(next, 3);
	CU_ASSERT_EQUAL(tail_now(), la);
	free(a);
	fixture_region_done(&s);
}

TEST_SUITE("ring", NULL, teardown,
	{ "delete_reuse", test_delete_reuse },
	{ "delete_lock_broken", test_delete_lock_broken },
	{ "append_peek_release", test_append_peek_release },
	{ "wrap_marker", test_wrap_marker },
	{ "wrap_slack", test_wrap_slack },
	{ "full_and_limits", test_full_and_limits },
	{ "damaged", test_damaged },
	{ "owner_dead", test_owner_dead },
	{ "multi_process", test_multi_process });
