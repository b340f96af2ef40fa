/*
 * Produce (worker/op/produce.h): ring append, backpressure, acks, dedup.
 */
#include <stdatomic.h>
#include <string.h>

#include "common/clock.h"
#include "common/config.h"
#include "common/log.h"
#include "proto/batch.h"
#include "proto/batch_codec.h"
#include "proto/bytes.h"
#include "shm/ring.h"
#include "shm/shm.h"
#include "store/topic.h"
#include "worker/op/inflate.h"
#include "worker/op/access.h"
#include "worker/op/part.h"
#include "worker/op/produce.h"
#include "worker/op/producer.h"
#include "worker/op/txn.h"
#include "worker/op/tconf.h"
#include "worker/worker.h"

/*
 * Check every batch in records.  Compressed batches are inflated into
 * the worker's one buffer (worker/op/inflate.h).
 */
static enum op_err
records_validate(const struct config *conf, const uint8_t *p, size_t len,
    int keyed)
{
	struct compress_buf *z = inflate_scratch(conf);
	struct batch_iter it;
	struct record r;
	size_t off = 0, total;
	uint32_t blen;
	int rc;

	if (len == 0)
		return OP_BAD_BATCH;
	while (off < len) {
		if (len - off < BATCH_HEADER_SIZE)
			return OP_BAD_BATCH;
		blen = be32_get(p + off + BATCH_OFF_LENGTH);
		if (blen > len - off - BATCH_LOG_OVERHEAD)
			return OP_BAD_BATCH;
		total = BATCH_LOG_OVERHEAD + (size_t)blen;
		rc = batch_validate_z(p + off, total, NULL, z);
		if (rc == BATCH_ETOOBIG || rc == BATCH_EINFLATE ||
		    rc == BATCH_ENOMEM || rc == BATCH_ECOMPRESSION)
			log_warnx("produce: compressed batch refused: %s "
			    "(inflate limit %zu bytes)", batch_strerror(rc),
			    z->limit);
		if (rc == BATCH_ECOMPRESSION)
			return OP_BAD_COMPRESSION;
		if (rc == BATCH_ETOOBIG)
			return OP_TOO_LARGE;
		if (rc == BATCH_ENOMEM)
			return OP_NO_MEMORY;
		if (rc != BATCH_OK)
			return OP_BAD_BATCH;
		/* A compacted topic keeps the latest record of each key: Kafka
		 * refuses one without a key (INVALID_RECORD). */
		if (keyed) {
			if (batch_iter_init_z(&it, p + off, total, z) != BATCH_OK)
				return OP_BAD_BATCH;
			while ((rc = batch_iter_next(&it, &r)) == 1)
				if (r.key_len < 0)
					return OP_KEYLESS;
		}
		off += total;
	}
	return OP_OK;
}

/*
 * message_timestamp_type = log_append: every batch of records gets the
 * broker's time as its maxTimestamp and the LogAppendTime attribute bit,
 * and a new CRC-32C, before it reaches the ring (the batches were just
 * validated, so their lengths hold).  The records' own deltas stay as
 * the producer wrote them; readers take maxTimestamp as every record's.
 */
static void
produce_stamp(const struct tconf *tc, const struct op_produce_part *pp)
{
	uint8_t *p = (uint8_t *)(uintptr_t)pp->records;
	size_t off = 0, total, len = pp->records_len;
	int64_t now;

	if (tc->v[TC_TS_TYPE] != TCONF_TS_LOG_APPEND)
		return;
	now = clock_real_ms();
	while (off < len) {
		total = BATCH_LOG_OVERHEAD +
		    (size_t)be32_get(p + off + BATCH_OFF_LENGTH);
		batch_set_log_append_time(p + off, total, now);
		off += total;
	}
}

/*
 * CreateTime topics: every batch's first and largest timestamps within
 * message.timestamp.before.max.ms and after.max.ms of now (Kafka checks
 * each record; a batch's records lie between those two).  OP_OK or
 * OP_BAD_TIMESTAMP.
 */
static enum op_err
produce_timestamps(const struct tconf *tc, const struct op_produce_part *pp)
{
	const uint8_t *p = pp->records;
	int64_t before = tc->v[TC_TS_BEFORE_MAX_MS];
	int64_t after = tc->v[TC_TS_AFTER_MAX_MS];
	int64_t now, ts[2];
	size_t off = 0, len = pp->records_len;
	int i;

	if (tc->v[TC_TS_TYPE] != TCONF_TS_CREATE ||
	    (before == INT64_MAX && after == INT64_MAX))
		return OP_OK;
	now = clock_real_ms();
	while (off < len) {
		ts[0] = (int64_t)be64_get(p + off + BATCH_OFF_FIRST_TS);
		ts[1] = (int64_t)be64_get(p + off + BATCH_OFF_MAX_TS);
		for (i = 0; i < 2; i++) {
			/* -1: no timestamp (a converted magic 0 set). */
			if (ts[i] < 0)
				continue;
			if ((before != INT64_MAX && ts[i] < now - before) ||
			    (after != INT64_MAX && ts[i] > now + after))
				return OP_BAD_TIMESTAMP;
		}
		off += BATCH_LOG_OVERHEAD +
		    (size_t)be32_get(p + off + BATCH_OFF_LENGTH);
	}
	return OP_OK;
}

/*
 * A topic whose compression.type names a codec stores every batch in it:
 * a batch that came in another codec is inflated (bounded, as validation
 * did) and compressed again into request memory, *recs pointing there;
 * otherwise *recs is the request's own.  OP_OK, OP_NO_MEMORY, or
 * OP_BAD_COMPRESSION for a codec this build cannot write.
 */
static enum op_err
produce_recompress(const struct op_ctx *x, const struct tconf *tc,
    const struct op_produce_part *pp, const uint8_t **recs, size_t *len)
{
	static struct compress_buf deflated, out;
	const uint8_t *p = pp->records;
	size_t off = 0, total;
	int64_t want = tc->v[TC_COMPRESSION_TYPE];
	int codec, rc, changed = 0;
	uint8_t *copy;

	*recs = pp->records;
	*len = pp->records_len;
	if (want == TCONF_CODEC_PRODUCER)
		return OP_OK;
	codec = want == TCONF_CODEC_UNCOMPRESSED ? COMPRESS_NONE : (int)want;
	out.len = 0;
	while (off < pp->records_len) {
		total = BATCH_LOG_OVERHEAD +
		    (size_t)be32_get(p + off + BATCH_OFF_LENGTH);
		if (batch_codec(p + off) == codec) {
			/* Kept as it came: copied only if another one changes. */
			rc = batch_recompress_keep(p + off, total, &out);
		} else {
			rc = batch_recompress(p + off, total, codec,
			    inflate_scratch(x->w->conf), &deflated, &out);
			changed = 1;
		}
		if (rc == COMPRESS_ECODEC)
			return OP_BAD_COMPRESSION;
		if (rc != COMPRESS_OK)
			return rc == COMPRESS_ENOMEM ? OP_NO_MEMORY : OP_BAD_BATCH;
		off += total;
	}
	if (!changed)
		return OP_OK;
	if ((copy = op_alloc(x, out.len)) == NULL)
		return OP_NO_MEMORY;
	memcpy(copy, out.buf, out.len);
	*recs = copy;
	*len = out.len;
	return OP_OK;
}

/* May part pp be appended?  Its partition into *out. */
static enum op_err
produce_check(const struct op_ctx *x, const struct op_produce_part *pp,
    struct shm_partition **out, const uint8_t **recs, size_t *rec_len)
{
	struct worker *w = x->w;
	struct shm_partition *p = NULL;
	struct tconf tc;
	enum op_err err;

	if ((err = op_access_topic(x, AUTH_PRODUCE, pp->topic,
	    pp->topic_len)) != OP_OK)
		return err;
	/* Kafka: "Cannot append to internal topic" (INVALID_TOPIC_EXCEPTION). */
	if (topic_name_reserved(pp->topic, pp->topic_len))
		return OP_RESERVED_TOPIC;
	if ((err = op_part_resolve(w, pp->topic, pp->topic_len, pp->partition,
	    1, &p)) != OP_OK)
		return err;
	/* The topic's settings (worker/op/tconf.h): its own over flume.conf's. */
	op_tconf_topic(w, (int)p->topic, &tc);
	if ((int64_t)pp->records_len > tc.v[TC_MAX_MESSAGE_BYTES])
		return OP_TOO_LARGE;
	if ((err = records_validate(w->conf, pp->records, pp->records_len,
	    (tc.v[TC_CLEANUP_POLICY] & TCONF_CLEANUP_COMPACT) != 0)) != OP_OK)
		return err;
	/* Transactions (worker/op/txn.h): markers are the broker's alone. */
	if ((err = op_txn_batches(w, (uint32_t)(p - w->shm->parts),
	    pp->records, pp->records_len)) != OP_OK)
		return err;
	if ((err = produce_timestamps(&tc, pp)) != OP_OK)
		return err;
	/* Stamped first: the request's own bytes say LogAppendTime too. */
	produce_stamp(&tc, pp);
	if ((err = produce_recompress(x, &tc, pp, recs, rec_len)) != OP_OK)
		return err;
	/*
	 * A resend of batches the partition has is answered with their
	 * offsets even now (for acks=all once they are durable): refusing
	 * it would report stored data as failed.
	 */
	if (atomic_load_explicit(&p->storage_error, memory_order_relaxed) != 0 &&
	    !op_producer_stored(w, p, pp->records, pp->records_len))
		return OP_STORAGE;
	*out = p;
	return OP_OK;
}

/* The state of a, every part checked (and refused or resolved). */
static struct op_produce_st *
produce_start(const struct op_ctx *x, const struct op_produce *a)
{
	struct op_produce_st *st;
	size_t n = a->count > 0 ? (size_t)a->count : 0;
	int32_t i;

	if ((st = op_alloc(x, sizeof(*st))) == NULL)
		return NULL;
	memset(st, 0, sizeof(*st));
	st->count = a->count > 0 ? a->count : 0;
	st->acks = a->acks;
	st->deadline = x->w->now + (a->timeout_ms > 0 ? a->timeout_ms :
	    OP_PRODUCE_DEFAULT_TIMEOUT);
	if (n > 0) {
		st->res = op_alloc(x, n * sizeof(*st->res));
		st->parts = op_alloc(x, n * sizeof(*st->parts));
		st->next = op_alloc(x, n * sizeof(*st->next));
		st->inc = op_alloc(x, n * sizeof(*st->inc));
		st->recs = op_alloc(x, n * sizeof(*st->recs));
		st->rec_lens = op_alloc(x, n * sizeof(*st->rec_lens));
		if (st->res == NULL || st->parts == NULL || st->next == NULL ||
		    st->inc == NULL || st->recs == NULL || st->rec_lens == NULL)
			return NULL;
	}
	for (i = 0; i < st->count; i++) {
		st->res[i].base_offset = -1;
		st->res[i].log_start = -1;
		st->next[i] = -1;
		st->parts[i] = NULL;
		st->inc[i] = 0;
		st->recs[i] = a->parts[i].records;
		st->rec_lens[i] = a->parts[i].records_len;
		st->res[i].err = produce_check(x, &a->parts[i], &st->parts[i],
		    &st->recs[i], &st->rec_lens[i]);
		if (st->res[i].err == OP_OK &&
		    (st->res[i].err = op_part_incarnation(x->w, st->parts[i],
		    &st->inc[i])) != OP_OK)
			st->parts[i] = NULL;
	}
	return st;
}

enum op_status
op_produce(const struct op_ctx *x, const struct op_produce *a,
    struct op_produce_st **stp, enum op_err *err)
{
	struct worker *w = x->w;
	struct op_produce_st *st = *stp;
	struct shm_partition *p;
	int64_t base, next;
	int32_t i;
	int16_t tepoch;
	int rc;

	*err = OP_OK;
	if (st == NULL && a->acks != 0 && a->acks != 1 && a->acks != -1) {
		*err = OP_BAD_REQUEST;
		return OP_DONE;
	}
	if (st == NULL && (*stp = st = produce_start(x, a)) == NULL) {
		*err = OP_NO_MEMORY;
		return OP_DONE;
	}
	for (; st->cur < st->count && st->cur < a->count; st->cur++) {
		i = st->cur;
		if ((p = st->parts[i]) == NULL)
			continue;
		/* Parked on a full ring while its topic was deleted. */
		if (op_part_gone(p, st->inc[i])) {
			st->res[i].err = OP_NO_TOPIC;
			st->parts[i] = NULL;
			continue;
		}
		/* A transactional batch: checked again with its append. */
		rc = op_txn_batch(st->recs[i], st->rec_lens[i], &base, &tepoch) ?
		    op_txn_append(w, p, st->inc[i], st->recs[i],
		    st->rec_lens[i], &base, &next, &st->res[i].err) :
		    op_producer_append(w, p, st->inc[i], st->recs[i],
		    st->rec_lens[i], &base, &next, &st->res[i].err);
		if (rc == 1) {
			if (w->now < st->deadline && !w->stopping)
				return OP_BLOCKED;
			st->res[i].err = w->stopping ? OP_SHUTTING_DOWN :
			    OP_TIMEOUT;
		}
		if (rc != 0) {
			st->parts[i] = NULL;
			continue;
		}
		st->res[i].base_offset = base;
		st->res[i].log_start = atomic_load_explicit(&p->log_start,
		    memory_order_acquire);
		st->next[i] = next;
		if (a->acks == -1)
			atomic_store(&p->sync_wanted, 1);
		/* A ring a quarter full wants the writer now, not lazily. */
		worker_wake_writer(w, a->acks == -1 || ring_free(w->shm, p) <
		    w->shm->hdr->limits.ring_size / 4 * 3);
	}
	if (a->acks == -1)
		return op_produce_poll(x, st);
	return OP_DONE;
}

enum op_status
op_produce_poll(const struct op_ctx *x, struct op_produce_st *st)
{
	struct worker *w = x->w;
	int32_t i;
	int waiting = 0;

	for (i = 0; i < st->count; i++) {
		if (st->parts[i] == NULL || st->res[i].err != OP_OK)
			continue;
		if (op_part_gone(st->parts[i], st->inc[i])) {
			st->res[i].err = OP_NO_TOPIC;
			st->parts[i] = NULL;
			continue;
		}
		if (atomic_load_explicit(&st->parts[i]->durable_offset,
		    memory_order_acquire) >= st->next[i]) {
			st->parts[i] = NULL;
			continue;
		}
		if (w->now >= st->deadline) {
			st->res[i].err = OP_TIMEOUT;
			st->parts[i] = NULL;
			continue;
		}
		waiting = 1;
	}
	return waiting ? OP_WAIT : OP_DONE;
}
