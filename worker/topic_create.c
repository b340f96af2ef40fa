/*
 * Topic creation in the worker (worker/topic_create.h).  The entry is
 * published in shared memory at once, so produces and fetches find it;
 * the answer waits for the writer to say the files exist.  A request
 * whose deadline passes first is answered TIMEOUT; the topic stays
 * created and the writer goes on making it.
 *
 * A create of a topic that exists answers TOPIC_EXISTS at once without
 * waiting, as Kafka does: that request created nothing, and a client
 * that treats it as success asked for a topic, not for its files.
 */
#include <errno.h>
#include <stdatomic.h>
#include <string.h>

#include "common/config.h"
#include "common/log.h"
#include "proto/msg.h"
#include "shm/shm.h"
#include "shm/topics.h"
#include "store/topic.h"
#include "worker/access.h"
#include "worker/conn.h"
#include "worker/topic_create.h"
#include "worker/worker.h"

/* The native request's progress. */
struct create_st {
	struct create_topic_resp resp;	/* first: r->st points here */
	int		ti;
	uint32_t	inc;
};

uint32_t
topic_create_incarnation(struct worker *w, int ti)
{
	const struct shm_topic *t = &w->shm->topics[ti];

	if (t->first_part >= w->shm->hdr->limits.max_partitions)
		return 0;
	return atomic_load_explicit(&w->shm->parts[t->first_part].incarnation,
	    memory_order_acquire);
}

int16_t
topic_create_check(struct worker *w, int ti, uint32_t inc)
{
	const struct shm_topic *t = &w->shm->topics[ti];
	uint32_t i;

	/*
	 * A delete bumps every partition's incarnation before the entry
	 * can be freed and filled again, so a later topic in the same
	 * entry is never mistaken for ours.
	 */
	if (atomic_load_explicit(&t->state, memory_order_acquire) !=
	    TOPIC_READY || topic_create_incarnation(w, ti) != inc)
		return ERR_UNKNOWN_TOPIC_OR_PARTITION;
	if (atomic_load_explicit(&t->opened, memory_order_acquire) != 0)
		return ERR_NONE;
	for (i = 0; i < (uint32_t)t->partitions; i++) {
		if (t->first_part + i >= w->shm->hdr->limits.max_partitions)
			break;
		if (atomic_load_explicit(&w->shm->parts[t->first_part + i].
		    storage_error, memory_order_relaxed) != 0)
			return ERR_STORAGE;
	}
	return TOPIC_CREATE_WAIT;
}

int16_t
topic_reserved_refuse(struct conn *c, const char *what, const char *name,
    size_t len)
{
	if (!topic_name_reserved(name, len))
		return ERR_NONE;
	log_warnx("%s: %s of topic %.*s refused: the name is reserved for "
	    "the broker's own use", c->peer, what, (int)len, name);
	return ERR_INVALID_TOPIC;
}

void
handle_create_topic(struct worker *w, struct conn *c, struct req *r)
{
	const struct create_topic_req *q = r->dec;
	struct create_st *st;
	char name[TOPIC_NAME_MAX + 1];
	int32_t n;
	int idx = -1;

	if ((st = conn_alloc(c, sizeof(*st))) == NULL) {
		r->error = ERR_RESOURCE_LIMIT;
		r->state = REQ_DONE;
		return;
	}
	memset(st, 0, sizeof(*st));
	r->st = &st->resp;
	r->error = ERR_NONE;
	r->state = REQ_DONE;
	if (q->topic_len > TOPIC_NAME_MAX ||
	    !topic_name_valid(q->topic, q->topic_len)) {
		st->resp.error = ERR_INVALID_TOPIC;
		return;
	}
	if ((st->resp.error = topic_reserved_refuse(c, "create", q->topic,
	    q->topic_len)) != ERR_NONE)
		return;
	if ((st->resp.error = auth_topic(c, AUTH_ADMIN, q->topic,
	    q->topic_len, r->name)) != ERR_NONE)
		return;
	memcpy(name, q->topic, q->topic_len);
	name[q->topic_len] = '\0';
	n = q->partitions == 0 ? config_topic_partitions(w->conf, name) :
	    q->partitions;
	if (n < 1 || (uint32_t)n > w->conf->max_partitions) {
		st->resp.error = ERR_INVALID_PARTITIONS;
		return;
	}
	if (shm_topic_create(w->shm, q->topic, q->topic_len, n, &idx) == -1) {
		if (errno == EEXIST) {
			st->resp.error = ERR_TOPIC_EXISTS;
			if (idx >= 0)
				st->resp.partitions = w->shm->topics[idx].partitions;
		} else if (errno == ENOSPC)
			st->resp.error = ERR_RESOURCE_LIMIT;
		else {
			log_warn("create topic %s", name);
			st->resp.error = ERR_UNKNOWN;
		}
		return;
	}
	log_info("created topic %s with %d partitions", name, (int)n);
	st->resp.partitions = n;
	st->ti = idx;
	st->inc = topic_create_incarnation(w, idx);
	worker_wake_writer(w, 1);
	r->deadline = w->now + TOPIC_CREATE_TIMEOUT_MS;
	r->state = REQ_WAIT;
	handle_create_topic_poll(w, c, r);
}

void
handle_create_topic_poll(struct worker *w, struct conn *c, struct req *r)
{
	struct create_st *st = (struct create_st *)r->st;
	int16_t err;

	(void)c;
	if ((err = topic_create_check(w, st->ti, st->inc)) != TOPIC_CREATE_WAIT) {
		st->resp.error = err;
		r->state = REQ_DONE;
	} else if (w->now >= r->deadline) {
		st->resp.error = ERR_TIMEOUT;
		r->state = REQ_DONE;
	}
}
