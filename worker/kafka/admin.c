/*
 * Kafka topic administration in a worker: CreateTopics v0-2 and
 * DeleteTopics v0-1.
 *
 * A topic is created as the native CREATE_TOPIC creates it (the shared
 * topic directory; the writer makes its files).  One broker holds one
 * copy: a replication factor other than 1 or -1 (the default) is
 * INVALID_REPLICATION_FACTOR, a manual assignment must name broker 0
 * once per partition (INVALID_REPLICA_ASSIGNMENT otherwise).  Topic
 * settings live in flume.conf ([topic NAME] sections), so a request
 * carrying configs is INVALID_CONFIG rather than silently ignored.
 * validate_only runs every check and creates nothing.  Each created
 * topic is in shared memory at once; the answer waits, up to timeout_ms,
 * for the writer to make its files (worker/topic_create.h), then says
 * NONE, KAFKA_STORAGE_ERROR when the writer could not make them, or
 * REQUEST_TIMED_OUT when the timeout passed first (the topic stays
 * created, as in Kafka).  timeout_ms 0 or less answers at once.
 *
 * DeleteTopics deletes as the native DELETE_TOPIC does (worker/
 * topic_delete.h): each topic is marked deleted at once and the answer
 * waits, up to the request's timeout_ms, for the writer to remove the
 * files.  Per topic: UNKNOWN_TOPIC_OR_PARTITION when there is none of
 * that name, TOPIC_AUTHORIZATION_FAILED without admin permission on it
 * (the permission that creates it), REQUEST_TIMED_OUT when the timeout
 * passed first (the delete still completes).
 *
 * The reserved names (store/topic.h: Kafka's internal topics, the lock
 * file) are INVALID_TOPIC_EXCEPTION for both, the code Kafka answers an
 * append to an internal topic or a delete of its records with; its
 * kafka-topics tool refuses to delete one.  (Kafka's controller answers
 * a create of __cluster_metadata INVALID_REQUEST and would delete
 * __consumer_offsets; one code for "not yours" serves clients better.)
 */
#include <errno.h>
#include <string.h>

#include "common/config.h"
#include "common/log.h"
#include "proto/kafka/kadmin.h"
#include "proto/kafka/kapi.h"
#include "shm/shm.h"
#include "shm/topics.h"
#include "store/topic.h"
#include "worker/auth.h"
#include "worker/conn.h"
#include "worker/kafka/kafka.h"
#include "worker/kafka/admin.h"
#include "worker/topic_create.h"
#include "worker/topic_delete.h"
#include "worker/worker.h"

/* Check one topic of a CreateTopics; its partition count in *n. */
static int16_t
create_check(struct worker *w, struct conn *c, const struct kcreate_topic *t,
    const char *api, int32_t *n, const char **why)
{
	char name[TOPIC_NAME_MAX + 1];
	int32_t i;
	int16_t err;

	*why = NULL;
	if (t->name.len <= 0 || t->name.len > TOPIC_NAME_MAX ||
	    !topic_name_valid(t->name.p, (size_t)t->name.len)) {
		*why = "invalid topic name";
		return KERR_INVALID_TOPIC_EXCEPTION;
	}
	if (topic_reserved_refuse(c, "Kafka CreateTopics", t->name.p,
	    (size_t)t->name.len) != ERR_NONE) {
		*why = "the name is reserved for the broker's own use";
		return KERR_INVALID_TOPIC_EXCEPTION;
	}
	if ((err = kafka_error(auth_topic(c, AUTH_ADMIN, t->name.p,
	    (size_t)t->name.len, api))) != KERR_NONE)
		return err;
	if (shm_topic_find(w->shm, t->name.p, (size_t)t->name.len) >= 0) {
		*why = "topic already exists";
		return KERR_TOPIC_ALREADY_EXISTS;
	}
	if (t->nassign > 0) {
		if (t->num_partitions != -1 || t->replication_factor != -1) {
			*why = "give either an assignment or partitions and "
			    "replication factor";
			return KERR_INVALID_REQUEST;
		}
		for (i = 0; i < t->nassign; i++)
			if (t->assign[i].partition != i ||
			    t->assign[i].nbrokers != 1 ||
			    t->assign[i].brokers[0] != 0) {
				*why = "one broker (0) holds every partition";
				return KERR_INVALID_REPLICA_ASSIGNMENT;
			}
		*n = t->nassign;
	} else {
		if (t->replication_factor != 1 && t->replication_factor != -1) {
			*why = "replication factor must be 1 (one broker)";
			return KERR_INVALID_REPLICATION_FACTOR;
		}
		memcpy(name, t->name.p, (size_t)t->name.len);
		name[t->name.len] = '\0';
		*n = t->num_partitions == -1 ?
		    config_topic_partitions(w->conf, name) : t->num_partitions;
	}
	if (*n < 1 || (uint32_t)*n > w->conf->max_partitions) {
		*why = "partitions must be 1 to max_partitions";
		return KERR_INVALID_PARTITIONS;
	}
	if (t->nconfigs > 0) {
		*why = "topic settings are set in flume.conf";
		return KERR_INVALID_CONFIG;
	}
	return KERR_NONE;
}

/* A CreateTopics in progress: the answer, then each created topic's entry. */
struct kcreate_st {
	struct ktopic_errors_resp	 resp;	/* first: k->kst points here */
	struct ktopic_error		*e;
	int				*ti;	/* -1: answered already */
	uint32_t			*inc;	/* topic_create_incarnation */
};

void
kafka_create_topics_exec(struct worker *w, struct conn *c, struct req *r)
{
	struct kafka_req *k = r->dec;
	const struct kcreate_topics_req *q = &k->k.create_topics;
	struct kcreate_st *st;
	struct ktopic_error *e;
	const char *why;
	int32_t i, n = 0;
	int idx, created = 0;

	r->state = REQ_DONE;
	if ((st = conn_alloc(c, sizeof(*st))) == NULL) {
		c->dead = 1;
		return;
	}
	memset(st, 0, sizeof(*st));
	st->resp.ntopics = q->ntopics > 0 ? q->ntopics : 0;
	if (st->resp.ntopics > 0 && ((st->e = conn_alloc(c,
	    (size_t)st->resp.ntopics * sizeof(*st->e))) == NULL ||
	    (st->ti = conn_alloc(c, (size_t)st->resp.ntopics *
	    sizeof(*st->ti))) == NULL ||
	    (st->inc = conn_alloc(c, (size_t)st->resp.ntopics *
	    sizeof(*st->inc))) == NULL)) {
		c->dead = 1;
		return;
	}
	e = st->e;
	st->resp.topics = e;
	k->kst = st;
	for (i = 0; i < st->resp.ntopics; i++) {
		const struct kcreate_topic *t = &q->topics[i];

		st->ti[i] = -1;
		e[i].name = t->name;
		e[i].error = create_check(w, c, t, r->name, &n, &why);
		e[i].message = kstr_c(why);	/* NULL: a null message */
		if (e[i].error != KERR_NONE || q->validate_only)
			continue;
		if (shm_topic_create(w->shm, t->name.p, (size_t)t->name.len, n,
		    &idx) == -1) {
			if (errno == EEXIST) {
				e[i].error = KERR_TOPIC_ALREADY_EXISTS;
				e[i].message = kstr_c("topic already exists");
			} else if (errno == ENOSPC) {
				e[i].error = KERR_POLICY_VIOLATION;
				e[i].message = kstr_c("no room: raise max_topics "
				    "or max_partitions");
			} else {
				log_warn("create topic %.*s", (int)t->name.len,
				    t->name.p);
				e[i].error = KERR_UNKNOWN_SERVER_ERROR;
			}
			continue;
		}
		log_info("created topic %.*s with %d partitions (Kafka "
		    "CreateTopics from %s)", (int)t->name.len, t->name.p,
		    (int)n, c->peer);
		created = 1;
		/* Kafka: timeout_ms <= 0 asks for no wait at all. */
		if (q->timeout_ms > 0) {
			st->ti[i] = idx;
			st->inc[i] = topic_create_incarnation(w, idx);
		}
	}
	if (!created)
		return;
	worker_wake_writer(w, 1);
	r->deadline = w->now + (q->timeout_ms > 0 ? q->timeout_ms : 0);
	r->state = REQ_WAIT;
	kafka_create_topics_poll(w, c, r);
}

void
kafka_create_topics_poll(struct worker *w, struct conn *c, struct req *r)
{
	struct kafka_req *k = r->dec;
	struct kcreate_st *st = k->kst;
	int32_t i;
	int16_t err;
	int waiting = 0;

	(void)c;
	for (i = 0; i < st->resp.ntopics; i++) {
		if (st->ti[i] < 0)
			continue;
		if ((err = topic_create_check(w, st->ti[i], st->inc[i])) !=
		    TOPIC_CREATE_WAIT) {
			st->e[i].error = kafka_error(err);
			if (err == ERR_STORAGE)
				st->e[i].message = kstr_c("the topic is "
				    "created but its files could not be made; "
				    "retrying");
			st->ti[i] = -1;
		} else if (w->now >= r->deadline) {
			st->e[i].error = KERR_REQUEST_TIMED_OUT;
			st->e[i].message = kstr_c("the topic is created; its "
			    "files are still being made");
			st->ti[i] = -1;
		} else
			waiting = 1;
	}
	r->state = waiting ? REQ_WAIT : REQ_DONE;
}

void
kafka_create_topics_emit(struct worker *w, struct conn *c, struct req *r)
{
	struct kafka_req *k = r->dec;
	size_t pos;

	(void)w;
	pos = kafka_resp_begin(c, r);
	kcreate_topics_encode_resp(&c->out, k->h.api_version, k->kst);
	kafka_resp_end(c, pos);
}

/* A DeleteTopics in progress: the answer, then each topic's entry. */
struct kdelete_st {
	struct ktopic_errors_resp	 resp;	/* first: k->kst points here */
	struct ktopic_error		*e;
	int				*ti;	/* -1: answered already */
};

void
kafka_delete_topics_exec(struct worker *w, struct conn *c, struct req *r)
{
	struct kafka_req *k = r->dec;
	const struct kdelete_topics_req *q = &k->k.delete_topics;
	struct kdelete_st *st;
	int32_t i, parts;
	int16_t err;

	r->state = REQ_DONE;
	if ((st = conn_alloc(c, sizeof(*st))) == NULL) {
		c->dead = 1;
		return;
	}
	memset(st, 0, sizeof(*st));
	st->resp.ntopics = q->ntopics > 0 ? q->ntopics : 0;
	if (st->resp.ntopics > 0 && ((st->e = conn_alloc(c,
	    (size_t)st->resp.ntopics * sizeof(*st->e))) == NULL ||
	    (st->ti = conn_alloc(c, (size_t)st->resp.ntopics *
	    sizeof(*st->ti))) == NULL)) {
		c->dead = 1;
		return;
	}
	st->resp.topics = st->e;
	k->kst = st;
	r->deadline = w->now + (q->timeout_ms > 0 ? q->timeout_ms :
	    TOPIC_DELETE_TIMEOUT_MS);
	for (i = 0; i < st->resp.ntopics; i++) {
		st->e[i].name = q->topics[i];
		st->e[i].message = kstr_c(NULL);
		st->ti[i] = -1;
		err = q->topics[i].len <= 0 ? ERR_UNKNOWN_TOPIC_OR_PARTITION :
		    topic_delete_start(w, c, r->name, q->topics[i].p,
		    (size_t)q->topics[i].len, &st->ti[i], &parts);
		/* No topic has a bad name; a reserved one is Kafka's own. */
		if (err == ERR_INVALID_TOPIC && !topic_name_reserved(
		    q->topics[i].p, (size_t)q->topics[i].len))
			err = ERR_UNKNOWN_TOPIC_OR_PARTITION;
		st->e[i].error = kafka_error(err);
		if (err != ERR_NONE)
			st->ti[i] = -1;
	}
	r->state = REQ_WAIT;
	kafka_delete_topics_poll(w, c, r);
}

void
kafka_delete_topics_poll(struct worker *w, struct conn *c, struct req *r)
{
	struct kafka_req *k = r->dec;
	struct kdelete_st *st = k->kst;
	int32_t i;
	int waiting = 0;

	for (i = 0; i < st->resp.ntopics; i++) {
		if (st->ti[i] < 0)
			continue;
		if (topic_delete_done(w, st->ti[i]))
			st->ti[i] = -1;
		else if (w->now >= r->deadline) {
			st->e[i].error = KERR_REQUEST_TIMED_OUT;
			st->ti[i] = -1;
		} else
			waiting = 1;
	}
	r->state = waiting ? REQ_WAIT : REQ_DONE;
}

void
kafka_delete_topics_emit(struct worker *w, struct conn *c, struct req *r)
{
	struct kafka_req *k = r->dec;
	size_t pos;

	(void)w;
	pos = kafka_resp_begin(c, r);
	kdelete_topics_encode_resp(&c->out, k->h.api_version, k->kst);
	kafka_resp_end(c, pos);
}
