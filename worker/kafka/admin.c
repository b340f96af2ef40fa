/*
 * Kafka topic administration in a worker: CreateTopics v0-7 and
 * DeleteTopics v0-6, through their descriptions (proto/kafka/kmsg_admin.h).
 *
 * A topic is created as the native CREATE_TOPIC creates it (the shared
 * topic directory; the writer makes its files).  One broker holds one
 * copy: a replication factor other than 1 or -1 (the default) is
 * INVALID_REPLICATION_FACTOR, a manual assignment must name broker 0
 * once per partition (INVALID_REPLICA_ASSIGNMENT otherwise).  Topic
 * settings live in flume.conf ([topic NAME] sections), so a request
 * carrying configs is INVALID_CONFIG rather than silently ignored.
 * validate_only (v1+) runs every check and creates nothing.  From v4 a
 * num_partitions or replication_factor of -1 is the broker's default
 * (Flume takes -1 in every version: the configured count, and 1).  From
 * v5 the answer carries the topic's partitions, replication factor and
 * the settings a Kafka client reads as its configs (retention.ms,
 * retention.bytes, segment.bytes, max.message.bytes: flume.conf's, so
 * STATIC_BROKER_CONFIG), from v7 its id.  Each created
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
 * passed first (the delete still completes).  From v6 a topic may be
 * named by its id (KIP-516): an id no topic has is UNKNOWN_TOPIC_ID,
 * answered with a null name; each answer carries the topic's id.
 *
 * The reserved names (store/topic.h: Kafka's internal topics, the lock
 * file) are INVALID_TOPIC_EXCEPTION for both, the code Kafka answers an
 * append to an internal topic or a delete of its records with; its
 * kafka-topics tool refuses to delete one.  (Kafka's controller answers
 * a create of __cluster_metadata INVALID_REQUEST and would delete
 * __consumer_offsets; one code for "not yours" serves clients better.)
 */
#include <stdio.h>
#include <string.h>

#include "common/config.h"
#include "proto/kafka/kapi.h"
#include "proto/kafka/kmsg_admin.h"
#include "worker/conn.h"
#include "worker/kafka/kafka.h"
#include "worker/kafka/admin.h"
#include "worker/op/part.h"
#include "worker/op/topics.h"
#include "worker/worker.h"

/* Kafka's ConfigSource for a setting read from the broker's file. */
#define KCONFIG_STATIC_BROKER	4

/* Check one topic of a CreateTopics; its partition count in *n. */
static int16_t
create_check(const struct op_ctx *x, const struct km_creatable_topic *t,
    int32_t *n, const char **why)
{
	const struct km_replica_assignment *as = t->assignments.v;
	const int32_t *b;
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
	if (t->assignments.n > 0) {
		if (t->num_partitions != -1 || t->replication_factor != -1) {
			*why = "give either an assignment or partitions and "
			    "replication factor";
			return KERR_INVALID_REQUEST;
		}
		for (i = 0; i < t->assignments.n; i++) {
			b = as[i].broker_ids.v;
			if (as[i].partition_index != i ||
			    as[i].broker_ids.n != 1 || b[0] != 0) {
				*why = "one broker (0) holds every partition";
				return KERR_INVALID_REPLICA_ASSIGNMENT;
			}
		}
		asked = t->assignments.n;
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
	if (t->configs.n > 0) {
		*why = "topic settings are set in flume.conf";
		return KERR_INVALID_CONFIG;
	}
	return KERR_NONE;
}

/* The message for a create that ended with err, or NULL. */
static const char *
create_message(enum op_err err)
{
	switch (err) {
	case OP_TOPIC_EXISTS:
		return "topic already exists";
	case OP_NO_ROOM:
		return "no room: raise max_topics or max_partitions";
	case OP_STORAGE:
		return "the topic is created but its files could not be made; "
		    "retrying";
	case OP_TIMEOUT:
		return "the topic is created; its files are still being made";
	default:
		return NULL;
	}
}

/* One topic of a CreateTopics in progress. */
struct kcreate_one {
	int16_t			 error;
	const char		*why;		/* NULL: a null message */
	int32_t			 partitions;	/* checked: the count */
	int			 wait;		/* a waits for the writer */
	struct op_topic_create	 a;
};

struct kcreate_st {
	int32_t			 n;
	struct kcreate_one	*t;
};

void
kafka_create_topics_exec(struct worker *w, struct conn *c, struct req *r)
{
	struct kafka_req *k = r->dec;
	const struct km_create_topics_req *q = k->body;
	const struct km_creatable_topic *rt = q->topics.v;
	struct kcreate_st *st;
	struct kcreate_one *o;
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
		o->error = create_check(&x, &rt[i], &o->partitions, &o->why);
		if (o->error != KERR_NONE || q->validate_only)
			continue;
		o->a.partitions = o->partitions;
		o->a.deadline = q->timeout_ms > 0 ? r->deadline : 0;
		if (op_topic_create(&x, rt[i].name.p, (size_t)rt[i].name.len,
		    &o->a) == OP_WAIT)
			waiting = o->wait = 1;
		else {
			o->error = kafka_op_error(o->a.err);
			o->why = create_message(o->a.err);
		}
	}
	if (waiting)
		r->state = REQ_WAIT;
}

void
kafka_create_topics_poll(struct worker *w, struct conn *c, struct req *r)
{
	struct kafka_req *k = r->dec;
	struct kcreate_st *st = k->kst;
	struct kcreate_one *o;
	struct op_ctx x;
	int32_t i;
	int waiting = 0;

	(void)w;
	conn_op_ctx(c, r, &x);
	for (i = 0; i < st->n; i++) {
		o = &st->t[i];
		if (!o->wait)
			continue;
		if (op_topic_create_poll(&x, &o->a) == OP_WAIT) {
			waiting = 1;
			continue;
		}
		o->wait = 0;
		o->error = kafka_op_error(o->a.err);
		o->why = create_message(o->a.err);
	}
	r->state = waiting ? REQ_WAIT : REQ_DONE;
}

/*
 * The settings of topic name a Kafka client reads as its configs (v5+),
 * in c's memory: 0, or -1.
 */
static int
create_configs(struct worker *w, struct conn *c, struct kstr name,
    struct karray *out)
{
	char tname[TOPIC_NAME_MAX + 1], *v;
	const struct topic_config *tc;
	const struct log_settings *log = &w->conf->log;
	struct km_created_config *cf;
	int64_t vals[4];
	static const char *const names[4] = { "retention.ms",
	    "retention.bytes", "segment.bytes", "max.message.bytes" };
	int i;

	if (name.len <= 0 || name.len > TOPIC_NAME_MAX)
		return 0;
	memcpy(tname, name.p, (size_t)name.len);
	tname[name.len] = '\0';
	if ((tc = config_topic(w->conf, tname)) != NULL)
		log = &tc->log;
	vals[0] = log->retention_ms;
	vals[1] = log->retention_bytes;
	vals[2] = (int64_t)log->segment_bytes;
	vals[3] = (int64_t)w->conf->max_message_bytes;
	if ((cf = conn_alloc(c, 4 * sizeof(*cf))) == NULL)
		return -1;
	for (i = 0; i < 4; i++) {
		if ((v = conn_alloc(c, 24)) == NULL)
			return -1;
		snprintf(v, 24, "%lld", (long long)vals[i]);
		memset(&cf[i], 0, sizeof(cf[i]));
		cf[i].name = kstr_c(names[i]);
		cf[i].value = kstr_c(v);
		cf[i].config_source = KCONFIG_STATIC_BROKER;
	}
	out->n = 4;
	out->v = cf;
	return 0;
}

void
kafka_create_topics_emit(struct worker *w, struct conn *c, struct req *r)
{
	struct kafka_req *k = r->dec;
	const struct km_create_topics_req *q = k->body;
	const struct km_creatable_topic *rt = q->topics.v;
	const struct kcreate_st *st = k->kst;
	const struct kcreate_one *o;
	struct km_create_topics_resp s;
	struct km_created_topic *t = NULL;
	int32_t i;

	kdesc_defaults(kmsg_create_topics.km_resp, &s);
	if (st->n > 0 && (t = conn_alloc(c, (size_t)st->n *
	    sizeof(*t))) == NULL) {
		c->dead = 1;
		return;
	}
	for (i = 0; i < st->n; i++) {
		o = &st->t[i];
		memset(&t[i], 0, sizeof(t[i]));
		/* Names from the body: it is decoded again if it moved. */
		t[i].name = rt[i].name;
		t[i].error_code = o->error;
		t[i].error_message = kstr_c(o->why);
		t[i].num_partitions = -1;
		t[i].replication_factor = -1;
		if (o->error != KERR_NONE)
			continue;
		t[i].num_partitions = q->validate_only ? o->partitions :
		    o->a.partitions;
		t[i].replication_factor = 1;
		if (!q->validate_only)
			memcpy(t[i].topic_id, o->a.id, sizeof(t[i].topic_id));
		if (k->h.api_version >= 5 &&
		    create_configs(w, c, rt[i].name, &t[i].configs) == -1) {
			c->dead = 1;
			return;
		}
	}
	s.topics.n = st->n;
	s.topics.v = t;
	kafka_emit_desc(c, r, &s);
}

/* One topic of a DeleteTopics in progress. */
struct kdelete_one {
	int16_t			 error;
	int			 wait;		/* a waits for the writer */
	int			 by_id;		/* named by its id (v6) */
	struct kstr		 name;		/* by_id: the name found */
	struct op_topic_delete	 a;
};

struct kdelete_st {
	int32_t			 n;
	struct kdelete_one	*t;
};

/* No topic has a bad name; a reserved one is Kafka's own. */
static int16_t
delete_error(enum op_err err)
{
	return err == OP_BAD_TOPIC_NAME ? KERR_UNKNOWN_TOPIC_OR_PARTITION :
	    kafka_op_error(err);
}

/* The message of a delete's error (v5+), or NULL. */
static const char *
delete_message(int16_t error)
{
	switch (error) {
	case KERR_REQUEST_TIMED_OUT:
		return "the topic is deleted; its files are still being "
		    "removed";
	case KERR_INVALID_TOPIC_EXCEPTION:
		return "the name is reserved for the broker's own use";
	default:
		return NULL;
	}
}

/* The i-th topic a DeleteTopics names: by name (all versions) or id (v6). */
static void
delete_topic(const struct km_delete_topics_req *q, int16_t version,
    int32_t i, struct kstr *name, const uint8_t **id)
{
	static const uint8_t zero[TOPIC_ID_LEN];
	const struct km_delete_topic_state *ts = q->topics.v;
	const struct kstr *names = q->topic_names.v;

	if (version < 6) {
		*name = names[i];
		*id = NULL;
		return;
	}
	*name = ts[i].name;
	*id = ts[i].name.len < 0 &&
	    memcmp(ts[i].topic_id, zero, TOPIC_ID_LEN) != 0 ?
	    ts[i].topic_id : NULL;
}

void
kafka_delete_topics_exec(struct worker *w, struct conn *c, struct req *r)
{
	struct kafka_req *k = r->dec;
	const struct km_delete_topics_req *q = k->body;
	const struct karray *ta = k->h.api_version >= 6 ? &q->topics :
	    &q->topic_names;
	struct kdelete_st *st;
	struct kdelete_one *o;
	struct kstr name;
	const uint8_t *id;
	const char *s;
	char *cp;
	size_t len;
	struct op_ctx x;
	int32_t i;
	int waiting = 0;

	r->state = REQ_DONE;
	if ((st = conn_alloc(c, sizeof(*st))) == NULL) {
		c->dead = 1;
		return;
	}
	st->n = ta->n > 0 ? ta->n : 0;
	if (st->n > 0 && (st->t = conn_alloc(c, (size_t)st->n *
	    sizeof(*st->t))) == NULL) {
		c->dead = 1;
		return;
	}
	k->kst = st;
	conn_op_ctx(c, r, &x);
	r->deadline = w->now + (q->timeout_ms > 0 ? q->timeout_ms :
	    TOPIC_DELETE_TIMEOUT_MS);
	for (i = 0; i < st->n; i++) {
		o = &st->t[i];
		memset(o, 0, sizeof(*o));
		delete_topic(q, k->h.api_version, i, &name, &id);
		if (id != NULL) {
			o->by_id = 1;
			if (op_topic_find_id(&x, id, &s, &len) != OP_OK) {
				o->error = KERR_UNKNOWN_TOPIC_ID;
				continue;
			}
			/* Shared memory: a later topic may take the entry. */
			if ((cp = conn_alloc(c, len)) == NULL) {
				c->dead = 1;
				return;
			}
			memcpy(cp, s, len);
			o->name.p = s = cp;
			o->name.len = (int32_t)len;
		} else if (name.len <= 0) {
			o->error = KERR_UNKNOWN_TOPIC_OR_PARTITION;
			continue;
		} else {
			s = name.p;
			len = (size_t)name.len;
		}
		o->a.deadline = r->deadline;
		if (op_topic_delete(&x, s, len, &o->a) == OP_WAIT) {
			o->error = KERR_NONE;
			waiting = o->wait = 1;
		} else
			o->error = delete_error(o->a.err);
		/* Gone between the lookup and the delete: still unknown. */
		if (o->by_id && o->a.err == OP_NO_TOPIC)
			o->error = KERR_UNKNOWN_TOPIC_ID;
	}
	if (waiting)
		r->state = REQ_WAIT;
}

void
kafka_delete_topics_poll(struct worker *w, struct conn *c, struct req *r)
{
	struct kafka_req *k = r->dec;
	struct kdelete_st *st = k->kst;
	struct kdelete_one *o;
	struct op_ctx x;
	int32_t i;
	int waiting = 0;

	(void)w;
	conn_op_ctx(c, r, &x);
	for (i = 0; i < st->n; i++) {
		o = &st->t[i];
		if (!o->wait)
			continue;
		if (op_topic_delete_poll(&x, &o->a) == OP_WAIT) {
			waiting = 1;
			continue;
		}
		o->wait = 0;
		o->error = delete_error(o->a.err);
	}
	r->state = waiting ? REQ_WAIT : REQ_DONE;
}

void
kafka_delete_topics_emit(struct worker *w, struct conn *c, struct req *r)
{
	struct kafka_req *k = r->dec;
	const struct km_delete_topics_req *q = k->body;
	const struct kdelete_st *st = k->kst;
	const struct kdelete_one *o;
	struct km_delete_topics_resp s;
	struct km_deleted_topic *t = NULL;
	const uint8_t *id;
	int32_t i;

	(void)w;
	kdesc_defaults(kmsg_delete_topics.km_resp, &s);
	if (st->n > 0 && (t = conn_alloc(c, (size_t)st->n *
	    sizeof(*t))) == NULL) {
		c->dead = 1;
		return;
	}
	for (i = 0; i < st->n; i++) {
		o = &st->t[i];
		memset(&t[i], 0, sizeof(t[i]));
		/* Names from the body: it is decoded again if it moved. */
		delete_topic(q, k->h.api_version, i, &t[i].name, &id);
		t[i].error_code = o->error;
		if (id != NULL)
			memcpy(t[i].topic_id, id, sizeof(t[i].topic_id));
		/* Asked by name: the id of the topic it deleted. */
		else if (o->error == KERR_NONE ||
		    o->error == KERR_REQUEST_TIMED_OUT)
			memcpy(t[i].topic_id, o->a.id, sizeof(t[i].topic_id));
		/*
		 * A topic found by id is answered with its name, unless it
		 * is unknown or the user may not delete it (Kafka: may not
		 * see it).
		 */
		if (o->by_id && o->error != KERR_UNKNOWN_TOPIC_ID &&
		    o->error != KERR_TOPIC_AUTHORIZATION_FAILED)
			t[i].name = o->name;
		t[i].error_message = kstr_c(delete_message(o->error));
	}
	s.responses.n = st->n;
	s.responses.v = t;
	kafka_emit_desc(c, r, &s);
}
