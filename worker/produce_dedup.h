/*
 * The worker's side of idempotent produce (shm/producer.h): INIT_PRODUCER
 * and the sequence check of every PRODUCE part.
 */
#ifndef FLUME_WORKER_PRODUCE_DEDUP_H
#define FLUME_WORKER_PRODUCE_DEDUP_H

#include <stddef.h>
#include <stdint.h>

struct worker;
struct conn;
struct req;
struct shm_partition;

/*
 * Append one PRODUCE part, deduplicated when its batches carry a producer
 * id.  0 appended, or a resend answered with its original offsets
 * (*base, *next); -1 with errno as ring_append() (EAGAIN: park and retry);
 * 1 with *err set to the flume error that refuses it (out of order
 * sequence, fenced producer, inconsistent batches; duplicate sequence
 * for a resend of something stored long enough ago that its offsets
 * are forgotten), nothing appended.  inc is the partition's incarnation
 * when the request resolved it: a topic deleted since (even if re-created
 * in the same slot) gets nothing, -1 with ENOENT.
 */
int	produce_dedup_append(struct worker *w, struct shm_partition *p,
	    uint32_t inc, const uint8_t *recs, size_t len, int64_t *base,
	    int64_t *next, int16_t *err);

/*
 * Does the partition already have these batches (an idempotent resend of
 * something appended)?  1 or 0; asked before a storage error refuses a
 * part, so a batch that is stored is answered with its offsets, never
 * reported failed.  Looks only: produce_dedup_append() answers it.
 */
int	produce_dedup_stored(struct worker *w, struct shm_partition *p,
	    const uint8_t *recs, size_t len);

/* INIT_PRODUCER: decode, answer in r->st (struct init_producer_resp), DONE. */
void	produce_exec_init(struct worker *w, struct conn *c, struct req *r);

#endif
