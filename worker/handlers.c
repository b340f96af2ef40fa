/*
 * The operations both protocols share: handshake, metadata (with
 * auto-create) and workers (the data path is in worker/op/).  Each
 * works on a decoded native request (r->dec) and leaves its answer in
 * r->st; the native table (worker/native/native.c) and the Kafka table
 * (worker/kafka*.c) decode into the same structs and encode the answers
 * their own way.  Decoded requests and per-request state live in the
 * connection's arena.
 *
 * Shared memory is read with the ordering the writer publishes with:
 * log_start is an acquire load.  The log end a client sees (METADATA
 * log_end) is next_offset: everything acknowledged, even what is still
 * in the ring.
 */
#include <stdatomic.h>
#include <string.h>

#include "common/clock.h"
#include "common/log.h"
#include "proto/msg.h"
#include "shm/topics.h"
#include "store/topic.h"
#include "worker/access.h"
#include "worker/conn.h"
#include "worker/handlers.h"
#include "worker/native/native.h"
#include "worker/op/part.h"
#include "proto/version.h"

static void
req_done(struct req *r, int16_t error)
{
	r->error = error;
	r->state = REQ_DONE;
}

/*
 * The operations' lookups in native error codes, until this file's
 * operations move to worker/op/.
 */
#define part_end(p)	op_part_end(p)

static int16_t
topic_resolve(struct worker *w, const char *name, size_t len, int create,
    int *tidx)
{
	return native_error(op_topic_resolve(w, name, len, create, tidx));
}

/* ---- HANDSHAKE ---- */

void
handle_handshake(struct worker *w, struct conn *c, struct req *r)
{
	const struct handshake_req *q = r->dec;
	struct handshake_resp *s;

	if ((s = conn_alloc(c, sizeof(*s))) == NULL) {
		req_done(r, ERR_RESOURCE_LIMIT);
		return;
	}
	s->error = q->version < 1 ? ERR_UNSUPPORTED_VERSION : ERR_NONE;
	if (s->error == ERR_NONE)
		c->handshaken = 1;
	s->version = FLUME_PROTOCOL_VERSION;
	s->max_frame = (int32_t)(w->conf->max_request_bytes > INT32_MAX ?
	    INT32_MAX : w->conf->max_request_bytes);
	s->broker = FLUME_BROKER_NAME;
	s->broker_len = sizeof(FLUME_BROKER_NAME) - 1;
	r->st = s;
	req_done(r, ERR_NONE);
}

/* ---- METADATA ---- */

static int
topic_info_fill(struct worker *w, struct conn *c, int idx, struct topic_info *ti)
{
	const struct shm_topic *t = &w->shm->topics[idx];
	struct shm_partition *p;
	int32_t i;

	ti->error = ERR_NONE;
	ti->name = t->name;
	ti->name_len = t->name_len;
	ti->count = t->partitions;
	if (ti->count <= 0) {
		ti->count = 0;
		ti->partitions = NULL;
		return 0;
	}
	ti->partitions = conn_alloc(c, (size_t)ti->count * sizeof(*ti->partitions));
	if (ti->partitions == NULL)
		return -1;
	for (i = 0; i < ti->count; i++) {
		p = shm_partition(w->shm, idx, i);
		ti->partitions[i].partition = i;
		ti->partitions[i].log_start = atomic_load_explicit(&p->log_start,
		    memory_order_acquire);
		ti->partitions[i].log_end = part_end(p);
		ti->partitions[i].size_bytes = (int64_t)atomic_load_explicit(
		    &p->log_bytes, memory_order_relaxed);
	}
	return 0;
}

void
handle_metadata(struct worker *w, struct conn *c, struct req *r)
{
	const struct metadata_req *q = r->dec;
	struct metadata_resp *s;
	struct topic_info *ti;
	uint32_t i, n;
	int32_t k;
	char *name;
	int idx;

	if ((s = conn_alloc(c, sizeof(*s))) == NULL)
		goto nomem;
	memset(s, 0, sizeof(*s));
	r->st = s;
	if (q->count == 0) {
		n = atomic_load_explicit(&w->shm->hdr->topic_count,
		    memory_order_acquire);
		if (n > w->shm->hdr->limits.max_topics)
			n = w->shm->hdr->limits.max_topics;
		if (n > 0 && (s->topics = conn_alloc(c, n * sizeof(*ti))) == NULL)
			goto nomem;
		for (i = 0; i < n; i++) {
			if (atomic_load_explicit(&w->shm->topics[i].state,
			    memory_order_acquire) != TOPIC_READY)
				continue;
			if (!auth_may(c, AUTH_PRODUCE | AUTH_CONSUME | AUTH_ADMIN,
			    w->shm->topics[i].name, w->shm->topics[i].name_len))
				continue;
			if (topic_info_fill(w, c, (int)i, &s->topics[s->count]) == -1)
				goto nomem;
			s->count++;
		}
		req_done(r, ERR_NONE);
		return;
	}
	if ((s->topics = conn_alloc(c, (size_t)q->count * sizeof(*ti))) == NULL)
		goto nomem;
	for (k = 0; k < q->count; k++) {
		ti = &s->topics[k];
		memset(ti, 0, sizeof(*ti));
		idx = -1;
		ti->error = auth_topic(c, AUTH_PRODUCE | AUTH_CONSUME | AUTH_ADMIN,
		    q->topics[k].s, q->topics[k].len, r->name);
		/* Creating a topic by naming it takes the right to produce to it. */
		if (ti->error == ERR_NONE)
			ti->error = topic_resolve(w, q->topics[k].s,
			    q->topics[k].len, q->auto_create && auth_may(c,
			    AUTH_PRODUCE, q->topics[k].s, q->topics[k].len), &idx);
		if (ti->error == ERR_NONE) {
			if (topic_info_fill(w, c, idx, ti) == -1)
				goto nomem;
		} else {
			/* The payload may move before this is answered. */
			if ((name = conn_alloc(c, q->topics[k].len + 1)) == NULL)
				goto nomem;
			memcpy(name, q->topics[k].s, q->topics[k].len);
			ti->name = name;
			ti->name_len = q->topics[k].len;
		}
	}
	s->count = q->count;
	req_done(r, ERR_NONE);
	return;
nomem:
	r->st = NULL;
	req_done(r, ERR_RESOURCE_LIMIT);
}

/* ---- WORKERS ---- */

void
handle_workers(struct worker *w, struct conn *c, struct req *r)
{
	struct workers_resp *s;
	struct shm_child *ch;
	struct child_info *ci;
	int64_t now_rt = clock_real_ms();
	uint32_t i, n = w->shm->hdr->limits.child_slots;
	int32_t pid;

	if (r->payload_len != 0) {
		req_done(r, ERR_INVALID_REQUEST);
		return;
	}
	if ((s = conn_alloc(c, sizeof(*s))) == NULL)
		goto nomem;
	memset(s, 0, sizeof(*s));
	if (n > 0 && (s->children = conn_alloc(c, n * sizeof(*ci))) == NULL)
		goto nomem;
	for (i = 0; i < n; i++) {
		ch = &w->shm->children[i];
		if ((pid = atomic_load(&ch->pid)) <= 0)
			continue;
		ci = &s->children[s->count++];
		ci->slot = (int32_t)i;
		ci->role = (int8_t)ch->role;
		ci->pid = pid;
		ci->uptime_ms = ch->start_ms > 0 && now_rt > ch->start_ms ?
		    now_rt - ch->start_ms : 0;
		ci->restarts = ch->restarts;
	}
	r->st = s;
	req_done(r, ERR_NONE);
	return;
nomem:
	req_done(r, ERR_RESOURCE_LIMIT);
}
