/*
 * Kafka topic administration in a worker: CreateTopics v0-7 and
 * DeleteTopics v0-6, through their descriptions (proto/kafka/kmsg_admin.h).
 *
 * A topic is created as the native CREATE_TOPIC creates it (the shared
 * topic directory; the writer makes its files).  One broker holds one
 * copy: a replication factor other than 1 or -1 (the default) is
 * INVALID_REPLICATION_FACTOR, a manual assignment must name broker 0
 * once per partition (INVALID_REPLICA_ASSIGNMENT otherwise).  The
 * configs are the topic's own settings (worker/op/tconf.h), validated
 * before anything is created: an unknown key or a bad value is
 * INVALID_CONFIG naming it, and the topic is not created.  The answer
 * waits for the writer to have saved them with the topic's files.
 * validate_only (v1+) runs every check and creates nothing.  From v4 a
 * num_partitions or replication_factor of -1 is the broker's default
 * (Flume takes -1 in every version: the configured count, and 1).  From
 * v5 the answer carries the topic's partitions, replication factor and
 * every setting with its source (DYNAMIC_TOPIC_CONFIG for the configs
 * given, STATIC_BROKER_CONFIG for flume.conf's, DEFAULT_CONFIG), from
 * v7 its id.  Each created
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
#include "common/log.h"
#include "proto/kafka/kapi.h"
#include "proto/kafka/kmsg_admin.h"
#include "worker/conn.h"
#include "worker/kafka/kafka.h"
#include "worker/kafka/admin.h"
#include "worker/op/part.h"
#include "worker/op/tconf.h"
#include "worker/op/topics.h"
#include "worker/worker.h"

/*
 * Check a CreateTopics topic's configs into *tc; *why (c's memory) says
 * which key is wrong.
 */
static int16_t
create_configs_check(const struct op_ctx *x, struct conn *c,
    const struct km_creatable_topic *t, struct tconf *tc, const char **why)
{
	const struct km_topic_config *cf = t->configs.v;
	struct op_tconf_edit *e;
	char *msg;
	int32_t i, n = t->configs.n > 0 ? t->configs.n : 0;

	memset(tc, 0, sizeof(*tc));
	if (n == 0)
		return KERR_NONE;
	if ((e = conn_alloc(c, (size_t)n * sizeof(*e))) == NULL ||
	    (msg = conn_alloc(c, OP_TCONF_WHY)) == NULL)
		return -1;
	for (i = 0; i < n; i++) {
		e[i].name = cf[i].name.p;
		e[i].name_len = cf[i].name.len > 0 ? (size_t)cf[i].name.len : 0;
		e[i].value = cf[i].value.len >= 0 ? (cf[i].value.p != NULL ?
		    cf[i].value.p : "") : NULL;
		e[i].value_len = cf[i].value.len > 0 ?
		    (size_t)cf[i].value.len : 0;
		e[i].kind = OP_TCONF_SET;
	}
	if (op_tconf_check_new(x, e, n, tc, msg, OP_TCONF_WHY) != OP_OK) {
		log_warnx("%s: %s: create of topic %.*s refused: %s", x->peer,
		    x->api != NULL ? x->api : "CreateTopics",
		    (int)(t->name.len > 0 ? t->name.len : 0), t->name.p, msg);
		*why = msg;
		return KERR_INVALID_CONFIG;
	}
	return KERR_NONE;
}

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
	struct tconf		 tc;		/* its configs */
	int			 ti;		/* created: its entry */
	uint32_t		 tgen;		/* ... and its configs' generation */
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
	enum op_status rc;
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
		o->ti = -1;
		o->error = create_check(&x, &rt[i], &o->partitions, &o->why);
		if (o->error == KERR_NONE)
			o->error = create_configs_check(&x, c, &rt[i], &o->tc,
			    &o->why);
		if (o->error == -1) {
			c->dead = 1;
			return;
		}
		if (o->error != KERR_NONE || q->validate_only)
			continue;
		o->a.partitions = o->partitions;
		o->a.deadline = q->timeout_ms > 0 ? r->deadline : 0;
		rc = op_topic_create(&x, rt[i].name.p, (size_t)rt[i].name.len,
		    &o->a);
		if (o->a.err == OP_OK && op_topic_resolve(w, rt[i].name.p,
		    (size_t)rt[i].name.len, 0, &o->ti) == OP_OK)
			op_tconf_publish_new(&x, o->ti, o->a.id, &o->tc,
			    &o->tgen);
		if (rc == OP_WAIT)
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

	conn_op_ctx(c, r, &x);
	for (i = 0; i < st->n; i++) {
		o = &st->t[i];
		if (!o->wait)
			continue;
		if (op_topic_create_poll(&x, &o->a) == OP_WAIT) {
			waiting = 1;
			continue;
		}
		/* On disk: wait for its settings to be saved too. */
		if (o->a.err == OP_OK && o->ti >= 0 &&
		    !op_tconf_is_saved(w, o->ti, o->tgen)) {
			if (w->now < r->deadline) {
				o->a.ti = -1;
				waiting = 1;
				continue;
			}
			o->a.err = OP_TIMEOUT;
		}
		o->wait = 0;
		o->error = kafka_op_error(o->a.err);
		o->why = create_message(o->a.err);
	}
	r->state = waiting ? REQ_WAIT : REQ_DONE;
}

/*
 * Every setting of a topic created with configs tc (v5+), with its
 * source, in c's memory: 0, or -1.
 */
static int
create_configs(struct worker *w, struct conn *c, struct kstr name,
    const struct tconf *tc, struct karray *out)
{
	char tname[TOPIC_NAME_MAX + 1], val[64], *v;
	struct km_created_config *cf;
	struct tconf eff;
	int8_t src[TC_NKEYS];
	int k;

	if (name.len <= 0 || name.len > TOPIC_NAME_MAX)
		return 0;
	memcpy(tname, name.p, (size_t)name.len);
	tname[name.len] = '\0';
	config_topic_tconf(w->conf, tname, tc, &eff, src);
	if ((cf = conn_alloc(c, TC_NKEYS * sizeof(*cf))) == NULL)
		return -1;
	for (k = 0; k < TC_NKEYS; k++) {
		tconf_print((enum tconf_key)k, eff.v[k], val, sizeof(val));
		if ((v = conn_alloc(c, strlen(val) + 1)) == NULL)
			return -1;
		memcpy(v, val, strlen(val) + 1);
		memset(&cf[k], 0, sizeof(cf[k]));
		cf[k].name = kstr_c(tconf_defs[k].name);
		cf[k].value = kstr_c(v);
		cf[k].config_source = src[k];
	}
	out->n = TC_NKEYS;
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
		    create_configs(w, c, rt[i].name, &o->tc,
		    &t[i].configs) == -1) {
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
