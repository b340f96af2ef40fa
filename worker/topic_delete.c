/*
 * Topic deletion in the worker (worker/topic_delete.h).  The answer
 * waits for the writer: once it says "deleted", the files are gone and
 * a create of the same name starts empty.  A request whose deadline
 * passes first is answered TIMEOUT; the delete itself goes on.
 */
#include <errno.h>
#include <stdatomic.h>
#include <string.h>

#include "common/log.h"
#include "proto/msg.h"
#include "shm/shm.h"
#include "shm/topics.h"
#include "store/topic.h"
#include "worker/access.h"
#include "worker/conn.h"
#include "worker/topic_create.h"
#include "worker/topic_delete.h"
#include "worker/worker.h"

/* The native request's progress. */
struct delete_st {
	struct delete_topic_resp resp;
	int		ti;
};

int16_t
topic_delete_start(struct worker *w, struct conn *c, const char *api,
    const char *name, size_t len, int *ti, int32_t *partitions)
{
	int16_t err;
	int i;

	if (len > TOPIC_NAME_MAX || !topic_name_valid(name, len)) {
		log_info("%s: delete of a topic refused: invalid name", c->peer);
		return ERR_INVALID_TOPIC;
	}
	if ((err = topic_reserved_refuse(c, "delete", name, len)) != ERR_NONE)
		return err;
	if ((err = auth_topic(c, AUTH_ADMIN, name, len, api)) != ERR_NONE)
		return err;
	if ((i = shm_topic_delete_begin(w->shm, name, len)) == -1) {
		if (errno == ENOENT) {
			log_info("%s: delete of topic %.*s refused: no such topic",
			    c->peer, (int)len, name);
			return ERR_UNKNOWN_TOPIC_OR_PARTITION;
		}
		log_warn("delete topic %.*s", (int)len, name);
		return ERR_UNKNOWN;
	}
	*ti = i;
	*partitions = w->shm->topics[i].partitions;
	log_info("deleting topic %.*s (%d partition%s)", (int)len, name,
	    (int)*partitions, *partitions == 1 ? "" : "s");
	worker_wake_writer(w, 2);
	return ERR_NONE;
}

int
topic_delete_done(struct worker *w, int ti)
{
	return atomic_load_explicit(&w->shm->topics[ti].state,
	    memory_order_acquire) != TOPIC_DELETING;
}

void
handle_delete_topic(struct worker *w, struct conn *c, struct req *r)
{
	const struct delete_topic_req *q = r->dec;
	struct delete_st *st;

	if ((st = conn_alloc(c, sizeof(*st))) == NULL) {
		r->error = ERR_RESOURCE_LIMIT;
		r->state = REQ_DONE;
		return;
	}
	memset(st, 0, sizeof(*st));
	r->st = &st->resp;
	r->error = ERR_NONE;
	r->deadline = w->now + (q->timeout_ms > 0 ? q->timeout_ms :
	    TOPIC_DELETE_TIMEOUT_MS);
	st->resp.error = topic_delete_start(w, c, r->name, q->topic, q->topic_len,
	    &st->ti, &st->resp.partitions);
	if (st->resp.error != ERR_NONE) {
		r->state = REQ_DONE;
		return;
	}
	r->state = REQ_WAIT;
	handle_delete_topic_poll(w, c, r);
}

void
handle_delete_topic_poll(struct worker *w, struct conn *c, struct req *r)
{
	/* resp is the first member: r->st points at the whole state. */
	struct delete_st *st = (struct delete_st *)r->st;

	if (topic_delete_done(w, st->ti))
		r->state = REQ_DONE;
	else if (w->now >= r->deadline) {
		st->resp.error = ERR_TIMEOUT;
		r->state = REQ_DONE;
	}
}
