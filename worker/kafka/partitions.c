/*
 * Kafka's CreatePartitions v0-3 (proto/kafka/kmsg_partitions.h): grow
 * each topic named to its new total count through the operation of
 * worker/op/partitions.h, the native CREATE_PARTITIONS's too.
 *
 * Per topic, Kafka's errors with Kafka's messages where it has one:
 * INVALID_REQUEST for a topic named twice (each of them), INVALID_TOPIC_
 * EXCEPTION for a reserved name, TOPIC_AUTHORIZATION_FAILED without admin
 * permission on the topic, UNKNOWN_TOPIC_OR_PARTITION, INVALID_PARTITIONS
 * for a count not above the current one, INVALID_REPLICA_ASSIGNMENT for
 * an assignment that is not one list per new partition naming broker 0
 * (this node) alone, POLICY_VIOLATION when max_partitions or the free
 * slots are exceeded (CreateTopics' code for it), REQUEST_TIMED_OUT when
 * timeout_ms passed before the writer made the files (the grow goes on,
 * as in Kafka).  validate_only checks all of that but the free slots and
 * changes nothing; timeout_ms 0 or less answers once the grow is asked.
 */
#include <stdio.h>
#include <string.h>

#include "common/log.h"
#include "proto/kafka/kapi.h"
#include "proto/kafka/kmsg_partitions.h"
#include "worker/conn.h"
#include "worker/kafka/kafka.h"
#include "worker/kafka/partitions.h"
#include "worker/op/partitions.h"
#include "worker/worker.h"

/* One topic of a CreatePartitions in progress. */
struct kgrow_one {
	int16_t			 error;
	const char		*why;		/* NULL: a null message */
	int			 wait;		/* a waits for the writer */
	struct op_partitions_grow a;
};

struct kgrow_st {
	int32_t			 n;
	struct kgrow_one	*t;
};

/* Is topic i named again elsewhere in the request? */
static int
grow_duplicate(const struct km_partitions_topic *rt, int32_t n, int32_t i)
{
	int32_t j;

	for (j = 0; j < n; j++)
		if (j != i && rt[j].name.len == rt[i].name.len &&
		    rt[i].name.len > 0 &&
		    memcmp(rt[j].name.p, rt[i].name.p, (size_t)rt[i].name.len) == 0)
			return 1;
	return 0;
}

/*
 * A manual assignment (Kafka's replica assignment) of t, growing from
 * cur: one list per new partition, each naming broker 0 alone.
 */
static int
grow_assignment_ok(const struct km_partitions_topic *t, int32_t cur)
{
	const struct km_partitions_assignment *as = t->assignments.v;
	const int32_t *b;
	int32_t i;

	if (t->assignments.n <= 0)
		return 1;
	if (t->assignments.n != t->count - cur)
		return 0;
	for (i = 0; i < t->assignments.n; i++) {
		b = as[i].broker_ids.v;
		if (as[i].broker_ids.n != 1 || b[0] != 0)
			return 0;
	}
	return 1;
}

/* Kafka's error and message for the outcome of o's grow. */
static void
grow_answer(struct conn *c, const struct km_partitions_topic *t,
    struct kgrow_one *o)
{
	char *m;

	o->error = kafka_op_error(o->a.err);
	o->why = NULL;
	switch (o->a.err) {
	case OP_BAD_TOPIC_NAME:
	case OP_NO_TOPIC:
		o->error = KERR_UNKNOWN_TOPIC_OR_PARTITION;
		o->why = "no such topic";
		return;
	case OP_RESERVED_TOPIC:
		o->why = "the name is reserved for the broker's own use";
		return;
	case OP_NO_ROOM:
		o->why = "no room: raise max_partitions";
		return;
	case OP_TIMEOUT:
		o->why = "the partitions are asked for; their files are "
		    "still being made";
		return;
	case OP_BAD_PARTITIONS:
		break;
	default:
		return;
	}
	/* Kafka's controller's words (ReplicationControlManager). */
	if ((m = conn_alloc(c, 128)) == NULL)
		return;
	if (t->count == o->a.current)
		snprintf(m, 128, "Topic already has %d partition(s).",
		    (int)o->a.current);
	else
		snprintf(m, 128, "The topic %.*s currently has %d "
		    "partition(s); %d would not be an increase.",
		    t->name.len > 40 ? 40 : (int)t->name.len, t->name.p,
		    (int)o->a.current, (int)t->count);
	o->why = m;
}

void
kafka_create_partitions_exec(struct worker *w, struct conn *c, struct req *r)
{
	struct kafka_req *k = r->dec;
	const struct km_create_partitions_req *q = k->body;
	const struct km_partitions_topic *rt = q->topics.v;
	struct kgrow_st *st;
	struct kgrow_one *o;
	struct op_ctx x;
	int32_t i;
	int waiting = 0;

	r->state = REQ_DONE;
	if ((st = conn_alloc(c, sizeof(*st))) == NULL) {
		c->dead = 1;
		return;
	}
	st->n = q->topics.n > 0 ? q->topics.n : 0;
	if (st->n > 0 && (st->t = conn_alloc(c, (size_t)st->n *
	    sizeof(*st->t))) == NULL) {
		c->dead = 1;
		return;
	}
	k->kst = st;
	conn_op_ctx(c, r, &x);
	/* Kafka: timeout_ms <= 0 asks for no wait at all. */
	r->deadline = w->now + (q->timeout_ms > 0 ? q->timeout_ms : 0);
	for (i = 0; i < st->n; i++) {
		o = &st->t[i];
		memset(o, 0, sizeof(*o));
		if (grow_duplicate(rt, st->n, i)) {
			o->error = KERR_INVALID_REQUEST;
			o->why = "Duplicate topic name.";
			continue;
		}
		/* Checked first, with nothing changed: then the grow. */
		o->a.count = rt[i].count;
		o->a.validate_only = 1;
		(void)op_partitions_grow(&x, rt[i].name.p,
		    rt[i].name.len > 0 ? (size_t)rt[i].name.len : 0, &o->a);
		if (o->a.err == OP_OK && !grow_assignment_ok(&rt[i],
		    o->a.current)) {
			log_info("%s: CreatePartitions: growing topic %.*s "
			    "refused: an assignment to other brokers", c->peer,
			    rt[i].name.len > 0 ? (int)rt[i].name.len : 0,
			    rt[i].name.p);
			o->error = KERR_INVALID_REPLICA_ASSIGNMENT;
			o->why = "one assignment per new partition, each "
			    "naming broker 0 alone (one node holds every "
			    "partition)";
			continue;
		}
		if (o->a.err != OP_OK || q->validate_only) {
			grow_answer(c, &rt[i], o);
			continue;
		}
		o->a.validate_only = 0;
		o->a.deadline = q->timeout_ms > 0 ? r->deadline : 0;
		if (op_partitions_grow(&x, rt[i].name.p, (size_t)rt[i].name.len,
		    &o->a) == OP_WAIT)
			waiting = o->wait = 1;
		else
			grow_answer(c, &rt[i], o);
	}
	if (waiting)
		r->state = REQ_WAIT;
}

void
kafka_create_partitions_poll(struct worker *w, struct conn *c, struct req *r)
{
	struct kafka_req *k = r->dec;
	const struct km_create_partitions_req *q = k->body;
	const struct km_partitions_topic *rt = q->topics.v;
	struct kgrow_st *st = k->kst;
	struct kgrow_one *o;
	struct op_ctx x;
	int32_t i;
	int waiting = 0;

	(void)w;
	conn_op_ctx(c, r, &x);
	for (i = 0; i < st->n; i++) {
		o = &st->t[i];
		if (!o->wait)
			continue;
		if (op_partitions_grow_poll(&x, &o->a) == OP_WAIT) {
			waiting = 1;
			continue;
		}
		o->wait = 0;
		grow_answer(c, &rt[i], o);
	}
	r->state = waiting ? REQ_WAIT : REQ_DONE;
}

void
kafka_create_partitions_emit(struct worker *w, struct conn *c, struct req *r)
{
	struct kafka_req *k = r->dec;
	const struct km_create_partitions_req *q = k->body;
	const struct km_partitions_topic *rt = q->topics.v;
	const struct kgrow_st *st = k->kst;
	struct km_create_partitions_resp s;
	struct km_partitions_result *t = NULL;
	int32_t i;

	(void)w;
	kdesc_defaults(kmsg_create_partitions.km_resp, &s);
	if (st->n > 0 && (t = conn_alloc(c, (size_t)st->n *
	    sizeof(*t))) == NULL) {
		c->dead = 1;
		return;
	}
	for (i = 0; i < st->n; i++) {
		memset(&t[i], 0, sizeof(t[i]));
		/* Names from the body: it is decoded again if it moved. */
		t[i].name = rt[i].name;
		t[i].error_code = st->t[i].error;
		t[i].error_message = kstr_c(st->t[i].why);
	}
	s.results.n = st->n;
	s.results.v = t;
	kafka_emit_desc(c, r, &s);
}
