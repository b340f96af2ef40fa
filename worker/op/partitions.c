/*
 * Growing a topic (worker/op/partitions.h).
 */
#include <errno.h>
#include <stdatomic.h>

#include "common/config.h"
#include "common/log.h"
#include "shm/shm.h"
#include "shm/topics.h"
#include "store/topic.h"
#include "worker/op/access.h"
#include "worker/op/partitions.h"
#include "worker/worker.h"

static const char *
api(const struct op_ctx *x)
{
	return x->api != NULL ? x->api : "?";
}

/* Partition 0's incarnation of entry ti: a delete changes it. */
static uint32_t
grow_incarnation(struct worker *w, int ti)
{
	uint32_t slot = shm_topic_slot(w->shm, &w->shm->topics[ti], 0);

	return slot == UINT32_MAX ? 0 : atomic_load_explicit(
	    &w->shm->parts[slot].incarnation, memory_order_acquire);
}

/* May x grow name to count?  The current count into a->current. */
static enum op_err
grow_check(const struct op_ctx *x, const char *name, size_t len,
    struct op_partitions_grow *a)
{
	struct worker *w = x->w;
	const struct shm_topic *t;
	enum op_err err;
	int32_t cur, want;
	int ti;

	if (len == 0 || len > TOPIC_NAME_MAX || !topic_name_valid(name, len))
		return OP_BAD_TOPIC_NAME;
	if (topic_name_reserved(name, len)) {
		log_warnx("%s: %s: growing topic %.*s refused: the name is "
		    "reserved for the broker's own use", x->peer, api(x),
		    (int)len, name);
		return OP_RESERVED_TOPIC;
	}
	if ((err = op_access_topic(x, AUTH_ADMIN, name, len)) != OP_OK)
		return err;
	if ((ti = shm_topic_find(w->shm, name, len)) == -1)
		return OP_NO_TOPIC;
	t = &w->shm->topics[ti];
	cur = __atomic_load_n(&t->partitions, __ATOMIC_ACQUIRE);
	want = atomic_load_explicit(&t->grow_to, memory_order_acquire);
	a->current = want > cur ? want : cur;
	if (a->count <= a->current)
		return OP_BAD_PARTITIONS;
	if ((uint32_t)a->count > w->conf->max_partitions)
		return OP_NO_ROOM;
	return OP_OK;
}

enum op_status
op_partitions_grow(const struct op_ctx *x, const char *name, size_t len,
    struct op_partitions_grow *a)
{
	struct worker *w = x->w;
	int ti;

	a->ti = -1;
	a->current = 0;
	if ((a->err = grow_check(x, name, len, a)) != OP_OK) {
		if (a->err == OP_BAD_PARTITIONS || a->err == OP_NO_ROOM ||
		    a->err == OP_NO_TOPIC)
			log_info("%s: %s: growing topic %.*s to %d partitions "
			    "refused: %s", x->peer, api(x), (int)len, name,
			    (int)a->count, op_strerror(a->err));
		return OP_DONE;
	}
	if (a->validate_only)
		return OP_DONE;
	if ((ti = shm_topic_grow(w->shm, name, len, a->count,
	    &a->current)) == -1) {
		if (errno == ENOENT)
			a->err = OP_NO_TOPIC;
		else if (errno == EINVAL)
			a->err = OP_BAD_PARTITIONS;
		else if (errno == ENOSPC)
			a->err = OP_NO_ROOM;
		else {
			log_warn("grow topic %.*s", (int)len, name);
			a->err = OP_INTERNAL;
		}
		if (a->err != OP_INTERNAL)
			log_info("%s: %s: growing topic %.*s to %d partitions "
			    "refused: %s", x->peer, api(x), (int)len, name,
			    (int)a->count, op_strerror(a->err));
		return OP_DONE;
	}
	log_info("growing topic %.*s from %d to %d partitions (%s from %s)",
	    (int)len, name, (int)a->current, (int)a->count, api(x), x->peer);
	worker_wake_writer(w, 2);
	if (a->deadline == 0)
		return OP_DONE;
	a->ti = ti;
	a->inc = grow_incarnation(w, ti);
	return op_partitions_grow_poll(x, a);
}

enum op_status
op_partitions_grow_poll(const struct op_ctx *x, struct op_partitions_grow *a)
{
	struct worker *w = x->w;
	const struct shm_topic *t;

	if (a->ti < 0)
		return OP_DONE;
	t = &w->shm->topics[a->ti];
	if (atomic_load_explicit(&t->state, memory_order_acquire) !=
	    TOPIC_READY || grow_incarnation(w, a->ti) != a->inc)
		a->err = OP_NO_TOPIC;
	else if (__atomic_load_n(&t->partitions, __ATOMIC_ACQUIRE) >= a->count)
		a->err = OP_OK;
	else if (w->now < a->deadline)
		return OP_WAIT;
	else
		a->err = OP_TIMEOUT;
	a->ti = -1;
	return OP_DONE;
}
