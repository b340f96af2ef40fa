/*
 * Idempotent produce in the worker: INIT_PRODUCER hands out producer ids
 * and epochs; every PRODUCE part goes through producer_append(), which
 * checks and records the batches' sequences inside the ring append's
 * critical section (shm/producer.h).
 */
#include <errno.h>
#include <string.h>

#include "common/log.h"
#include "proto/msg.h"
#include "shm/producer.h"
#include "shm/ring.h"
#include "worker/conn.h"
#include "worker/produce_dedup.h"

int
produce_dedup_append(struct worker *w, struct shm_partition *p, uint32_t inc,
    const uint8_t *recs, size_t len, int64_t *base, int64_t *next, int16_t *err)
{
	struct producer_seq q;
	int rc, dup = 0;

	if (producer_seq_of(recs, len, &q) == -1) {
		*err = ERR_INVALID_REQUEST;
		return 1;
	}
	rc = producer_append(w->shm, p, inc, &q, recs, len, base, next, &dup);
	if (rc <= 0) {
		if (rc == 0 && dup)
			log_debug("producer %lld: sequences %d..%d resent; answered "
			    "with offset %lld", (long long)q.pid, (int)q.first_seq,
			    (int)q.last_seq, (long long)*base);
		return rc;
	}
	*err = rc == PRODUCER_FENCED ? ERR_PRODUCER_FENCED :
	    rc == PRODUCER_OLD_DUPLICATE ? ERR_DUPLICATE_SEQUENCE :
	    ERR_OUT_OF_ORDER_SEQUENCE;
	return 1;
}

int
produce_dedup_stored(struct worker *w, struct shm_partition *p,
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

void
produce_exec_init(struct worker *w, struct conn *c, struct req *r)
{
	struct init_producer_req q;
	struct init_producer_resp *s;
	int64_t id;

	r->state = REQ_DONE;
	if (msg_decode_init_producer_req(r->payload, r->payload_len, &q) == -1) {
		r->error = ERR_INVALID_REQUEST;
		return;
	}
	if ((s = conn_alloc(c, sizeof(*s))) == NULL) {
		r->error = ERR_RESOURCE_LIMIT;
		return;
	}
	memset(s, 0, sizeof(*s));
	r->st = s;
	r->error = ERR_NONE;
	if (q.producer_id < 0) {
		/* A new producer. */
		if ((id = producer_id_new(w->shm)) < 0) {
			r->error = ERR_RESOURCE_LIMIT;
			return;
		}
		s->producer_id = id;
		s->producer_epoch = 0;
		return;
	}
	/*
	 * A producer that starts again under the id it had: the next epoch,
	 * which fences the older instance on every partition the new one
	 * writes to.  An id the broker never issued is refused.
	 */
	if (q.producer_id >= producer_id_limit(w->shm) || q.producer_epoch < 0) {
		r->error = ERR_PRODUCER_FENCED;
		return;
	}
	if (q.producer_epoch == INT16_MAX) {
		if ((id = producer_id_new(w->shm)) < 0) {
			r->error = ERR_RESOURCE_LIMIT;
			return;
		}
		s->producer_id = id;
		s->producer_epoch = 0;
		return;
	}
	s->producer_id = q.producer_id;
	s->producer_epoch = (int16_t)(q.producer_epoch + 1);
}
