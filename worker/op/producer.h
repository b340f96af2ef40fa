/*
 * Idempotent produce in the operations (shm/producer.h): producer ids
 * and epochs handed out, and the sequence check every produced part
 * goes through inside the ring append's critical section.
 */
#ifndef FLUME_WORKER_OP_PRODUCER_H
#define FLUME_WORKER_OP_PRODUCER_H

#include <stddef.h>
#include <stdint.h>

#include "worker/op/op.h"

struct shm_partition;

/*
 * Append one produced part to p's ring, deduplicated when its batches
 * carry a producer id.  0: appended, or a resend answered with its
 * original offsets (*base, *next).  1: the ring is full, nothing
 * appended (retry).  -1: refused, nothing appended, *err says why
 * (OP_BAD_REQUEST for batches that disagree on their producer,
 * OP_FENCED_PRODUCER, OP_OUT_OF_ORDER_SEQUENCE, OP_DUPLICATE_SEQUENCE
 * for a resend too old to answer, OP_TOO_LARGE for the ring, OP_NO_TOPIC
 * when p's topic was deleted since it gave inc (op_part_incarnation()),
 * even if a new topic took the slot, OP_INTERNAL).
 */
int	op_producer_append(struct worker *w, struct shm_partition *p,
	    uint32_t inc, const uint8_t *recs, size_t len, int64_t *base,
	    int64_t *next, enum op_err *err);
/*
 * Does p already have these batches (an idempotent resend)?  1 or 0.
 * Asked before a storage error refuses a part, so that stored batches
 * are answered with their offsets, never reported failed.
 */
int	op_producer_stored(struct worker *w, struct shm_partition *p,
	    const uint8_t *recs, size_t len);

/*
 * Init producer id: a new producer (id < 0) gets a new id and epoch 0;
 * one that starts again under the id it had gets the next epoch, which
 * fences its older instance on every partition it writes to (an epoch
 * at its maximum takes a new id instead).  OP_OK, OP_NO_ROOM (no id
 * left) or OP_FENCED_PRODUCER (an id never issued, a negative epoch).
 */
enum op_err op_init_producer(const struct op_ctx *x, int64_t id,
	    int16_t epoch, int64_t *new_id, int16_t *new_epoch);

#endif
