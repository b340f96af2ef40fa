/*
 * Idempotent produce: producer ids and the sequence check of every
 * produced part (worker/op/producer.h).
 */
#include <errno.h>

#include "common/log.h"
#include "shm/producer.h"
#include "shm/ring.h"
#include "worker/op/producer.h"
#include "worker/worker.h"

int
op_producer_append(struct worker *w, struct shm_partition *p, uint32_t inc,
    const uint8_t *recs, size_t len, int64_t *base, int64_t *next,
    enum op_err *err)
{
	struct producer_seq q;
	int rc, dup = 0;

	if (producer_seq_of(recs, len, &q) == -1) {
		*err = OP_BAD_REQUEST;
		return -1;
	}
	rc = producer_append(w->shm, p, inc, &q, recs, len, base, next, &dup);
	if (rc == 0) {
		if (dup)
			log_debug("producer %lld: sequences %d..%d resent; answered "
			    "with offset %lld", (long long)q.pid, (int)q.first_seq,
			    (int)q.last_seq, (long long)*base);
		return 0;
	}
	if (rc > 0) {
		*err = rc == PRODUCER_FENCED ? OP_FENCED_PRODUCER :
		    rc == PRODUCER_OLD_DUPLICATE ? OP_DUPLICATE_SEQUENCE :
		    rc == PRODUCER_FULL ? OP_PRODUCERS_FULL :
		    OP_OUT_OF_ORDER_SEQUENCE;
		return -1;
	}
	if (errno == EAGAIN)
		return 1;
	if (errno == EMSGSIZE)
		*err = OP_TOO_LARGE;
	else if (errno == ENOENT)	/* its topic is being deleted */
		*err = OP_NO_TOPIC;
	else {
		log_warn("ring append");
		*err = OP_INTERNAL;
	}
	return -1;
}

int
op_producer_stored(struct worker *w, struct shm_partition *p,
    const uint8_t *recs, size_t len)
{
	struct producer_seq q;
	int64_t base, next;
	int v;

	if (producer_seq_of(recs, len, &q) == -1 || q.pid < 0)
		return 0;
	if (part_lock(w->shm, p) == -1)
		return 0;
	v = producer_check(w->shm, p, &q, &base, &next);
	part_unlock(p);
	return v == PRODUCER_DUPLICATE || v == PRODUCER_OLD_DUPLICATE;
}

enum op_err
op_init_producer(const struct op_ctx *x, int64_t id, int16_t epoch,
    int64_t *new_id, int16_t *new_epoch)
{
	struct worker *w = x->w;

	*new_id = -1;
	*new_epoch = -1;
	if (id >= 0) {
		/* An id the broker never issued is refused. */
		if (id >= producer_id_limit(w->shm) || epoch < 0)
			return OP_FENCED_PRODUCER;
		if (epoch < INT16_MAX) {
			*new_id = id;
			*new_epoch = (int16_t)(epoch + 1);
			return OP_OK;
		}
	}
	if ((*new_id = producer_id_new(w->shm)) < 0) {
		*new_id = -1;
		return OP_NO_ROOM;
	}
	*new_epoch = 0;
	return OP_OK;
}
