/*
 * Partition rings: many producers (workers, under the partition lock),
 * one consumer (the writer, lock-free).
 *
 * Positions head and tail count bytes since the partition was created;
 * the byte at position x lives at ring[x % ring_size], and the ring holds
 * tail - head bytes.  Producers own tail and the bytes in [tail, head +
 * ring_size); the writer owns head and the bytes in [head, tail).  Each
 * side acquire-loads the other's position before touching bytes and
 * release-stores its own after, so the writer never reads half-copied
 * bytes and a producer never overwrites bytes the writer still reads.
 *
 * A batch never wraps.  When one does not fit before the end of the
 * ring, the rest is skipped: 12 bytes or more get a skip marker
 * (baseOffset -1, batchLength = bytes left - 12), fewer are slack that
 * the reader skips by rule (no batch is that small).
 *
 * An append larger than half the ring could never be placed: with head
 * and tail at the same unlucky position it fits neither before the end
 * nor after a skip, and only producers move tail.  Anything up to half
 * always fits once the ring drains (the config keeps max_message_bytes
 * at most ring_size / 2 for this reason).
 */
#include <errno.h>
#include <string.h>

#include "proto/batch.h"
#include "proto/bytes.h"
#include "shm/producer.h"
#include "shm/lock.h"
#include "shm/ring.h"

#define RING_SKIP_OFFSET	UINT64_MAX	/* baseOffset -1 as stored */

/*
 * Walk the caller's buffer: every batch whole, at least a header long,
 * with a sane lastOffsetDelta.  Counts the offsets and records it takes.
 */
static int
ring_scan(const uint8_t *buf, size_t len, int64_t *noffsets, uint64_t *nrecords)
{
	size_t pos = 0, sz;
	int32_t delta, count;
	int64_t offs = 0;
	uint64_t recs = 0;

	while (pos < len) {
		if (len - pos < BATCH_HEADER_SIZE)
			return -1;
		sz = BATCH_LOG_OVERHEAD + (size_t)be32_get(buf + pos + BATCH_OFF_LENGTH);
		delta = (int32_t)be32_get(buf + pos + BATCH_OFF_LAST_DELTA);
		count = (int32_t)be32_get(buf + pos + BATCH_OFF_COUNT);
		if (sz < BATCH_HEADER_SIZE || sz > len - pos || delta < 0)
			return -1;
		offs += (int64_t)delta + 1;
		if (count > 0)
			recs += (uint64_t)count;
		pos += sz;
	}
	*noffsets = offs;
	*nrecords = recs;
	return len > 0 ? 0 : -1;
}

/* Ring bytes needed to place the batches at position tail (skips included). */
static uint64_t
ring_plan(const uint8_t *buf, size_t len, uint64_t tail, uint64_t rsize)
{
	uint64_t pos = tail, left;
	size_t off = 0, sz;

	while (off < len) {
		sz = BATCH_LOG_OVERHEAD + (size_t)be32_get(buf + off + BATCH_OFF_LENGTH);
		left = rsize - pos % rsize;
		if (sz > left)
			pos += left;
		pos += sz;
		off += sz;
	}
	return pos - tail;
}

/*
 * After a holder of the partition lock died: the offset after the last
 * batch published, from the ring's own bytes, or from visible_offset
 * when the writer has consumed everything (it publishes visible_offset
 * before it frees ring space).  Only ever raises next_offset, so a
 * damaged ring can cost a gap but never reuse an offset.
 */
static void
ring_repair(struct shm *s, struct shm_partition *p)
{
	uint64_t rsize = s->hdr->limits.ring_size;
	const uint8_t *ring = shm_ring_data(s, p);
	uint64_t head, tail, pos, idx, left, sz;
	int64_t end, base;

	tail = atomic_load_explicit(&p->tail, memory_order_relaxed);
	head = atomic_load_explicit(&p->head, memory_order_acquire);
	end = atomic_load_explicit(&p->visible_offset, memory_order_acquire);
	if (tail < head || tail - head > rsize)
		return;
	/* Producers are locked out, so [head, tail) holds still while read. */
	for (pos = head; pos < tail; pos += sz) {
		idx = pos % rsize;
		left = rsize - idx;
		if (left < BATCH_LOG_OVERHEAD ||
		    be64_get(ring + idx + BATCH_OFF_BASE_OFFSET) == RING_SKIP_OFFSET) {
			sz = left;
			continue;
		}
		sz = BATCH_LOG_OVERHEAD + (uint64_t)be32_get(ring + idx + BATCH_OFF_LENGTH);
		if (sz < BATCH_HEADER_SIZE || sz > left || sz > tail - pos)
			break;
		base = (int64_t)be64_get(ring + idx + BATCH_OFF_BASE_OFFSET);
		end = base + (int32_t)be32_get(ring + idx + BATCH_OFF_LAST_DELTA) + 1;
	}
	if (end > p->next_offset)
		__atomic_store_n(&p->next_offset, end, __ATOMIC_RELEASE);
	/* Sequence records of an append that never published its tail. */
	producer_repair(s, p);
}

struct part_ref {
	struct shm		*s;
	struct shm_partition	*p;
};

static void
part_repair(void *arg)
{
	struct part_ref *r = arg;

	ring_repair(r->s, r->p);
}

int
part_lock(struct shm *s, struct shm_partition *p)
{
	struct part_ref r = { s, p };

	return lock_take(&p->lock, part_repair, &r) == -1 ? -1 : 0;
}

void
part_unlock(struct shm_partition *p)
{
	lock_release(&p->lock);
}

int
ring_append(struct shm *s, struct shm_partition *p, const uint8_t *batches,
    size_t len, int64_t *base_offset, int64_t *next_offset)
{
	return ring_append_hooked(s, p, atomic_load_explicit(&p->incarnation,
	    memory_order_acquire), batches, len, NULL, base_offset, next_offset);
}

int
ring_append_hooked(struct shm *s, struct shm_partition *p, uint32_t inc,
    const uint8_t *batches, size_t len, const struct ring_hook *h,
    int64_t *base_offset, int64_t *next_offset)
{
	uint64_t rsize = s->hdr->limits.ring_size;
	uint8_t *ring = shm_ring_data(s, p);
	uint64_t head, tail, pos, left, idx, nrecords;
	int64_t noffsets, base, next;
	size_t off, sz;
	int rc;

	if (batches == NULL || ring_scan(batches, len, &noffsets, &nrecords) == -1) {
		errno = EINVAL;
		return -1;
	}
	if (len > rsize / 2) {
		errno = EMSGSIZE;
		return -1;
	}
	if (part_lock(s, p) == -1)
		return -1;
	/*
	 * Its topic is being deleted (shm/shm.h): nothing enters any more;
	 * or it was deleted and the slot re-created after the caller looked,
	 * which only the incarnation, bumped under this lock, can tell.
	 */
	if (atomic_load_explicit(&p->dead, memory_order_relaxed) != 0 ||
	    atomic_load_explicit(&p->incarnation, memory_order_relaxed) != inc) {
		part_unlock(p);
		errno = ENOENT;
		return -1;
	}
	tail = atomic_load_explicit(&p->tail, memory_order_relaxed);
	head = atomic_load_explicit(&p->head, memory_order_acquire);
	if (tail < head || tail - head > rsize) {
		part_unlock(p);
		errno = EPROTO;
		return -1;
	}
	if (h != NULL && (rc = h->check(s, p, h->arg)) != 0) {
		part_unlock(p);
		return rc;
	}
	if (ring_plan(batches, len, tail, rsize) > rsize - (tail - head)) {
		part_unlock(p);
		errno = EAGAIN;
		return -1;
	}

	if (p->next_offset < 0 || p->next_offset > INT64_MAX - noffsets) {
		part_unlock(p);
		errno = EOVERFLOW;
		return -1;
	}
	base = next = p->next_offset;
	pos = tail;
	for (off = 0; off < len; off += sz) {
		sz = BATCH_LOG_OVERHEAD + (size_t)be32_get(batches + off + BATCH_OFF_LENGTH);
		idx = pos % rsize;
		left = rsize - idx;
		if (sz > left) {
			if (left >= BATCH_LOG_OVERHEAD) {
				be64_put(ring + idx, RING_SKIP_OFFSET);
				be32_put(ring + idx + BATCH_OFF_LENGTH,
				    (uint32_t)(left - BATCH_LOG_OVERHEAD));
			}
			pos += left;
			idx = 0;
		}
		memcpy(ring + idx, batches + off, sz);
		be64_put(ring + idx + BATCH_OFF_BASE_OFFSET, (uint64_t)next);
		next += (int64_t)be32_get(batches + off + BATCH_OFF_LAST_DELTA) + 1;
		pos += sz;
	}
	/*
	 * tail, then next_offset.  Dying before the tail store publishes
	 * nothing and takes no offsets.  Dying between the two leaves
	 * next_offset behind the ring, which part_lock() repairs from the
	 * ring; the other order would leave a gap, which the log refuses.
	 * The tail store is seq_cst (not only release) so that the caller's
	 * following load of writer_sleeping cannot be ordered before it: the
	 * writer stores writer_sleeping, then re-reads every tail.
	 */
	if (h != NULL)
		h->record(s, p, h->arg, base, next, pos);
	atomic_store_explicit(&p->tail, pos, memory_order_seq_cst);
	__atomic_store_n(&p->next_offset, next, __ATOMIC_RELEASE);
	part_unlock(p);

	atomic_fetch_add_explicit(&p->msgs_in, nrecords, memory_order_relaxed);
	atomic_fetch_add_explicit(&p->bytes_in, len, memory_order_relaxed);
	if (base_offset != NULL)
		*base_offset = base;
	if (next_offset != NULL)
		*next_offset = next;
	return 0;
}

uint64_t
ring_free(const struct shm *s, const struct shm_partition *p)
{
	uint64_t rsize = s->hdr->limits.ring_size;
	uint64_t head = atomic_load_explicit(&p->head, memory_order_acquire);
	uint64_t tail = atomic_load_explicit(&p->tail, memory_order_acquire);

	if (tail < head || tail - head > rsize)
		return 0;
	return rsize - (tail - head);
}

/*
 * The run of whole batches at head, after skipping a marker or slack.
 * *bad is set when the ring holds bytes but they are not a batch (a bug
 * or a damaged region): every length is checked against the ring end and
 * tail, so even then nothing outside the ring is read.
 */
static size_t
ring_run(struct shm *s, struct shm_partition *p, uint8_t **data, int *bad)
{
	uint64_t rsize = s->hdr->limits.ring_size;
	uint8_t *ring = shm_ring_data(s, p);
	uint64_t head, tail, idx, left, avail, n, sz;
	int skips;

	*bad = 0;
	*data = NULL;
	head = atomic_load_explicit(&p->head, memory_order_relaxed);
	tail = atomic_load_explicit(&p->tail, memory_order_acquire);
	/* After one skip head is at index 0, where no skip is ever placed. */
	for (skips = 0;; skips++) {
		if (head == tail)
			return 0;
		if (tail < head || tail - head > rsize || skips > 1)
			goto damaged;
		idx = head % rsize;
		left = rsize - idx;
		if (left >= BATCH_LOG_OVERHEAD &&
		    be64_get(ring + idx + BATCH_OFF_BASE_OFFSET) != RING_SKIP_OFFSET)
			break;
		if (left > tail - head)
			goto damaged;
		head += left;
		atomic_store_explicit(&p->head, head, memory_order_release);
	}

	avail = tail - head < left ? tail - head : left;
	for (n = 0; n < avail; n += sz) {
		if (avail - n < BATCH_LOG_OVERHEAD ||
		    be64_get(ring + idx + n + BATCH_OFF_BASE_OFFSET) == RING_SKIP_OFFSET)
			break;
		sz = BATCH_LOG_OVERHEAD + (uint64_t)be32_get(ring + idx + n + BATCH_OFF_LENGTH);
		if (sz < BATCH_HEADER_SIZE || sz > avail - n)
			break;
	}
	if (n == 0)
		goto damaged;
	*data = ring + idx;
	return (size_t)n;

damaged:
	*bad = 1;
	return 0;
}

size_t
ring_peek(struct shm *s, struct shm_partition *p, uint8_t **data)
{
	int bad;

	return ring_run(s, p, data, &bad);
}

int
ring_damaged(struct shm *s, struct shm_partition *p)
{
	uint8_t *data;
	int bad;

	ring_run(s, p, &data, &bad);
	return bad;
}

void
ring_release(struct shm *s, struct shm_partition *p, size_t n)
{
	uint64_t head = atomic_load_explicit(&p->head, memory_order_relaxed);

	atomic_store_explicit(&p->head, head + n, memory_order_release);
}
