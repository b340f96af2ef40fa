/*
 * Deleting records (worker/op/records.h).
 *
 * delete_below is raised with a CAS loop, so of two requests the higher
 * offset wins and neither lowers what the other asked; each waits for
 * log_start to reach its own offset.  The offset is checked against the
 * acknowledged end (next_offset, the high watermark clients see): the
 * writer applies it once the records below it are in the files.
 */
#include <stdatomic.h>

#include "common/log.h"
#include "shm/shm.h"
#include "store/topic.h"
#include "worker/op/access.h"
#include "worker/op/part.h"
#include "worker/op/records.h"
#include "worker/op/tconf.h"
#include "worker/worker.h"

/* Raise p's delete_below to at least target (only ever up). */
static void
delete_below_raise(struct shm_partition *p, int64_t target)
{
	int64_t cur;

	cur = atomic_load_explicit(&p->delete_below, memory_order_acquire);
	while (cur < target && !atomic_compare_exchange_weak_explicit(
	    &p->delete_below, &cur, target, memory_order_acq_rel,
	    memory_order_acquire))
		;
}

enum op_status
op_delete_records(const struct op_ctx *x, const char *topic, size_t len,
    int32_t partition, struct op_delete_records *a)
{
	struct worker *w = x->w;
	struct shm_partition *p = NULL;
	struct tconf tc;
	int64_t end, start;

	a->p = NULL;
	a->low_watermark = -1;
	/* Kafka: "Cannot delete records of internal topic" (INVALID_TOPIC). */
	if (op_part_internal(x, "records", "deleted", topic, len)) {
		a->err = OP_RESERVED_TOPIC;
		return OP_DONE;
	}
	if ((a->err = op_access_topic(x, AUTH_ADMIN, topic, len)) != OP_OK ||
	    (a->err = op_part_resolve(w, topic, len, partition, 0, &p)) !=
	    OP_OK ||
	    (a->err = op_part_incarnation(w, p, &a->inc)) != OP_OK)
		return OP_DONE;
	/* Kafka's rule: only a log that deletes may lose records this way. */
	op_tconf_topic(w, (int)p->topic, &tc);
	if (!(tc.v[TC_CLEANUP_POLICY] & TCONF_CLEANUP_DELETE)) {
		log_info("%s: %s: %.*s-%d: records not deleted: cleanup.policy "
		    "is compact", x->peer, x->api != NULL ? x->api : "?",
		    (int)len, topic, (int)partition);
		a->err = OP_POLICY;
		return OP_DONE;
	}
	end = op_part_end(p);
	a->target = a->offset == OP_DELETE_TO_END ? end : a->offset;
	if (a->target < 0 || a->target > end) {
		log_info("%s: %s: %.*s-%d: records below %lld not deleted: "
		    "the log ends at %lld", x->peer, x->api != NULL ? x->api :
		    "?", (int)len, topic, (int)partition, (long long)a->offset,
		    (long long)end);
		a->err = OP_OUT_OF_RANGE;
		return OP_DONE;
	}
	start = atomic_load_explicit(&p->log_start, memory_order_acquire);
	if (a->target <= start) {
		a->low_watermark = start;
		return OP_DONE;
	}
	delete_below_raise(p, a->target);
	log_info("%.*s-%d: deleting records below %lld (%s from %s)", (int)len,
	    topic, (int)partition, (long long)a->target, x->api != NULL ?
	    x->api : "?", x->peer);
	worker_wake_writer(w, 1);
	a->p = p;
	return op_delete_records_poll(x, a);
}

enum op_status
op_delete_records_poll(const struct op_ctx *x, struct op_delete_records *a)
{
	int64_t start;

	if (a->p == NULL)
		return OP_DONE;
	if (op_part_gone(a->p, a->inc)) {
		a->err = OP_NO_TOPIC;
		a->p = NULL;
		return OP_DONE;
	}
	start = atomic_load_explicit(&a->p->log_start, memory_order_acquire);
	if (start >= a->target) {
		a->err = OP_OK;
		a->low_watermark = start;
		a->p = NULL;
		return OP_DONE;
	}
	if (x->w->now < a->deadline)
		return OP_WAIT;
	a->err = OP_TIMEOUT;
	a->p = NULL;
	return OP_DONE;
}
