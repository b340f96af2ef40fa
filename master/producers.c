/*
 * Rebuilding the idempotent producers' table from the logs (see
 * producers.h and shm/producer.h).  Only headers are read: a batch
 * carries producerId, producerEpoch, baseSequence and lastOffsetDelta,
 * which with its baseOffset is all a sequence record holds.
 */
#include <errno.h>
#include <unistd.h>

#include "master/producers.h"
#include "proto/batch.h"
#include "proto/bytes.h"
#include "shm/producer.h"

/*
 * plog_read from offset, stepping over the corrupt ranges start-up
 * recovery kept (a damaged batch with valid ones after it): their
 * sequences are lost, but those of the batches after them count, and
 * they are the newest.  sl->len 0 when nothing readable is left.
 */
static int
read_past_damage(struct plog *l, int64_t offset, int64_t end, size_t max,
    struct plog_slice *sl)
{
	while (plog_read(l, offset, end, max, sl) == -1) {
		if (errno != EBADMSG || sl->next_offset <= offset)
			return -1;
		offset = sl->next_offset;
		if (offset >= end) {
			sl->len = 0;
			return 0;
		}
	}
	return 0;
}

/* Bytes of whole batches from offset `from` to the end of l, up to cap. */
static int
scan_span(struct plog *l, int64_t from, int64_t end, uint64_t cap, uint64_t *bytes)
{
	struct plog_slice sl;
	int64_t off = from;

	*bytes = 0;
	while (off < end && *bytes <= cap) {
		if (read_past_damage(l, off, end, (size_t)(cap + 1 - *bytes),
		    &sl) == -1)
			return -1;
		if (sl.len == 0 || sl.next_offset <= off)
			break;
		*bytes += sl.len;
		off = sl.next_offset;
	}
	return 0;
}

/* Record the idempotent batches of one slice. */
static int
scan_slice(struct shm *s, struct shm_partition *p, const struct plog_slice *sl,
    int *n)
{
	uint8_t h[BATCH_HEADER_SIZE];
	struct producer_seq q;
	off_t pos = sl->pos, end = sl->pos + (off_t)sl->len;
	uint64_t sz;
	int32_t delta;
	ssize_t r;

	while (end - pos >= BATCH_HEADER_SIZE) {
		r = pread(sl->fd, h, sizeof(h), pos);
		if (r != (ssize_t)sizeof(h)) {
			if (r >= 0)
				errno = EIO;
			return -1;
		}
		sz = BATCH_LOG_OVERHEAD + (uint64_t)be32_get(h + BATCH_OFF_LENGTH);
		if (sz < BATCH_HEADER_SIZE || sz > (uint64_t)(end - pos)) {
			errno = EIO;
			return -1;
		}
		q.txn = 0;	/* transactions: master/txnpart.c */
		q.pid = (int64_t)be64_get(h + BATCH_OFF_PRODUCER_ID);
		q.epoch = (int16_t)be16_get(h + BATCH_OFF_PRODUCER_EPOCH);
		q.first_seq = (int32_t)be32_get(h + BATCH_OFF_BASE_SEQUENCE);
		delta = (int32_t)be32_get(h + BATCH_OFF_LAST_DELTA);
		if (q.pid >= 0 && q.epoch >= 0 && q.first_seq >= 0 && delta >= 0) {
			q.last_seq = (int32_t)(((int64_t)q.first_seq + delta) %
			    ((int64_t)INT32_MAX + 1));
			producer_id_raise(s, q.pid);
			/* A batch of an older epoch than the one seen is stale. */
			if (producer_check(s, p, &q, &(int64_t){0},
			    &(int64_t){0}) != PRODUCER_FENCED) {
				producer_record(s, p, &q,
				    (int64_t)be64_get(h + BATCH_OFF_BASE_OFFSET),
				    (int64_t)be64_get(h + BATCH_OFF_BASE_OFFSET) +
				    delta + 1, 0);
				(*n)++;
			}
		}
		pos += (off_t)sz;
	}
	return 0;
}

int
producers_rebuild(struct shm *s, struct shm_partition *p, struct plog *l)
{
	struct plog_slice sl;
	int64_t start = plog_start_offset(l), end = plog_end_offset(l);
	int64_t from, cand, span;
	uint64_t bytes;
	int n = 0;

	if (end <= start)
		return 0;
	/* The earliest offset whose tail fits the budget, by growing steps. */
	from = end - 1;
	for (span = 64;; span *= 8) {
		cand = end - start > span ? end - span : start;
		if (scan_span(l, cand, end, PRODUCERS_SCAN_BYTES, &bytes) == -1)
			return -1;
		if (bytes > PRODUCERS_SCAN_BYTES && from != end - 1)
			break;
		from = cand;
		if (cand == start || bytes > PRODUCERS_SCAN_BYTES ||
		    span > INT64_MAX / 8)
			break;
	}
	while (from < end) {
		if (read_past_damage(l, from, end, 1u << 20, &sl) == -1)
			return -1;
		if (sl.len == 0 || sl.next_offset <= from)
			break;
		if (scan_slice(s, p, &sl, &n) == -1)
			return -1;
		from = sl.next_offset;
	}
	return n;
}
