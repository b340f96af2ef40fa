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
 * for the writer to make its files (worker/op/topics.h), then says
 * NONE, KAFKA_STORAGE_ERROR when the writer could not make them, or
 * REQUEST_TIMED_OUT when the timeout passed first (the topic stays
 * created, as in Kafka).  timeout_ms 0 or less answers at once.
 *
 * DeleteTopics deletes as the native DELETE_TOPIC does (worker/
 * op/topics.h): each topic is marked deleted at once and the answer
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
#include <string.h>

#include "proto/kafka/kadmin.h"
#include "proto/kafka/kapi.h"
#include "worker/conn.h"
#include "worker/kafka/kafka.h"
#include "worker/kafka/admin.h"
#include "worker/op/part.h"
#include "worker/op/topics.h"
#include "worker/worker.h"

/* Check one topic of a CreateTopics; its partition count in *n. */
static int16_t
create_check(const struct op_ctx *x, const struct kcreate_topic *t,
    int32_t *n, const char **why)
{
	enum op_err err;
	int32_t asked, i;
	int idx;

	*why = NULL;
	err = t->name.len <= 0 ? OP_BAD_TOPIC_NAME :
	    op_topic_create_check(x, t->name.p, (size_t)t->name.len);
	if (err == OP_BAD_TOPIC_NAME) {
		*why = "invalid topic name";
		return KERR_INVALID_TOPIC_EXCEPTION;
	}
	if (err == OP_RESERVED_TOPIC) {
		*why = "the name is reserved for the broker's own use";
		return KERR_INVALID_TOPIC_EXCEPTION;
	}
	if (err != OP_OK)
		return kafka_op_error(err);
	if (op_topic_resolve(x->w, t->name.p, (size_t)t->name.len, 0,
	    &idx) == OP_OK) {
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
		asked = t->nassign;
	} else {
		if (t->replication_factor != 1 && t->replication_factor != -1) {
			*why = "replication factor must be 1 (one broker)";
			return KERR_INVALID_REPLICATION_FACTOR;
		}
		/* Kafka's -1 is the configured count, the operation's 0. */
		asked = t->num_partitions == -1 ? 0 :
		    t->num_partitions == 0 ? -1 : t->num_partitions;
	}
	if (op_topic_create_partitions(x, t->name.p, (size_t)t->name.len,
	    asked, n) != OP_OK) {
		*why = "partitions must be 1 to max_partitions";
		return KERR_INVALID_PARTITIONS;
	}
	if (t->nconfigs > 0) {
		*why = "topic settings are set in flume.conf";
		return KERR_INVALID_CONFIG;
	}
	return KERR_NONE;
}

/* The answer for a create that ended with a->err. */
static void
create_answer(struct ktopic_error *e, const struct op_topic_create *a)
{
	e->error = kafka_op_error(a->err);
	switch (a->err) {
	case OP_TOPIC_EXISTS:
		e->message = kstr_c("topic already exists");
		break;
	case OP_NO_ROOM:
		e->message = kstr_c("no room: raise max_topics or "
		    "max_partitions");
		break;
	case OP_STORAGE:
		e->message = kstr_c("the topic is created but its files could "
		    "not be made; retrying");
		break;
	case OP_TIMEOUT:
		e->message = kstr_c("the topic is created; its files are "
		    "still being made");
		break;
	default:
		break;
	}
}

/* A CreateTopics in progress: the answer, then each topic's create. */
struct kcreate_st {
	struct ktopic_errors_resp	 resp;	/* first: k->kst points here */
	struct ktopic_error		*e;
	struct op_topic_create		*a;
	uint8_t				*wait;	/* a[i] waits for the writer */
};

void
kafka_create_topics_exec(struct worker *w, struct conn *c, struct req *r)
{
	struct kafka_req *k = r->dec;
	const struct kcreate_topics_req *q = &k->k.create_topics;
	struct kcreate_st *st;
	struct ktopic_error *e;
	struct op_ctx x;
	const char *why;
	int32_t i, n = 0;
	int waiting = 0;

	r->state = REQ_DONE;
	if ((st = conn_alloc(c, sizeof(*st))) == NULL) {
		c->dead = 1;
		return;
	}
	memset(st, 0, sizeof(*st));
	st->resp.ntopics = q->ntopics > 0 ? q->ntopics : 0;
	if (st->resp.ntopics > 0 && ((st->e = conn_alloc(c,
	    (size_t)st->resp.ntopics * sizeof(*st->e))) == NULL ||
	    (st->a = conn_alloc(c, (size_t)st->resp.ntopics *
	    sizeof(*st->a))) == NULL ||
	    (st->wait = conn_alloc(c, (size_t)st->resp.ntopics *
	    sizeof(*st->wait))) == NULL)) {
		c->dead = 1;
		return;
	}
	e = st->e;
	st->resp.topics = e;
	k->kst = st;
	conn_op_ctx(c, r, &x);
	/* Kafka: timeout_ms <= 0 asks for no wait at all. */
	r->deadline = w->now + (q->timeout_ms > 0 ? q->timeout_ms : 0);
	for (i = 0; i < st->resp.ntopics; i++) {
		const struct kcreate_topic *t = &q->topics[i];

		st->wait[i] = 0;
		e[i].name = t->name;
		e[i].error = create_check(&x, t, &n, &why);
		e[i].message = kstr_c(why);	/* NULL: a null message */
		if (e[i].error != KERR_NONE || q->validate_only)
			continue;
		memset(&st->a[i], 0, sizeof(st->a[i]));
		st->a[i].partitions = n;
		st->a[i].deadline = q->timeout_ms > 0 ? r->deadline : 0;
		if (op_topic_create(&x, t->name.p, (size_t)t->name.len,
		    &st->a[i]) == OP_WAIT)
			waiting = st->wait[i] = 1;
		else
			create_answer(&e[i], &st->a[i]);
	}
	if (waiting)
		r->state = REQ_WAIT;
}

void
kafka_create_topics_poll(struct worker *w, struct conn *c, struct req *r)
{
	struct kafka_req *k = r->dec;
	struct kcreate_st *st = k->kst;
	struct op_ctx x;
	int32_t i;
	int waiting = 0;

	(void)w;
	conn_op_ctx(c, r, &x);
	for (i = 0; i < st->resp.ntopics; i++) {
		if (!st->wait[i])
			continue;
		if (op_topic_create_poll(&x, &st->a[i]) == OP_WAIT) {
			waiting = 1;
			continue;
		}
		st->wait[i] = 0;
		create_answer(&st->e[i], &st->a[i]);
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

/* A DeleteTopics in progress: the answer, then each topic's delete. */
struct kdelete_st {
	struct ktopic_errors_resp	 resp;	/* first: k->kst points here */
	struct ktopic_error		*e;
	struct op_topic_delete		*a;
	uint8_t				*wait;	/* a[i] waits for the writer */
};

/* No topic has a bad name; a reserved one is Kafka's own. */
static int16_t
delete_error(enum op_err err)
{
	return err == OP_BAD_TOPIC_NAME ? KERR_UNKNOWN_TOPIC_OR_PARTITION :
	    kafka_op_error(err);
}

void
kafka_delete_topics_exec(struct worker *w, struct conn *c, struct req *r)
{
	struct kafka_req *k = r->dec;
	const struct kdelete_topics_req *q = &k->k.delete_topics;
	struct kdelete_st *st;
	struct op_ctx x;
	int32_t i;
	int waiting = 0;

	r->state = REQ_DONE;
	if ((st = conn_alloc(c, sizeof(*st))) == NULL) {
		c->dead = 1;
		return;
	}
	memset(st, 0, sizeof(*st));
	st->resp.ntopics = q->ntopics > 0 ? q->ntopics : 0;
	if (st->resp.ntopics > 0 && ((st->e = conn_alloc(c,
	    (size_t)st->resp.ntopics * sizeof(*st->e))) == NULL ||
	    (st->a = conn_alloc(c, (size_t)st->resp.ntopics *
	    sizeof(*st->a))) == NULL ||
	    (st->wait = conn_alloc(c, (size_t)st->resp.ntopics *
	    sizeof(*st->wait))) == NULL)) {
		c->dead = 1;
		return;
	}
	st->resp.topics = st->e;
	k->kst = st;
	conn_op_ctx(c, r, &x);
	r->deadline = w->now + (q->timeout_ms > 0 ? q->timeout_ms :
	    TOPIC_DELETE_TIMEOUT_MS);
	for (i = 0; i < st->resp.ntopics; i++) {
		st->e[i].name = q->topics[i];
		st->e[i].message = kstr_c(NULL);
		st->wait[i] = 0;
		if (q->topics[i].len <= 0) {
			st->e[i].error = KERR_UNKNOWN_TOPIC_OR_PARTITION;
			continue;
		}
		memset(&st->a[i], 0, sizeof(st->a[i]));
		st->a[i].deadline = r->deadline;
		if (op_topic_delete(&x, q->topics[i].p,
		    (size_t)q->topics[i].len, &st->a[i]) == OP_WAIT) {
			st->e[i].error = KERR_NONE;
			waiting = st->wait[i] = 1;
		} else
			st->e[i].error = delete_error(st->a[i].err);
	}
	if (waiting)
		r->state = REQ_WAIT;
}

void
kafka_delete_topics_poll(struct worker *w, struct conn *c, struct req *r)
{
	struct kafka_req *k = r->dec;
	struct kdelete_st *st = k->kst;
	struct op_ctx x;
	int32_t i;
	int waiting = 0;

	(void)w;
	conn_op_ctx(c, r, &x);
	for (i = 0; i < st->resp.ntopics; i++) {
		if (!st->wait[i])
			continue;
		if (op_topic_delete_poll(&x, &st->a[i]) == OP_WAIT) {
			waiting = 1;
			continue;
		}
		st->wait[i] = 0;
		st->e[i].error = delete_error(st->a[i].err);
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
