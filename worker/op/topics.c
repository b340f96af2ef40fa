/*
 * The topic operations (worker/op/topics.h): metadata, create and
 * delete, with the waits for the writer.
 *
 * A create of a topic that exists is OP_TOPIC_EXISTS at once without
 * waiting, as Kafka does: that request created nothing, and a client
 * that treats it as success asked for a topic, not for its files.
 *
 * Shared memory is read with the ordering the writer publishes with:
 * log_start, state and opened are acquire loads.  The log end a client
 * sees is next_offset (op_part_end): everything acknowledged, even what
 * is still in the ring.
 */
#include <errno.h>
#include <stdatomic.h>
#include <string.h>

#include "common/config.h"
#include "common/log.h"
#include "proto/names.h"
#include "shm/shm.h"
#include "shm/topics.h"
#include "store/topic.h"
#include "worker/op/access.h"
#include "worker/op/part.h"
#include "worker/op/topics.h"
#include "worker/worker.h"

/* Whoever asked may see or use a topic with any of these. */
#define TOPIC_ANY_PERM	(AUTH_PRODUCE | AUTH_CONSUME | AUTH_ADMIN)

static const char *
api(const struct op_ctx *x)
{
	return x->api != NULL ? x->api : "?";
}

/* ---- metadata ---- */

/* The partitions of entry idx into ti. */
static enum op_err
info_fill(const struct op_ctx *x, int idx, struct op_topic_info *ti)
{
	struct worker *w = x->w;
	const struct shm_topic *t = &w->shm->topics[idx];
	struct shm_partition *p;
	int32_t i;

	ti->err = OP_OK;
	ti->name = t->name;
	ti->name_len = t->name_len;
	memcpy(ti->id, t->id, sizeof(ti->id));
	ti->nparts = t->partitions > 0 ? t->partitions : 0;
	ti->parts = NULL;
	if (ti->nparts == 0)
		return OP_OK;
	if ((ti->parts = op_alloc(x, (size_t)ti->nparts *
	    sizeof(*ti->parts))) == NULL)
		return OP_NO_MEMORY;
	for (i = 0; i < ti->nparts; i++) {
		p = shm_partition(w->shm, idx, i);
		ti->parts[i].partition = i;
		ti->parts[i].log_start = atomic_load_explicit(&p->log_start,
		    memory_order_acquire);
		ti->parts[i].log_end = op_part_end(p);
		ti->parts[i].size_bytes = (int64_t)atomic_load_explicit(
		    &p->log_bytes, memory_order_relaxed);
	}
	return OP_OK;
}

/* How many entries of the topic table may be in use. */
static uint32_t
topic_entries(struct worker *w)
{
	uint32_t n;

	n = atomic_load_explicit(&w->shm->hdr->topic_count,
	    memory_order_acquire);
	return n > w->shm->hdr->limits.max_topics ?
	    w->shm->hdr->limits.max_topics : n;
}

/* Every READY topic x may see. */
static enum op_err
metadata_all(const struct op_ctx *x, struct op_topic_info **out,
    int32_t *nout)
{
	struct worker *w = x->w;
	const struct shm_topic *t;
	uint32_t i, n;

	n = topic_entries(w);
	if (n > 0 && (*out = op_alloc(x, n * sizeof(**out))) == NULL)
		return OP_NO_MEMORY;
	for (i = 0; i < n; i++) {
		t = &w->shm->topics[i];
		if (atomic_load_explicit(&t->state, memory_order_acquire) !=
		    TOPIC_READY ||
		    !op_access_topic_may(x, TOPIC_ANY_PERM, t->name,
		    t->name_len))
			continue;
		if (info_fill(x, (int)i, &(*out)[*nout]) != OP_OK)
			return OP_NO_MEMORY;
		(*nout)++;
	}
	return OP_OK;
}

enum op_err
op_metadata(const struct op_ctx *x, const struct op_name *names, int32_t n,
    int auto_create, struct op_topic_info **out, int32_t *nout)
{
	struct op_topic_info *ti;
	char *copy;
	int32_t k;
	int idx;

	*out = NULL;
	*nout = 0;
	if (names == NULL)
		return metadata_all(x, out, nout);
	if (n <= 0)
		return OP_OK;
	if ((*out = op_alloc(x, (size_t)n * sizeof(**out))) == NULL)
		return OP_NO_MEMORY;
	for (k = 0; k < n; k++) {
		ti = &(*out)[k];
		memset(ti, 0, sizeof(*ti));
		idx = -1;
		ti->err = op_access_topic(x, TOPIC_ANY_PERM, names[k].s,
		    names[k].len);
		/* Creating a topic by naming it takes the right to produce to it. */
		if (ti->err == OP_OK)
			ti->err = op_topic_resolve(x->w, names[k].s,
			    names[k].len, auto_create && op_access_topic_may(x,
			    AUTH_PRODUCE, names[k].s, names[k].len), &idx);
		if (ti->err == OP_OK) {
			if (info_fill(x, idx, ti) != OP_OK)
				return OP_NO_MEMORY;
			continue;
		}
		/* The request's bytes may move before this is answered. */
		if ((copy = op_alloc(x, names[k].len + 1)) == NULL)
			return OP_NO_MEMORY;
		memcpy(copy, names[k].s, names[k].len);
		copy[names[k].len] = '\0';
		ti->name = copy;
		ti->name_len = names[k].len;
	}
	*nout = n;
	return OP_OK;
}

enum op_err
op_topic_find_id(const struct op_ctx *x, const uint8_t *id,
    const char **name, size_t *len)
{
	struct worker *w = x->w;
	const struct shm_topic *t;
	uint32_t i, n;

	n = topic_entries(w);
	for (i = 0; i < n; i++) {
		t = &w->shm->topics[i];
		/* The id is set before READY is published (shm.h). */
		if (atomic_load_explicit(&t->state, memory_order_acquire) !=
		    TOPIC_READY || memcmp(t->id, id, TOPIC_ID_LEN) != 0)
			continue;
		*name = t->name;
		*len = t->name_len;
		return OP_OK;
	}
	return OP_NO_TOPIC;
}

/* ---- create ---- */

/*
 * A create or delete (what) of a reserved name is refused, one line
 * logged naming the peer and the API: 1, else 0.
 */
static int
reserved_refuse(const struct op_ctx *x, const char *what, const char *name,
    size_t len)
{
	if (!topic_name_reserved(name, len))
		return 0;
	log_warnx("%s: %s: %s of topic %.*s refused: the name is reserved for "
	    "the broker's own use", x->peer, api(x), what, (int)len, name);
	return 1;
}

/* Partition 0's incarnation of entry ti. */
static uint32_t
create_incarnation(struct worker *w, int ti)
{
	const struct shm_topic *t = &w->shm->topics[ti];
	uint32_t slot;

	if ((slot = shm_topic_slot(w->shm, t, 0)) == UINT32_MAX)
		return 0;
	return atomic_load_explicit(&w->shm->parts[slot].incarnation,
	    memory_order_acquire);
}

/*
 * Is the create of entry ti, made with incarnation inc, over?  1 with
 * *err (OP_OK: its files exist), 0 while the writer is still at it.
 */
static int
create_over(struct worker *w, int ti, uint32_t inc, enum op_err *err)
{
	const struct shm_topic *t = &w->shm->topics[ti];
	uint32_t i, slot;

	/*
	 * A delete bumps every partition's incarnation before the entry
	 * can be freed and filled again, so a later topic in the same
	 * entry is never mistaken for ours.
	 */
	if (atomic_load_explicit(&t->state, memory_order_acquire) !=
	    TOPIC_READY || create_incarnation(w, ti) != inc) {
		*err = OP_NO_TOPIC;
		return 1;
	}
	if (atomic_load_explicit(&t->opened, memory_order_acquire) != 0) {
		*err = OP_OK;
		return 1;
	}
	for (i = 0; i < (uint32_t)t->partitions; i++) {
		if ((slot = shm_topic_slot(w->shm, t, i)) == UINT32_MAX)
			break;
		if (atomic_load_explicit(&w->shm->parts[slot].
		    storage_error, memory_order_relaxed) != 0) {
			*err = OP_STORAGE;
			return 1;
		}
	}
	return 0;
}

enum op_err
op_topic_create_check(const struct op_ctx *x, const char *name, size_t len)
{
	if (len > TOPIC_NAME_MAX || !topic_name_valid(name, len))
		return OP_BAD_TOPIC_NAME;
	if (reserved_refuse(x, "create", name, len))
		return OP_RESERVED_TOPIC;
	return op_access_topic(x, AUTH_ADMIN, name, len);
}

enum op_err
op_topic_create_partitions(const struct op_ctx *x, const char *name,
    size_t len, int32_t asked, int32_t *n)
{
	char buf[TOPIC_NAME_MAX + 1];

	if (asked == 0) {
		if (len > TOPIC_NAME_MAX)
			return OP_BAD_TOPIC_NAME;
		memcpy(buf, name, len);
		buf[len] = '\0';
		asked = config_topic_partitions(x->w->conf, buf);
	}
	if (asked < 1 || (uint32_t)asked > x->w->conf->max_partitions)
		return OP_BAD_PARTITIONS;
	*n = asked;
	return OP_OK;
}

enum op_status
op_topic_create(const struct op_ctx *x, const char *name, size_t len,
    struct op_topic_create *a)
{
	struct worker *w = x->w;
	int idx = -1;

	a->ti = -1;
	if ((a->err = op_topic_create_check(x, name, len)) != OP_OK ||
	    (a->err = op_topic_create_partitions(x, name, len, a->partitions,
	    &a->partitions)) != OP_OK) {
		a->partitions = 0;
		return OP_DONE;
	}
	if (shm_topic_create(w->shm, name, len, a->partitions, &idx) == -1) {
		if (errno == EEXIST) {
			a->err = OP_TOPIC_EXISTS;
			a->partitions = idx >= 0 ?
			    w->shm->topics[idx].partitions : 0;
			return OP_DONE;
		}
		if (errno == ENOSPC)
			a->err = OP_NO_ROOM;
		else {
			log_warn("create topic %.*s", (int)len, name);
			a->err = OP_INTERNAL;
		}
		a->partitions = 0;
		return OP_DONE;
	}
	memcpy(a->id, w->shm->topics[idx].id, sizeof(a->id));
	log_info("created topic %.*s with %d partitions (%s from %s)",
	    (int)len, name, (int)a->partitions, api(x), x->peer);
	worker_wake_writer(w, 1);
	a->err = OP_OK;
	if (a->deadline == 0)
		return OP_DONE;
	a->ti = idx;
	a->inc = create_incarnation(w, idx);
	return op_topic_create_poll(x, a);
}

enum op_status
op_topic_create_poll(const struct op_ctx *x, struct op_topic_create *a)
{
	if (a->ti < 0)
		return OP_DONE;
	if (!create_over(x->w, a->ti, a->inc, &a->err)) {
		if (x->w->now < a->deadline)
			return OP_WAIT;
		a->err = OP_TIMEOUT;
	}
	a->ti = -1;
	return OP_DONE;
}

/* ---- delete ---- */

enum op_status
op_topic_delete(const struct op_ctx *x, const char *name, size_t len,
    struct op_topic_delete *a)
{
	struct worker *w = x->w;
	int i;

	a->ti = -1;
	a->partitions = 0;
	if (len > TOPIC_NAME_MAX || !topic_name_valid(name, len)) {
		log_info("%s: %s: delete of a topic refused: invalid name",
		    x->peer, api(x));
		a->err = OP_BAD_TOPIC_NAME;
		return OP_DONE;
	}
	if (reserved_refuse(x, "delete", name, len)) {
		a->err = OP_RESERVED_TOPIC;
		return OP_DONE;
	}
	if ((a->err = op_access_topic(x, AUTH_ADMIN, name, len)) != OP_OK)
		return OP_DONE;
	if ((i = shm_topic_delete_begin(w->shm, name, len)) == -1) {
		if (errno == ENOENT) {
			log_info("%s: %s: delete of topic %.*s refused: no such "
			    "topic", x->peer, api(x), (int)len, name);
			a->err = OP_NO_TOPIC;
		} else {
			log_warn("delete topic %.*s", (int)len, name);
			a->err = OP_INTERNAL;
		}
		return OP_DONE;
	}
	a->ti = i;
	a->partitions = w->shm->topics[i].partitions;
	memcpy(a->id, w->shm->topics[i].id, sizeof(a->id));
	log_info("deleting topic %.*s (%d partition%s)", (int)len, name,
	    (int)a->partitions, a->partitions == 1 ? "" : "s");
	worker_wake_writer(w, 2);
	a->err = OP_OK;
	return op_topic_delete_poll(x, a);
}

enum op_status
op_topic_delete_poll(const struct op_ctx *x, struct op_topic_delete *a)
{
	if (a->ti < 0)
		return OP_DONE;
	if (atomic_load_explicit(&x->w->shm->topics[a->ti].state,
	    memory_order_acquire) != TOPIC_DELETING) {
		a->ti = -1;
		return OP_DONE;
	}
	if (x->w->now >= a->deadline) {
		a->err = OP_TIMEOUT;
		a->ti = -1;
		return OP_DONE;
	}
	return OP_WAIT;
}
